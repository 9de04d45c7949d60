#!/usr/bin/env node
// Compiles data/*.csv into typed modules under src/reference/generated/ (run: `npm run data`); data/SOURCES.md says
// where each file comes from and under which licence. Reference data is read here, at build time, never at request
// time. A malformed row stops the script with the file, line and reason, so bad data cannot reach the service silently.
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "csv-parse/sync";
import { compileLocations } from "./lib/locations.mjs";
import { compileMetroAreas } from "./lib/metro-areas.mjs";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dataDir = join(root, "data");
const outDir = join(root, "src", "reference", "generated");

/** Fails loudly: which file, which line, what is wrong. */
function fail(file, line, reason) {
  console.error(`compile-data: ${file}:${line}: ${reason}`);
  process.exit(1);
}

function readCsv(relPath, requiredColumns) {
  const file = join(dataDir, relPath);
  if (!existsSync(file)) fail(`data/${relPath}`, 0, "file not found");
  let rows;
  try {
    rows = parse(readFileSync(file, "utf8"), { columns: true, skip_empty_lines: true, trim: true });
  } catch (err) {
    fail(relPath, err.lines ?? 0, `not valid CSV: ${err.message}`);
  }
  rows.forEach((row, i) => {
    for (const col of requiredColumns) {
      if (!(col in row)) fail(relPath, i + 2, `missing column ${col}`);
    }
  });
  return rows;
}

/** RFC 4122 version-5 UUID (SHA-1 of namespace + name): the same name gives the same id in every environment. */
const NAMESPACE = "6f1b7c3e-2f0a-5d3b-9c1e-4a7d2b8e0f11";
function uuidV5(name) {
  const ns = Buffer.from(NAMESPACE.replaceAll("-", ""), "hex");
  const hash = createHash("sha1").update(ns).update(name).digest();
  hash[6] = (hash[6] & 0x0f) | 0x50;
  hash[8] = (hash[8] & 0x3f) | 0x80;
  const hex = hash.subarray(0, 16).toString("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

// SCACs are 2–4 letters (NMFTA); a few lines only have SeaRates-style alphanumeric codes such as 11PG.
const SCAC = /^[A-Z0-9]{2,4}$/;

// ---- shipping lines -------------------------------------------------------------------------------------------
const carriers = readCsv("carriers.csv", [
  "scac",
  "name",
  "short_name",
  "tracking_supported",
  "bol_prefixes",
  "container_prefixes",
]);
const extended = readCsv("carriers-extended.csv", ["scac", "track_by", "alt_scacs"]);
const extendedByScac = new Map(extended.map((r) => [r.scac, r]));
const shippingLines = carriers.map((r, i) => {
  if (!SCAC.test(r.scac)) fail("carriers.csv", i + 2, `bad SCAC ${JSON.stringify(r.scac)}`);
  if (!r.name) fail("carriers.csv", i + 2, "blank name");
  const ext = extendedByScac.get(r.scac);
  const trackBy = (ext?.track_by ?? "").split("|").filter(Boolean);
  const split = (s) =>
    (s ?? "")
      .split(/[;|]/)
      .map((x) => x.trim())
      .filter(Boolean);
  const alternativeScacs = split(ext?.alt_scacs);
  for (const alt of alternativeScacs)
    if (!SCAC.test(alt)) fail("carriers-extended.csv", i + 2, `bad alternative SCAC ${alt}`);
  return {
    id: uuidV5(`shipping_line:${r.scac}`),
    scac: r.scac,
    name: r.name,
    shortName: r.short_name || r.name,
    alternativeScacs,
    bolPrefixes: split(r.bol_prefixes),
    containerPrefixes: split(r.container_prefixes),
    trackingSupported: r.tracking_supported === "yes",
    billOfLadingTrackingSupport: trackBy.includes("bl"),
    bookingNumberTrackingSupport: trackBy.includes("booking"),
    containerNumberTrackingSupport: trackBy.includes("container"),
  };
});
if (!shippingLines.some((l) => l.scac === "TEST")) {
  // The sandbox carrier of docs/decisions.md §Sandbox, in every environment.
  shippingLines.push({
    id: uuidV5("shipping_line:TEST"),
    scac: "TEST",
    name: "Test Carrier",
    shortName: "Test",
    alternativeScacs: [],
    bolPrefixes: ["TEST"],
    containerPrefixes: [],
    trackingSupported: true,
    billOfLadingTrackingSupport: true,
    bookingNumberTrackingSupport: true,
    containerNumberTrackingSupport: true,
  });
}
shippingLines.sort((a, b) => a.scac.localeCompare(b.scac));

// ---- ports and terminals (scripts/lib/locations.mjs says the sources and the merge) ---------------------------
function readProjectCsv(relPath, requiredColumns) {
  const file = join(root, relPath);
  let rows;
  try {
    rows = parse(readFileSync(file, "utf8"), { columns: true, skip_empty_lines: true, trim: true, comment: "#" });
  } catch (err) {
    fail(relPath, err.lines ?? 0, `not valid CSV: ${err.message}`);
  }
  rows.forEach((row, i) => {
    for (const col of requiredColumns) if (!(col in row)) fail(relPath, i + 2, `missing column ${col}`);
  });
  return rows;
}
const locations = compileLocations({
  readCsv,
  readProjectCsv,
  fail,
  uuidV5,
  today: new Date().toISOString().slice(0, 10),
});
const portList = locations.ports;
const terminals = locations.terminals;
keepIds(
  "ports",
  portList,
  (p) => [p.code],
  (old) => old.code,
);
keepIds(
  "terminals",
  terminals,
  (t) => [t.firmsCode, t.bicFacilityCode, t.smdgCode && `${t.portLocode}:${t.smdgCode}`].filter(Boolean),
  (old) => old.firmsCode ?? old.bicFacilityCode ?? (old.smdgCode ? `${old.portLocode}:${old.smdgCode}` : null),
);

const { metroAreas, source: METRO_AREA_SOURCES } = compileMetroAreas({ readCsv, fail, uuidV5 });
keepIds(
  "metro-areas",
  metroAreas,
  (m) => [m.code],
  (old) => old.code,
);

/**
 * Stops the build when a record that exists in the previous generated file would get another id (ids are public:
 * they are in API responses and webhooks). Previous records found by one of their codes; a code that now names no
 * record (a retired UN/LOCODE folded into its current one) is reported, not failed.
 */
function keepIds(what, records, codesOf, oldCode) {
  const previous = join(outDir, `${what}.ts`);
  if (!existsSync(previous)) return;
  const text = readFileSync(previous, "utf8");
  // Either form: a JSON text in String.raw`…` (now) or an array literal of JSON-shaped records (before issue 12).
  const raw = /String\.raw`([\s\S]*)`\)/.exec(text)?.[1];
  const start = text.indexOf("= [");
  if (raw === undefined && start < 0) return;
  const old = JSON.parse(raw ?? text.slice(start + 2, text.lastIndexOf("]") + 1));
  const byCode = new Map();
  for (const r of records) for (const c of codesOf(r)) byCode.set(c, r);
  const byId = new Set(records.map((r) => r.id));
  let folded = 0;
  for (const o of old) {
    if (byId.has(o.id)) continue;
    const code = oldCode(o);
    const now = code ? byCode.get(code) : undefined;
    if (now) fail(`src/reference/generated/${what}.ts`, 0, `${code} had id ${o.id}, would now get ${now.id}`);
    folded++;
  }
  if (folded > 0) console.log(`compile-data: ${folded} previous ${what} folded into another record (retired codes)`);
}

// ---- ISO 6346 size-type codes ----------------------------------------------------------------------------------
// Size-type code (ISO 6346 §4: two size characters, then a type letter and digit) → the equipment fields of
// docs/api.md §Container resource, from the t49_equipment_* columns. Blank length/height are kept as null (48 ft and
// 53 ft boxes, half-height and platform boxes have no value in the enum); every non-blank value must be in the enum.
const SIZE_TYPE = /^[0-9A-Z]{2}[A-Z][0-9]$/;
const EQUIPMENT_LENGTHS = new Set([10, 20, 40, 45]);
const EQUIPMENT_HEIGHTS = new Set(["standard", "high_cube"]);
const EQUIPMENT_TYPES = new Set(["dry", "reefer", "open top", "flat rack", "bulk", "tank"]);
// ISO 6346 type group P ("flat", platform and platform-based) has no `platform` in the enum: it reads as flat rack.
const EQUIPMENT_TYPE_ALIASES = new Map([["platform", "flat rack"]]);
const sizeTypeRows = readCsv("iso6346-size-types.csv", [
  "size_type_code",
  "t49_equipment_length",
  "t49_equipment_height",
  "t49_equipment_type",
]);
const seenSizeTypes = new Set();
const sizeTypes = sizeTypeRows.map((r, i) => {
  const where = ["iso6346-size-types.csv", i + 2];
  const code = r.size_type_code;
  if (!SIZE_TYPE.test(code)) fail(...where, `bad size-type code ${JSON.stringify(code)}`);
  if (seenSizeTypes.has(code)) fail(...where, `duplicate size-type code ${code}`);
  seenSizeTypes.add(code);
  let length = null;
  if (r.t49_equipment_length !== "") {
    length = Number(r.t49_equipment_length);
    if (!EQUIPMENT_LENGTHS.has(length))
      fail(...where, `bad equipment length ${JSON.stringify(r.t49_equipment_length)}`);
  }
  const height = r.t49_equipment_height === "" ? null : r.t49_equipment_height;
  if (height !== null && !EQUIPMENT_HEIGHTS.has(height))
    fail(...where, `bad equipment height ${JSON.stringify(height)}`);
  // A parenthesised qualifier ("dry (ventilated)", "reefer (insulated/porthole)") narrows an enum value.
  const base = r.t49_equipment_type.replace(/\s*\(.*\)$/, "");
  const type = base === "" ? null : (EQUIPMENT_TYPE_ALIASES.get(base) ?? base);
  if (type !== null && !EQUIPMENT_TYPES.has(type))
    fail(...where, `bad equipment type ${JSON.stringify(r.t49_equipment_type)}`);
  return { code, length, height, type };
});
sizeTypes.sort((a, b) => a.code.localeCompare(b.code));

// ---- container owner prefixes ------------------------------------------------------------------------------------
// ISO 6346 owner prefix (BIC owner code + category) → the SCACs of the lines known to use it. `conflict` marks a
// prefix claimed by more than one line (e.g. after a merger), so a prediction from it is ambiguous.
const prefixRows = readCsv("container-prefixes.csv", [
  "prefix",
  "owner_code",
  "category",
  "mapped_scac",
  "owner_names",
  "conflict",
]);
const seenPrefixes = new Set();
const containerPrefixes = prefixRows.map((r, i) => {
  const where = ["container-prefixes.csv", i + 2];
  if (!/^[A-Z]{3}[UJZ]$/.test(r.prefix)) fail(...where, `bad owner prefix ${JSON.stringify(r.prefix)}`);
  if (r.owner_code !== r.prefix.slice(0, 3) || r.category !== r.prefix.slice(3)) {
    fail(...where, `owner_code/category ${r.owner_code}/${r.category} do not match prefix ${r.prefix}`);
  }
  if (seenPrefixes.has(r.prefix)) fail(...where, `duplicate owner prefix ${r.prefix}`);
  seenPrefixes.add(r.prefix);
  const mappedScacs = r.mapped_scac
    .split("|")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const scac of mappedScacs) if (!SCAC.test(scac)) fail(...where, `bad mapped SCAC ${JSON.stringify(scac)}`);
  if (r.conflict !== "" && r.conflict !== "yes") fail(...where, `bad conflict flag ${JSON.stringify(r.conflict)}`);
  return { prefix: r.prefix, mappedScacs, conflict: r.conflict === "yes" };
});
containerPrefixes.sort((a, b) => a.prefix.localeCompare(b.prefix));

// ---- owners outside the carrier registry ---------------------------------------------------------------------------
// 42 SCACs of container-prefixes.csv's mapped_scac (SeaRates' sealines capture) are neither a line nor an alternative
// SCAC of carriers.csv. They are kept, not dropped: the prefix still says whose box it is, which is worth showing
// as an infer_number candidate (SCAC and name). They do not become shipping lines: carriers.csv is the registry that
// /shipping_lines, tracking requests and the sources follow (the reference service's coverage list), and these
// owners mix ocean lines (Admiral Container Lines, Sea Hawk Lines) with forwarders (DHL Global Forwarding,
// Kuehne + Nagel, DSV) and equipment operators (Stolt Tank Containers, TransContainer) that no source tracks. So
// they are compiled into CONTAINER_OWNERS, always `trackingSupported: false`, and src/infer/predict.ts weighs them
// as owners that may not run ships (OUTSIDE_REGISTRY_OWNER_FACTOR). Name: carriers-extended.csv's when it lists
// the SCAC, else the owner_names of the SCAC's prefix rows (split on " / "; the most frequent, then the longest).
const registeredCodes = new Set(shippingLines.flatMap((l) => [l.scac, ...l.alternativeScacs]));
const outsideOwners = new Map();
prefixRows.forEach((r, i) => {
  const scacs = r.mapped_scac
    .split("|")
    .map((s) => s.trim())
    .filter(Boolean);
  for (const scac of scacs) {
    if (registeredCodes.has(scac)) continue;
    const owner = outsideOwners.get(scac) ?? { prefixes: [], names: new Map(), line: i + 2 };
    owner.prefixes.push(r.prefix);
    for (const name of r.owner_names.split(" / ").map((n) => n.trim())) {
      if (name) owner.names.set(name, (owner.names.get(name) ?? 0) + 1);
    }
    outsideOwners.set(scac, owner);
  }
});
const containerOwners = [...outsideOwners].map(([scac, owner]) => {
  const ranked = [...owner.names].sort((a, b) => b[1] - a[1] || b[0].length - a[0].length || a[0].localeCompare(b[0]));
  const name = extendedByScac.get(scac)?.name || ranked[0]?.[0];
  if (!name)
    fail("container-prefixes.csv", owner.line, `owner SCAC ${scac} has no name here or in carriers-extended.csv`);
  return { scac, name, prefixes: owner.prefixes.sort(), trackingSupported: false };
});
containerOwners.sort((a, b) => a.scac.localeCompare(b.scac));

// ---- write ------------------------------------------------------------------------------------------------------
mkdirSync(outDir, { recursive: true });
const header = (_what, sources) =>
  `// GENERATED by scripts/compile-data.mjs from ${sources}. Do not edit: change the CSV and run \`npm run data\`.\n`;
const json = (v) => JSON.stringify(v, null, 1);
writeFileSync(
  join(outDir, "shipping-lines.ts"),
  `${header("shipping lines", "data/carriers.csv and carriers-extended.csv")}import type { ShippingLineRecord } from "../types.ts";\n\n/** Every ocean carrier we know, sorted by SCAC. */\nexport const SHIPPING_LINES: readonly ShippingLineRecord[] = ${json(shippingLines)};\n`,
);
// The large tables (about 1 700 ports, 1 300 terminals) are a JSON text parsed at load: V8 parses JSON about three
// times faster than the same object literal (measured here: 51 ms against 174 ms for the terminals), which is Worker
// startup time. One record per line, so a refresh diffs by record. In String.raw every backslash of the JSON stays
// as written; a backtick or `${` cannot end or interpolate the template because they are written as JSON escapes.
const jsonText = (list) =>
  `JSON.parse(String.raw\`\n[\n${list
    .map((r) => JSON.stringify(r).replaceAll("`", "\\u0060").replaceAll("${", "$\\u007b"))
    .join(",\n")}\n]\n\`)`;
const LOCATION_SOURCES =
  "npm sea-ports@" +
  JSON.parse(readFileSync(join(root, "node_modules", "sea-ports", "package.json"), "utf8")).version +
  " (MIT), data/smdg-terminal-code-list.csv (SMDG Terminal Code List), data/terminals.csv, " +
  "data/dcsa/reference-data/sample-unlocationcodes.csv and data/inland-rail.csv; time zones computed from " +
  "coordinates by @photostructure/tz-lookup; state names (ISO 3166-2) from npm iso-3166@" +
  JSON.parse(readFileSync(join(root, "node_modules", "iso-3166", "package.json"), "utf8")).version +
  " (scripts/lib/locations.mjs)";
writeFileSync(
  join(outDir, "ports.ts"),
  `${header("ports", LOCATION_SOURCES)}import type { PortRecord } from "../types.ts";\n\n/** Ports by UN/LOCODE with stable ids, coordinates and IANA time zones, sorted by code. */\nexport const PORTS: readonly PortRecord[] = ${jsonText(portList)};\n`,
);
writeFileSync(
  join(outDir, "terminals.ts"),
  `${header("terminals", LOCATION_SOURCES)}import type { TerminalRecord } from "../types.ts";\n\n/** Container terminals (SMDG, FIRMS and BIC codes) and rail ramps with ports, addresses and IANA time zones, sorted by port and name. */\nexport const TERMINALS: readonly TerminalRecord[] = ${jsonText(terminals)};\n`,
);
writeFileSync(
  join(outDir, "metro-areas.ts"),
  `${header("metro areas", METRO_AREA_SOURCES)}import type { MetroAreaRecord } from "../types.ts";\n\n/** Metro areas (inland cities that group rail ramps and inland ports) by UN/LOCODE, with stable ids, coordinates and IANA time zones, sorted by code. */\nexport const METRO_AREAS: readonly MetroAreaRecord[] = ${json(metroAreas)};\n`,
);
writeFileSync(
  join(outDir, "size-types.ts"),
  `${header("size types", "data/iso6346-size-types.csv")}import type { SizeTypeRecord } from "../types.ts";\n\n/** ISO 6346 size-type codes with their equipment length, height and type, sorted by code. */\nexport const SIZE_TYPES: readonly SizeTypeRecord[] = ${json(sizeTypes)};\n`,
);
writeFileSync(
  join(outDir, "container-prefixes.ts"),
  `${header("container prefixes", "data/container-prefixes.csv and carriers-extended.csv")}import type { ContainerOwnerRecord, ContainerPrefixRecord } from "../types.ts";\n\n/** ISO 6346 owner prefixes with the SCACs of the lines using them, sorted by prefix. */\nexport const CONTAINER_PREFIXES: readonly ContainerPrefixRecord[] = ${json(containerPrefixes)};\n\n/** Owners of prefixes above whose SCAC carriers.csv does not list (never tracked: prediction candidates only), sorted by SCAC. */\nexport const CONTAINER_OWNERS: readonly ContainerOwnerRecord[] = ${json(containerOwners)};\n`,
);
for (const note of locations.notes) console.log(`compile-data: ${note}`);
if (process.argv.includes("--matches")) for (const m of locations.matches) console.log(`  merged: ${m}`);
console.log(
  `compile-data: ${shippingLines.length} shipping lines, ${portList.length} ports, ${terminals.length} terminals, ${metroAreas.length} metro areas, ${sizeTypes.length} size types, ${containerPrefixes.length} container prefixes, ${containerOwners.length} owners outside carriers.csv → src/reference/generated/`,
);
