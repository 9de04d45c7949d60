// CPU accounting from /proc (Linux), so a run can say how much CPU the server spent per request and whether
// something else on the machine was competing (throughput alone cannot tell a slow endpoint from a busy box).
// Elsewhere every function returns null and the benches just print less.
import { readdirSync, readFileSync } from "node:fs";

const TICK_MS = 10; // USER_HZ is 100 on every Linux we run on

/**
 * utime+stime (ms) of every live process whose process group is `pgid`, and their pids.
 * @returns {{ ms: number, pids: Set<number> } | null}
 */
export function groupCpu(pgid) {
  let total = 0;
  const pids = new Set();
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue; // exited meanwhile
    }
    // Fields after the command (which may hold spaces and parentheses): state ppid pgrp ... utime(14) stime(15)
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== pgid) continue;
    pids.add(Number(name));
    total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  return { ms: total, pids };
}

/**
 * utime+stime (ms) of the live processes of process group `pgid` whose command is `comm` (e.g. `workerd`, to tell the
 * runtime's CPU apart from wrangler's Node process and esbuild's), or null off Linux. CPU time, unlike wall time, is
 * barely moved by other load on the machine.
 */
export function groupCpuOf(pgid, comm) {
  let entries;
  try {
    entries = readdirSync("/proc");
  } catch {
    return null;
  }
  let total = 0;
  for (const name of entries) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;
    }
    const command = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) !== pgid || command !== comm) continue;
    total += (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  }
  return total;
}

/** Busy and total CPU time (ms, all CPUs) of the machine since boot. */
export function machineCpuMs() {
  try {
    const line = readFileSync("/proc/stat", "utf8").split("\n")[0];
    const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
    const total = v.reduce((a, b) => a + b, 0);
    const idle = v[3] + v[4];
    return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
  } catch {
    return null;
  }
}

/** CPU time (ms) of this Node process: autocannon runs here. */
export function selfCpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/**
 * Starts measuring; `stop()` returns CPU used meanwhile, in cores (1.0 = one CPU busy the whole time):
 * `server` (the process group `pgid`), `loadgen` (this process) and `other` (everything else on the machine),
 * and `restarted`: a process of the group went away meanwhile (e.g. wrangler restarted workerd after a source
 * change), which makes both the CPU figures and the run itself unreliable.
 * @param {number | undefined} pgid
 */
export function startCpuMeter(pgid) {
  const t0 = performance.now();
  const s0 = pgid ? groupCpu(pgid) : null;
  const l0 = selfCpuMs();
  const m0 = machineCpuMs();
  return {
    stop() {
      const wall = performance.now() - t0;
      const s1 = pgid ? groupCpu(pgid) : null;
      const l1 = selfCpuMs();
      const m1 = machineCpuMs();
      const restarted = s0 !== null && s1 !== null && [...s0.pids].some((pid) => !s1.pids.has(pid));
      const serverMs = s0 !== null && s1 !== null && !restarted ? s1.ms - s0.ms : null;
      const loadgenMs = l1 - l0;
      const busyMs = m0 && m1 ? m1.busy - m0.busy : null;
      return {
        wallMs: wall,
        restarted,
        serverMs,
        loadgenMs,
        server: serverMs === null ? null : serverMs / wall,
        loadgen: loadgenMs / wall,
        other: busyMs === null || serverMs === null ? null : Math.max(0, busyMs - serverMs - loadgenMs) / wall,
      };
    },
  };
}
