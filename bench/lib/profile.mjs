// CPU profile of the Worker under load, over wrangler dev's inspector port (the Chrome DevTools protocol):
// Profiler.start before a phase, Profiler.stop after it, the profile written as a .cpuprofile (open it in Chrome's
// DevTools, Performance tab) and summarised as self and total time per function.

import { writeFileSync } from "node:fs";
import { BENCH_HOST } from "./wrangler.mjs";

/**
 * Connects to the Worker's devtools target behind `inspectorPort` (the first target `/json` lists whose title is not
 * wrangler's proxy) and starts sampling every `intervalUs` microseconds.
 * @returns {Promise<{ stop: () => Promise<object> }>} `stop` ends the sampling and resolves to the profile (the
 *   DevTools `Profile` object: nodes, samples, timeDeltas)
 */
export async function startProfile(inspectorPort, { intervalUs = 200 } = {}) {
  const targets = await (await fetch(`http://${BENCH_HOST}:${inspectorPort}/json`)).json();
  const target = targets.find((t) => t.webSocketDebuggerUrl && !/proxy/i.test(t.title ?? "")) ?? targets[0];
  if (!target?.webSocketDebuggerUrl) throw new Error(`no devtools target on port ${inspectorPort}`);
  // wrangler's inspector proxy refuses a connection without an allowed `Origin` (a browser's devtools send one).
  const ws = new WebSocket(target.webSocketDebuggerUrl, { headers: { Origin: "http://localhost" } });
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve, { once: true });
    ws.addEventListener("error", () => reject(new Error("devtools WebSocket failed")), { once: true });
  });
  let nextId = 1;
  const pending = new Map();
  ws.addEventListener("message", (ev) => {
    const msg = JSON.parse(String(ev.data));
    const p = msg.id !== undefined ? pending.get(msg.id) : undefined;
    if (!p) return;
    pending.delete(msg.id);
    if (msg.error) p.reject(new Error(`${p.method}: ${msg.error.message}`));
    else p.resolve(msg.result);
  });
  const send = (method, params = {}) =>
    new Promise((resolve, reject) => {
      const id = nextId++;
      pending.set(id, { resolve, reject, method });
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send("Profiler.enable");
  await send("Profiler.setSamplingInterval", { interval: intervalUs });
  await send("Profiler.start");
  return {
    async stop() {
      const { profile } = await send("Profiler.stop");
      ws.close();
      return profile;
    },
  };
}

/** Where a profile node's function is: `name file:line` (file shortened to what follows `src/` or `node_modules/`). */
function frameName(cf) {
  const url = cf.url ?? "";
  const short = url.replace(/^.*?\/(src|node_modules)\//, "$1/").replace(/^.*\//, (m) => (url.includes("/") ? m : ""));
  return `${cf.functionName || "(anonymous)"} ${short}:${cf.lineNumber + 1}`;
}

/**
 * Self and total (inclusive) sampled time per function of a DevTools profile, in ms, heaviest first; also the
 * `(idle)`/`(program)`/`(garbage collector)` pseudo-frames. Total counts a function once per sample even when it
 * recurses.
 * @returns {{ sampledMs: number, idleMs: number, self: [string, number][], total: [string, number][] }}
 */
export function summariseProfile(profile) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map();
  const total = new Map();
  let sampledMs = 0;
  let idleMs = 0;
  profile.samples.forEach((id, i) => {
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    const node = byId.get(id);
    const name = frameName(node.callFrame);
    if (node.callFrame.functionName === "(idle)") {
      idleMs += ms;
      return;
    }
    sampledMs += ms;
    self.set(name, (self.get(name) ?? 0) + ms);
    const seen = new Set();
    for (let at = id; at !== undefined; at = parent.get(at)) {
      const n = frameName(byId.get(at).callFrame);
      if (seen.has(n)) continue;
      seen.add(n);
      total.set(n, (total.get(n) ?? 0) + ms);
    }
  });
  const sorted = (m) => [...m.entries()].sort((a, b) => b[1] - a[1]);
  return { sampledMs, idleMs, self: sorted(self), total: sorted(total) };
}

/** Writes `profile` to `file` (.cpuprofile) and prints its `top` heaviest functions by self and by total time. */
export function reportProfile(profile, file, { top = 40, requests } = {}) {
  writeFileSync(file, JSON.stringify(profile));
  const s = summariseProfile(profile);
  const per = (ms) => (requests ? ` (${(ms / requests).toFixed(3)} ms/req)` : "");
  console.log(
    `\nCPU profile: ${file}; busy ${s.sampledMs.toFixed(0)} ms${per(s.sampledMs)}, idle ${s.idleMs.toFixed(0)} ms`,
  );
  console.log("self time:");
  for (const [name, ms] of s.self.slice(0, top))
    console.log(`  ${((100 * ms) / s.sampledMs).toFixed(1).padStart(5)} %  ${name}${per(ms)}`);
  console.log("total time:");
  for (const [name, ms] of s.total.slice(0, top))
    console.log(`  ${((100 * ms) / s.sampledMs).toFixed(1).padStart(5)} %  ${name}${per(ms)}`);
  return s;
}
