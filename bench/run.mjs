#!/usr/bin/env node
// `npm run bench`: runs the benchmarks under bench/, one after the other.
//
//   npm run bench                       every bench
//   npm run bench -- api                only bench/api
//   npm run bench -- api --large        bench options after the names (see `npm run bench -- --help`)
//
// A bench is a directory bench/<name>/ with an index.mjs exporting `description` (one line), `usage` (its options)
// and `run(argv)` → exit code. Adding bench/webhooks/index.mjs is all it takes for `npm run bench -- webhooks`.
// Shared helpers (wrangler dev lifecycle, autocannon, seeding, tables, results files) live in bench/lib/.
import { existsSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const BENCH_DIR = dirname(fileURLToPath(import.meta.url));
/** Directories under bench/ that are not benches. */
const NOT_BENCHES = new Set(["lib", "results", "node_modules"]);

function checkNode() {
  const [major, minor] = process.versions.node.split(".").map(Number);
  if (major > 22 || (major === 22 && minor >= 18)) return;
  console.error(
    `npm run bench needs Node 22.18 or later (node:sqlite, TypeScript imports; found ${process.version}). ` +
      "Run it as `npm run bench`, which uses the project's Node from node_modules/.bin.",
  );
  process.exit(1);
}

/** Benches that live in a file of another bench's directory, by name. */
const FILE_BENCHES = { "terminal-batching": "engine/terminal-batching.mjs" };

/** Bench names, in alphabetical order. */
function available() {
  return readdirSync(BENCH_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && !NOT_BENCHES.has(d.name) && existsSync(join(BENCH_DIR, d.name, "index.mjs")))
    .map((d) => d.name)
    .concat(Object.keys(FILE_BENCHES).filter((name) => existsSync(join(BENCH_DIR, FILE_BENCHES[name]))))
    .sort();
}

function loadBench(name) {
  return import(pathToFileURL(join(BENCH_DIR, FILE_BENCHES[name] ?? join(name, "index.mjs"))).href);
}

async function main() {
  // node:sqlite prints an ExperimentalWarning on Node 22; the benches know.
  const emit = process.emitWarning;
  process.emitWarning = (warning, ...rest) => {
    const type = typeof rest[0] === "string" ? rest[0] : rest[0]?.type;
    if (type === "ExperimentalWarning" && /SQLite/i.test(String(warning))) return;
    return emit.call(process, warning, ...rest);
  };

  const argv = process.argv.slice(2);
  const names = available();
  const firstFlag = argv.findIndex((a) => a.startsWith("-"));
  const selected = firstFlag === -1 ? argv : argv.slice(0, firstFlag);
  const benchArgs = firstFlag === -1 ? [] : argv.slice(firstFlag);

  if (benchArgs.includes("--help") || benchArgs.includes("-h")) {
    console.log("usage: npm run bench [-- <bench>...] [-- <options>]\n\nbenches:");
    for (const name of names) console.log(`  ${name.padEnd(10)} ${(await loadBench(name)).description ?? ""}`);
    for (const name of names) {
      const usage = (await loadBench(name)).usage;
      if (usage) console.log(`\n${usage}`);
    }
    return 0;
  }
  checkNode();
  const unknown = selected.filter((n) => !names.includes(n));
  if (unknown.length > 0) {
    console.error(`unknown bench: ${unknown.join(", ")} (available: ${names.join(", ")})`);
    return 2;
  }
  const toRun = selected.length > 0 ? selected : names;
  let code = 0;
  for (const name of toRun) {
    console.log(`\n######## bench ${name} ########`);
    const bench = await loadBench(name);
    try {
      const result = await bench.run(benchArgs);
      if (result) code = result;
    } catch (err) {
      console.error(`bench ${name} failed: ${err?.stack ?? err}`);
      code = 1;
    }
  }
  return code;
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(err?.stack ?? err);
    process.exit(1);
  },
);
