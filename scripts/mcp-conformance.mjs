#!/usr/bin/env node
// `npm run mcp:conformance`: the MCP server checked by real, independent clients (docs/mcp.md §Conformance), against
// a throwaway `wrangler dev` (free 127.0.0.1 port, temporary state, migrations applied, one account and API key;
// scripts/lib/local-worker.mjs):
//
//   1. the stdio bin (dist/mcp-stdio.mjs, built first) without SVC_API_KEY exits non-zero and names the variable;
//   2. the official suite `conformance server` (@modelcontextprotocol/conformance) on /mcp, through a small
//      header-adding proxy (the CLI cannot send Authorization; scripts/lib/auth-proxy.mjs), with
//      test/mcp/conformance-baseline.yml: only the scenarios listed there may fail (they need the suite's own
//      fixture tools, prompts and resources), and every listed one must still fail (the suite flags stale entries);
//      the generic scenarios (initialize, ping, tools/prompts/resources list, logging, DNS rebinding, multiple
//      streams) are checked by name to have passed;
//   3. the Inspector CLI over HTTP: tools/list --strict (schema portability lint), prompts/list, resources/list,
//      a tools/call, and a call without a key that must be refused;
//   4. the stdio bin (a relay to /mcp) through the Inspector: tools/list --strict (the same tools as over HTTP),
//      tools/calls relayed to the /mcp of the same wrangler dev, and a rejected key refused without echoing it.
//
// Exits 1 when any check fails; always stops what it started (wrangler dev's process group, the proxy) and removes
// the temporary state. Most of the time is wrangler applying migrations and starting.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { buildStdioServer } from "./build-mcp.mjs";
import { startAuthProxy } from "./lib/auth-proxy.mjs";
import { startLocalWorker, tail } from "./lib/local-worker.mjs";
import { ROOT } from "./lib/wrangler.mjs";

const BASELINE = join(ROOT, "test", "mcp", "conformance-baseline.yml");
const CONFORMANCE_JS = join(ROOT, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js");
const INSPECTOR_JS = join(
  ROOT,
  "node_modules",
  "@modelcontextprotocol",
  "inspector",
  "clients",
  "launcher",
  "build",
  "index.js",
);
/** Scenarios meaningful for any server; they must pass (docs/mcp.md §Conformance), whatever the baseline says. */
const GENERIC_SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "prompts-list",
  "resources-list",
  "logging-set-level",
  "dns-rebinding-protection",
  "server-sse-multiple-streams",
];
/** The tools of docs/mcp.md §Tools; every one must be listed over HTTP and over stdio. */
const SPEC_TOOLS = [
  "search_container",
  "track_container",
  "get_container",
  "get_shipment_details",
  "get_container_transport_events",
  "get_supported_shipping_lines",
  "get_container_route",
  "list_shipments",
  "list_containers",
  "list_tracking_requests",
  "list_documents",
  "get_document",
];
const SPEC_PROMPTS = ["track-shipment", "check-demurrage", "analyze-delays"];
/** Checks a complete run records (a run that records fewer failed somewhere without saying so). */
const EXPECTED_CHECKS = 12;
/** Longest a single client run may take before it is killed and counted as failed (ms). */
const STEP_TIMEOUT_MS = 90_000;

const results = [];

function checkNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 19)) return;
  console.error(
    `mcp:conformance needs Node 22.19 or later (the conformance suite and the Inspector; found ${process.version}). ` +
      "Run it as `npm run mcp:conformance`, which uses the project's Node from node_modules/.bin.",
  );
  process.exit(1);
}

/**
 * Runs `node <args>` to completion with output captured (killed after STEP_TIMEOUT_MS).
 * @param {string[]} args
 * @param {{ env?: NodeJS.ProcessEnv }} [options] the child's whole environment (default: this process's)
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string, ms: number }>}
 */
function runNode(args, { env = process.env } = {}) {
  const started = Date.now();
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (c) => {
      stdout += c;
    });
    child.stderr.setEncoding("utf8").on("data", (c) => {
      stderr += c;
    });
    const timer = setTimeout(() => {
      stderr += `\n(killed after ${STEP_TIMEOUT_MS / 1000} s)`;
      child.kill("SIGKILL");
    }, STEP_TIMEOUT_MS);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolvePromise({ code, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** Records one check: prints ✓/✗ with its detail (and the end of its output on failure). */
function record(name, ok, detail = "", output = "") {
  results.push({ name, ok });
  console.log(`${ok ? "✓" : "✗"} ${name}${detail ? ` — ${detail}` : ""}`);
  if (!ok && output.trim()) console.log(indent(output.trim().split("\n").slice(-40).join("\n")));
}

function indent(text) {
  return text
    .split("\n")
    .map((l) => `    ${l}`)
    .join("\n");
}

/** The JSON the Inspector CLI prints on stdout, or undefined. */
function parseJson(stdout) {
  const start = stdout.indexOf("{");
  if (start === -1) return undefined;
  try {
    return JSON.parse(stdout.slice(start));
  } catch {
    return undefined;
  }
}

/** Names of `wanted` not in `list`. */
function missing(wanted, list) {
  const have = new Set(list);
  return wanted.filter((n) => !have.has(n));
}

const secs = (ms) => `${(ms / 1000).toFixed(1)} s`;

async function checkStdioFailFast(bin) {
  const env = { ...process.env };
  delete env.SVC_API_KEY;
  const run = await runNode([bin], { env });
  const out = `${run.stdout}${run.stderr}`;
  record(
    "stdio bin without SVC_API_KEY fails fast",
    run.code !== 0 && run.code !== null && /SVC_API_KEY is not set/.test(run.stderr) && run.stdout === "",
    `exit ${run.code}: ${out.trim().split("\n")[0]?.slice(0, 100)}…`,
    out,
  );
}

/** Scenario → passed, from the checks.json files the suite writes under `outDir`. */
function scenarioOutcomes(outDir) {
  const outcomes = new Map();
  if (!existsSync(outDir)) return outcomes;
  for (const dir of readdirSync(outDir)) {
    const file = join(outDir, dir, "checks.json");
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T.+$/.exec(dir)?.[1];
    if (!scenario || !existsSync(file)) continue;
    const checks = JSON.parse(readFileSync(file, "utf8"));
    const list = Array.isArray(checks) ? checks : (checks.checks ?? []);
    outcomes.set(scenario, list.length > 0 && list.every((c) => c.status === "SUCCESS" || c.status === "WARNING"));
  }
  return outcomes;
}

/** Runs the suite; resolves to a function that records its checks (so output stays in order). */
async function runConformance(url, outDir) {
  const run = await runNode([CONFORMANCE_JS, "server", "--url", url, "--expected-failures", BASELINE, "-o", outDir]);
  return () => recordConformance(run, outDir);
}

function recordConformance(run, outDir) {
  const output = `${run.stdout}\n${run.stderr}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: strips ANSI colours from the suite's output
  const plain = output.replace(/\x1b\[[0-9;]*m/g, "");
  const total = /Total: \d+ passed, \d+ failed/.exec(plain)?.[0] ?? "no total";
  const verdict = /Baseline (?:check|is)[^\n]*/.exec(plain)?.[0] ?? "no baseline verdict";
  record(
    `conformance server, baseline ${relative(ROOT, BASELINE)}`,
    run.code === 0,
    `${total}; ${verdict} (${secs(run.ms)})`,
    plain,
  );
  const outcomes = scenarioOutcomes(outDir);
  const notPassed = GENERIC_SCENARIOS.filter((s) => outcomes.get(s) !== true);
  record(
    "conformance generic scenarios all pass",
    notPassed.length === 0,
    notPassed.length === 0 ? GENERIC_SCENARIOS.join(", ") : `not passed: ${notPassed.join(", ")}`,
  );
}

/** Runs the Inspector CLI; MCP_CATALOG_PATH keeps it from creating ~/.mcp-inspector/mcp.json. */
function inspector(args, catalog) {
  return runNode([INSPECTOR_JS, "--cli", ...args], { env: { ...process.env, MCP_CATALOG_PATH: catalog } });
}

/**
 * The Inspector checks, run concurrently (each is its own Node process); resolves to a function that records them
 * in a fixed order.
 */
async function runInspectorChecks({ url, origin, apiKey, bin, catalog }) {
  const http = ["--transport", "http", "--header", `Authorization: Token ${apiKey}`];
  const stdioEnv = ["-e", `SVC_API_KEY=${apiKey}`, "-e", `SVC_API_BASE_URL=${origin}/v2`];
  const stdioCmd = ["--", process.execPath, bin];
  const wrongKey = `${apiKey.slice(0, -4)}zzzz`;
  const [httpList, prompts, resources, httpCall, noKey, stdioList, stdioCall, stdioSearch, stdioBadKey] =
    await Promise.all([
      inspector([url, ...http, "--method", "tools/list", "--strict"], catalog),
      inspector([url, ...http, "--method", "prompts/list"], catalog),
      inspector([url, ...http, "--method", "resources/list"], catalog),
      inspector(
        [
          url,
          ...http,
          "--method",
          "tools/call",
          "--tool-name",
          "get_supported_shipping_lines",
          "--tool-arg",
          "search=MAEU",
        ],
        catalog,
      ),
      inspector([url, "--transport", "http", "--method", "tools/list"], catalog),
      inspector([...stdioEnv, "--method", "tools/list", "--strict", ...stdioCmd], catalog),
      inspector(
        [
          ...stdioEnv,
          "--method",
          "tools/call",
          "--tool-name",
          "get_supported_shipping_lines",
          "--tool-arg",
          "search=MAEU",
          ...stdioCmd,
        ],
        catalog,
      ),
      inspector(
        [
          ...stdioEnv,
          "--method",
          "tools/call",
          "--tool-name",
          "search_container",
          "--tool-arg",
          "query=MSCU1234566",
          ...stdioCmd,
        ],
        catalog,
      ),
      inspector(
        [
          "-e",
          `SVC_API_KEY=${wrongKey}`,
          "-e",
          `SVC_API_BASE_URL=${origin}/v2`,
          "--method",
          "tools/call",
          "--tool-name",
          "list_containers",
          ...stdioCmd,
        ],
        catalog,
      ),
    ]);

  return () =>
    recordInspectorChecks({
      httpList,
      prompts,
      resources,
      httpCall,
      noKey,
      stdioList,
      stdioCall,
      stdioSearch,
      stdioBadKey,
      wrongKey,
    });
}

function recordInspectorChecks({
  httpList,
  prompts,
  resources,
  httpCall,
  noKey,
  stdioList,
  stdioCall,
  stdioSearch,
  stdioBadKey,
  wrongKey,
}) {
  const both = (r) => `${r.stdout}\n${r.stderr}`;
  const httpTools = (parseJson(httpList.stdout)?.tools ?? []).map((t) => t.name);
  const absent = missing(SPEC_TOOLS, httpTools);
  record(
    "inspector (http) tools/list --strict",
    httpList.code === 0 && absent.length === 0,
    `exit ${httpList.code}, ${httpTools.length} tools${absent.length ? `, missing ${absent.join(", ")}` : ""}`,
    both(httpList),
  );
  const promptNames = (parseJson(prompts.stdout)?.prompts ?? []).map((p) => p.name);
  record(
    "inspector (http) prompts/list",
    prompts.code === 0 && missing(SPEC_PROMPTS, promptNames).length === 0,
    `exit ${prompts.code}: ${promptNames.join(", ")}`,
    both(prompts),
  );
  const uris = (parseJson(resources.stdout)?.resources ?? []).map((r) => r.uri);
  record(
    "inspector (http) resources/list",
    resources.code === 0 && uris.includes("svc://docs/milestone-glossary"),
    `exit ${resources.code}: ${uris.join(", ")}`,
    both(resources),
  );
  record(
    "inspector (http) tools/call get_supported_shipping_lines search=MAEU",
    httpCall.code === 0 && httpCall.stdout.includes("MAEU"),
    `exit ${httpCall.code}`,
    both(httpCall),
  );
  record("inspector (http) without a key is refused", noKey.code !== 0, `exit ${noKey.code}`, both(noKey));

  const stdioTools = (parseJson(stdioList.stdout)?.tools ?? []).map((t) => t.name);
  const differ = [...missing(httpTools, stdioTools), ...missing(stdioTools, httpTools)];
  record(
    "inspector (stdio bin) tools/list --strict",
    stdioList.code === 0 && stdioTools.length > 0 && differ.length === 0,
    `exit ${stdioList.code}, ${stdioTools.length} tools${differ.length ? `, differ from http: ${differ.join(", ")}` : ", the same as over http"}`,
    both(stdioList),
  );
  record(
    "inspector (stdio bin) tools/call get_supported_shipping_lines search=MAEU (relayed to /mcp)",
    stdioCall.code === 0 && stdioCall.stdout.includes("MAEU"),
    `exit ${stdioCall.code}`,
    both(stdioCall),
  );
  record(
    "inspector (stdio bin) tools/call search_container (relayed to /mcp)",
    stdioSearch.code === 0 && stdioSearch.stdout.includes('"containers"'),
    `exit ${stdioSearch.code}`,
    both(stdioSearch),
  );
  const said = both(stdioBadKey);
  record(
    "inspector (stdio bin) with a rejected key: refused, saying so, without echoing the key",
    stdioBadKey.code !== 0 && /rejected/i.test(said) && !said.includes(wrongKey),
    `exit ${stdioBadKey.code}`,
    said,
  );
}

async function main() {
  checkNode();
  const started = Date.now();
  const work = mkdtempSync(join(tmpdir(), "ct-mcp-conformance-"));
  const catalog = join(work, "inspector-catalog.json");
  writeFileSync(catalog, JSON.stringify({ mcpServers: {} }));
  let worker;
  let workerPromise;
  let proxy;
  try {
    console.log("building the stdio bin and starting wrangler dev …");
    workerPromise = startLocalWorker({ log: (line) => console.log(line) });
    // Never left unhandled while the build (or its check) fails first.
    workerPromise.catch(() => undefined);
    const bin = await buildStdioServer();
    await checkStdioFailFast(bin);
    worker = await workerPromise;
    proxy = await startAuthProxy({ target: worker.origin, authorization: `Token ${worker.apiKey}` });
    console.log(`  auth proxy ${proxy.origin} → ${worker.origin}`);

    // The suite and the Inspector runs are independent clients with their own sessions: run them side by side,
    // then record their checks in a fixed order.
    const t0 = Date.now();
    const [recordSuite, recordInspector] = await Promise.all([
      runConformance(`${proxy.origin}/mcp`, join(work, "conformance")),
      runInspectorChecks({ url: `${worker.origin}/mcp`, origin: worker.origin, apiKey: worker.apiKey, bin, catalog }),
    ]);
    console.log(`  (clients ran for ${secs(Date.now() - t0)})`);
    recordSuite();
    recordInspector();
  } catch (err) {
    record("setup", false, err?.message ?? String(err));
  } finally {
    // Started even when a step before it failed: wait for it, to stop it.
    worker ??= await workerPromise?.catch(() => undefined);
    if (worker && results.some((r) => !r.ok)) {
      const log = tail(worker.logFile, 30);
      if (log.trim()) console.log(`\nwrangler dev log (end):\n${indent(log)}`);
    }
    await proxy?.close();
    await worker?.stop();
    rmSync(work, { recursive: true, force: true });
  }
  if (results.length < EXPECTED_CHECKS) {
    record("every check ran", false, `${results.length} of ${EXPECTED_CHECKS} checks recorded`);
  }
  const failed = results.filter((r) => !r.ok);
  console.log(
    `\nmcp:conformance: ${results.length - failed.length} passed, ${failed.length} failed (${secs(Date.now() - started)})`,
  );
  return failed.length === 0 ? 0 : 1;
}

// node:sqlite (the local worker's seeding) warns that it is experimental on Node 22; nothing to act on.
const emit = process.emitWarning;
process.emitWarning = (warning, ...rest) => {
  const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
  if (type === "ExperimentalWarning" && /SQLite/i.test(String(warning))) return;
  return emit.call(process, warning, ...rest);
};

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err?.stack ?? err);
    process.exit(1);
  },
);
