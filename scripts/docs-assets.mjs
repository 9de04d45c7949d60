#!/usr/bin/env node
// `npm run docs:assets`: copies the pinned Scalar API reference build into the Worker's static assets (issue 11 §4),
// so /docs needs no CDN: public/docs/assets/scalar-api-reference-<version>.js, served by Workers static assets
// ([assets] in wrangler.toml; headers in public/_headers) and loaded by the page src/docs/page.ts writes.
//
// The source is node_modules/@scalar/api-reference/dist/browser/standalone.js (the self-contained browser build:
// one file, no chunks, no CDN import). Its version and SHA-384 are pinned in src/docs/scalar-asset.json; the copy
// is refused when the installed package differs from the pin (another version, or changed bytes), so what the page
// runs is exactly what was reviewed. The page carries the same hash as its Subresource Integrity attribute.
//
//   npm run docs:assets              check the installed build against the pin and copy it (no-op when up to date)
//   npm run docs:assets -- --pin     after upgrading @scalar/api-reference: write the new version and hash to the pin
//   --if-installed                   do nothing when the package is absent (postinstall of npm install --omit=dev)
//
// Runs by itself after `npm install` (postinstall) and before `npm start`, `npm run dev`, `npm test`,
// `npm run check:docs` and `npm run deploy`. The copied file is not committed (public/docs/assets/ is gitignored).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PIN_FILE = join(ROOT, "src", "docs", "scalar-asset.json");
const ASSETS_DIR = join(ROOT, "public", "docs", "assets");

/** `sha384-<base64>` of `bytes`, the form of an `integrity` attribute (W3C Subresource Integrity). */
function integrityOf(bytes) {
  return `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
}

/** The asset's file name for a version; src/docs/page.ts builds the same name (SCALAR_SCRIPT_PATH). */
function assetName(pin) {
  return `scalar-api-reference-${pin.version}.js`;
}

function main() {
  const { values } = parseArgs({
    options: { pin: { type: "boolean", default: false }, "if-installed": { type: "boolean", default: false } },
  });
  const pin = JSON.parse(readFileSync(PIN_FILE, "utf8"));
  const packageDir = join(ROOT, "node_modules", pin.package);
  if (!existsSync(join(packageDir, "package.json"))) {
    // An install without devDependencies (npm install --omit=dev) has no Scalar build and no wrangler to serve it.
    if (values["if-installed"]) return 0;
    console.error(`docs:assets: ${pin.package} is not installed; run npm install (it is a devDependency).`);
    return 1;
  }
  const installed = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;
  const bytes = readFileSync(join(packageDir, pin.source));
  const integrity = integrityOf(bytes);

  if (values.pin) {
    writeFileSync(PIN_FILE, `${JSON.stringify({ ...pin, version: installed, integrity }, null, 2)}\n`);
    console.log(`docs:assets: pinned ${pin.package}@${installed} ${pin.source} ${integrity}`);
    return writeAsset({ ...pin, version: installed, integrity }, bytes);
  }
  if (installed !== pin.version) {
    console.error(
      `docs:assets: ${pin.package} ${installed} is installed but ${pin.version} is pinned in ` +
        `${relative(ROOT, PIN_FILE)}. Install the pinned version (npm install), or after a deliberate upgrade ` +
        "review it and run `npm run docs:assets -- --pin`.",
    );
    return 1;
  }
  if (integrity !== pin.integrity) {
    console.error(
      `docs:assets: ${pin.package}@${installed} ${pin.source} does not match the pinned hash ` +
        `(${integrity}, pinned ${pin.integrity}): the installed package was changed. Reinstall it (rm -rf ` +
        `node_modules/${pin.package} && npm install).`,
    );
    return 1;
  }
  return writeAsset(pin, bytes);
}

/** Writes the asset unless an identical copy is there, and removes copies of other versions. */
function writeAsset(pin, bytes) {
  const name = assetName(pin);
  const target = join(ASSETS_DIR, name);
  mkdirSync(ASSETS_DIR, { recursive: true });
  for (const file of readdirSync(ASSETS_DIR)) {
    if (file !== name && file.startsWith("scalar-api-reference-")) rmSync(join(ASSETS_DIR, file));
  }
  if (existsSync(target) && integrityOf(readFileSync(target)) === pin.integrity) return 0;
  writeFileSync(target, bytes);
  console.log(`docs:assets: ${relative(ROOT, target)} (${pin.package}@${pin.version}, ${bytes.length} bytes)`);
  return 0;
}

process.exit(main());
