// Process hygiene for the benches: every child process group a bench starts (wrangler dev and its workerd) is
// registered here and killed when the bench ends, fails, or is interrupted (SIGINT, SIGTERM, SIGHUP).

/** Process group ids (the leader's pid) still to kill. */
const groups = new Set();
let installed = false;

/** Kills one process group, ignoring "no such process". */
function killGroup(pgid, signal) {
  try {
    process.kill(-pgid, signal);
  } catch (err) {
    if (err?.code !== "ESRCH") throw err;
  }
}

/** Whether any process of the group is still alive. */
export function groupAlive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Stops a process group: SIGTERM, then SIGKILL after `graceMs` if anything of it is still running.
 * @param {number} pgid
 * @param {number} [graceMs]
 */
export async function stopGroup(pgid, graceMs = 5000) {
  killGroup(pgid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (groupAlive(pgid)) killGroup(pgid, "SIGKILL");
  groups.delete(pgid);
}

/** Registers a process group to kill on exit or interruption. */
export function trackGroup(pgid) {
  install();
  groups.add(pgid);
}

/** Forgets a process group (after it was stopped normally). */
export function untrackGroup(pgid) {
  groups.delete(pgid);
}

function install() {
  if (installed) return;
  installed = true;
  // Last resort, synchronous: whatever is still registered when Node exits is killed outright.
  process.on("exit", () => {
    for (const pgid of groups) killGroup(pgid, "SIGKILL");
  });
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, () => {
      console.error(`\nbench: ${signal}, stopping child processes`);
      Promise.all([...groups].map((pgid) => stopGroup(pgid, 2000))).finally(() => process.exit(130));
    });
  }
}
