#!/usr/bin/env node
// `npm run lint` (after Biome): keeps test/ mirroring src/ (docs/architecture.md §Conventions, issue 24 §4).
// - every test file's folder is a src/ folder, or a src/ file's stem (test/app/ for src/app.ts), or under
//   test/helpers/ or test/fixtures/ (which hold no tests);
// - no test basename twice: `<name>` of `<name>.test.ts` / `<name>.unit.test.ts` names one file in the whole tree.
// Prints each violation and exits 1; prints nothing and exits 0 when the tree keeps the convention.
import { existsSync, readdirSync, statSync } from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TEST = join(ROOT, "test");
const SHARED = new Set(["helpers", "fixtures"]);

/** Every `*.test.ts` under `dir`, as paths relative to test/. */
function testFiles(dir) {
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...testFiles(path));
    else if (entry.endsWith(".test.ts")) found.push(relative(TEST, path));
  }
  return found;
}

const problems = [];
const byName = new Map();
for (const file of testFiles(TEST)) {
  const folder = dirname(file);
  const top = folder.split("/")[0] ?? "";
  if (SHARED.has(top)) {
    problems.push(`${file}: test/${top}/ holds shared helpers or fixtures, not tests`);
  } else if (folder === ".") {
    problems.push(`${file}: a test belongs in the test/ folder that mirrors the src/ folder of what it tests`);
  } else {
    const mirrored = join(ROOT, "src", folder);
    const isFolder = existsSync(mirrored) && statSync(mirrored).isDirectory();
    if (!isFolder && !existsSync(`${mirrored}.ts`)) {
      problems.push(`${file}: no src/${folder}/ (nor src/${folder}.ts) for test/${folder}/ to mirror`);
    }
  }
  const name = basename(file).replace(/(\.unit)?\.test\.ts$/, "");
  byName.set(name, [...(byName.get(name) ?? []), file]);
}
for (const [name, files] of byName) {
  if (files.length > 1) problems.push(`test basename "${name}" is used ${files.length} times: ${files.join(", ")}`);
}
for (const p of problems) console.error(`check-test-layout: ${p}`);
process.exit(problems.length > 0 ? 1 : 0);
