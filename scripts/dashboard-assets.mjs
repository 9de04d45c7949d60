#!/usr/bin/env node
// `npm run dashboard:assets`: copies the pinned map library and basemap into the dashboard's static assets (issue 28
// "map rendering with a maintained library and a basemap that ships with the service"), so the container page's map
// needs no CDN and no tile server: public/app/assets/vendor/, served by Workers static assets ([assets] in
// wrangler.toml; headers in public/_headers) and loaded by public/app/assets/container-map.js.
//
// - maplibre-gl's ES module build (dist/maplibre-gl.mjs, its worker dist/maplibre-gl-worker.mjs, which the library
//   loads from beside itself as a same-origin module worker, so no blob: worker is needed; and its CSS);
// - world-atlas's Natural Earth 1:110m countries (TopoJSON, public domain data, ISC package), turned into a GeoJSON
//   FeatureCollection with topojson-client at copy time, so the browser loads one plain `geojson` source.
//
// Each source's package version and SHA-384 are pinned in src/dashboard/map-assets.json; the copy is refused when the
// installed file differs from the pin (another version, or changed bytes), as scripts/docs-assets.mjs does for Scalar.
//
//   npm run dashboard:assets              check the installed files against the pins and copy them (no-op when current)
//   npm run dashboard:assets -- --pin     after upgrading one of the packages: write the new versions and hashes
//   --if-installed                        do nothing when a package is absent (npm install --omit=dev)
//
// Runs after `npm install` (postinstall) and before `npm start`, `npm run dev`, `npm test` and `npm run deploy`. The
// copies are not committed (public/app/assets/vendor/ is gitignored).
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const PIN_FILE = join(ROOT, "src", "dashboard", "map-assets.json");
const VENDOR_DIR = join(ROOT, "public", "app", "assets", "vendor");
const require = createRequire(join(ROOT, "package.json"));

/** `sha384-<base64>` of `bytes` (W3C Subresource Integrity form). */
function integrityOf(bytes) {
  return `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
}

/** The Natural Earth countries TopoJSON as a GeoJSON FeatureCollection with only each country's `name`, rounded. */
function topojsonCountries(bytes) {
  const { feature } = require("topojson-client");
  const topology = JSON.parse(bytes.toString("utf8"));
  const collection = feature(topology, topology.objects.countries);
  for (const f of collection.features) f.properties = { name: f.properties?.name ?? null };
  // Three decimals (about 100 m) is finer than the 1:110m shapes themselves and halves the file.
  return Buffer.from(
    JSON.stringify(collection, (_key, v) => (typeof v === "number" ? Math.round(v * 1000) / 1000 : v)),
  );
}

const CONVERTERS = { "topojson-countries": topojsonCountries };

function main() {
  const { values } = parseArgs({
    options: { pin: { type: "boolean", default: false }, "if-installed": { type: "boolean", default: false } },
  });
  const pins = JSON.parse(readFileSync(PIN_FILE, "utf8"));
  const problems = [];
  const outputs = [];
  for (const asset of pins.assets) {
    const packageDir = join(ROOT, "node_modules", asset.package);
    if (!existsSync(join(packageDir, "package.json"))) {
      if (values["if-installed"]) return 0;
      problems.push(`${asset.package} is not installed; run npm install (it is a devDependency).`);
      continue;
    }
    const installed = JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")).version;
    const bytes = readFileSync(join(packageDir, asset.source));
    const integrity = integrityOf(bytes);
    if (values.pin) {
      asset.version = installed;
      asset.integrity = integrity;
    } else if (installed !== asset.version) {
      problems.push(
        `${asset.package} ${installed} is installed but ${asset.version} is pinned in ${relative(ROOT, PIN_FILE)}. ` +
          "Install the pinned version (npm install), or after a deliberate upgrade review it and run " +
          "`npm run dashboard:assets -- --pin`.",
      );
      continue;
    } else if (integrity !== asset.integrity) {
      problems.push(
        `${asset.package}@${installed} ${asset.source} does not match the pinned hash (${integrity}, pinned ` +
          `${asset.integrity}): the installed package was changed. Reinstall it.`,
      );
      continue;
    }
    const converter = asset.convert ? CONVERTERS[asset.convert] : null;
    outputs.push({ asset, bytes: converter ? converter(bytes) : bytes });
  }
  if (problems.length > 0) {
    for (const p of problems) console.error(`dashboard:assets: ${p}`);
    return 1;
  }
  if (values.pin) {
    writeFileSync(PIN_FILE, `${JSON.stringify(pins, null, 2)}\n`);
    console.log(
      `dashboard:assets: pinned ${pins.assets.map((a) => `${a.package}@${a.version} ${a.source}`).join(", ")}`,
    );
  }
  mkdirSync(VENDOR_DIR, { recursive: true });
  for (const { asset, bytes } of outputs) {
    const target = join(VENDOR_DIR, asset.target);
    if (existsSync(target) && readFileSync(target).equals(bytes)) continue;
    writeFileSync(target, bytes);
    console.log(
      `dashboard:assets: ${relative(ROOT, target)} (${asset.package}@${asset.version}, ${bytes.length} bytes)`,
    );
  }
  return 0;
}

process.exit(main());
