// Ports and terminals for scripts/compile-data.mjs (issue 12): every container port and terminal, with coordinates
// and IANA time zones, merged from open sources, each named in the generated files.
//
//   ports      npm `sea-ports` (MIT; UN/LOCODE, name, city, coordinates, alternative codes such as CNSGH → CNSHA)
//              + data/terminals.csv (the reference service's own port names) + DCSA's UN/LOCODE sample
//              + data/inland-rail.csv (US inland rail points) + the ports of SMDG terminals
//   terminals  data/smdg-terminal-code-list.csv (SMDG Terminal Code List) merged with
//              data/terminals.csv (FIRMS/BIC codes, nicknames) by port and name: one record per facility
//              carrying both codes; + the rail ramps of data/inland-rail.csv; `state` is the ISO 3166-2 name of
//              `state_abbr` (npm `iso-3166`)
//   zones      computed from coordinates at build time by `@photostructure/tz-lookup` (never typed by hand) and
//              checked against the country's zones (CLDR, Intl.Locale#timeZones); a source's own zone only where the
//              computed one lies in another country or there are no coordinates (see "zones and coordinates")
//
// Ids never change: a port is v5(`port:<UN/LOCODE>`), a terminals.csv terminal keeps its v5(`terminal:code:…`) or
// v5(`terminal:name:…`) id when SMDG data is merged into it, an SMDG-only terminal is v5(`terminal:smdg:<LOCODE>:<code>`).
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import tzLookup from "@photostructure/tz-lookup";
import { iso31662 } from "iso-3166";

const require = createRequire(import.meta.url);
const LOCODE = /^[A-Z]{2}[A-Z2-9]{3}$/;
const FIRMS = /^[A-Z0-9]{4}$/;
const SMDG_CODE = /^[A-Z0-9]{1,8}$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;
const countryNames = new Intl.DisplayNames(["en"], { type: "region" });

/** English name of an ISO 3166-1 alpha-2 country (the reference's terminal `country` is a name: "United States"). */
function countryName(code) {
  try {
    const name = countryNames.of(code);
    return name && name !== code ? name : null;
  } catch {
    return null;
  }
}

const subdivisionNames = new Map(iso31662.map((s) => [s.code, s.name]));
/**
 * English name of a subdivision from its ISO 3166-2 code without the country (`US`, `FL` → `Florida`): the
 * reference's terminal `state` beside `state_abbr` ("Virginia", "VA"). Null when no abbreviation or not an ISO code.
 */
export function subdivisionName(countryCode, abbr) {
  return abbr ? (subdivisionNames.get(`${countryCode}-${abbr}`) ?? null) : null;
}

/** IANA zone at a point, or null for open sea (`Etc/GMT±n`, which is no place's civil time). */
export function zoneAt(latitude, longitude) {
  const zone = tzLookup(Number(latitude), Number(longitude));
  return zone.startsWith("Etc/") ? null : zone;
}

const offsetFormats = new Map();
/** UTC offsets of `zone` in mid-January and mid-July 2026 (`GMT+08:00` style); throws a RangeError for no zone. */
function offsets(zone) {
  let format = offsetFormats.get(zone);
  if (!format) {
    format = new Intl.DateTimeFormat("en-US", { timeZone: zone, timeZoneName: "longOffset" });
    offsetFormats.set(zone, format);
  }
  return [Date.UTC(2026, 0, 15), Date.UTC(2026, 6, 15)]
    .map((t) => format.formatToParts(t).find((p) => p.type === "timeZoneName")?.value)
    .join(" ");
}

/** Whether the runtime's IANA database knows `zone` (sea-ports has a few that are none, e.g. `America/Argentina`). */
function isZone(zone) {
  try {
    offsets(zone);
    return true;
  } catch {
    return false;
  }
}

const canonicalZone = (zone) => new Intl.DateTimeFormat("en-US", { timeZone: zone }).resolvedOptions().timeZone;
const countryZoneSets = new Map();
/** CLDR's zones of an ISO 3166-1 country, in ICU's canonical names; empty when CLDR has none for the code. */
function countryZones(countryCode) {
  let zones = countryZoneSets.get(countryCode);
  if (!zones) {
    let list = [];
    try {
      list = new Intl.Locale(`und-${countryCode}`).timeZones ?? [];
    } catch {
      list = [];
    }
    zones = new Set(list.map(canonicalZone));
    countryZoneSets.set(countryCode, zones);
  }
  return zones;
}

/**
 * The zone of a place in `countryCode`: the first of `computed` (from coordinates), then of `given` (sources), that
 * is one of the country's zones; else the country's only zone; else, for a country CLDR has no zones for, the first
 * candidate unchecked. `how` says which, for the build report.
 */
export function zoneFor(countryCode, computed, given) {
  const zones = countryZones(countryCode);
  const candidates = [
    ...computed.map((zone) => ({ zone, how: "computed" })),
    ...given.filter(Boolean).map((zone) => ({ zone, how: "source" })),
  ];
  if (zones.size === 0) return candidates[0] ? { ...candidates[0], how: "unchecked" } : { zone: null, how: "none" };
  const fitting = candidates.find((c) => zones.has(canonicalZone(c.zone)));
  if (fitting) return fitting;
  if (zones.size === 1) {
    // The CLDR name may be a legacy one (Asia/Calcutta); a candidate naming the same zone keeps the current name.
    const [only] = zones;
    return { zone: only, how: "country" };
  }
  return candidates[0] ?? { zone: null, how: "none" };
}

/** A coordinate as the reference serialises it: a decimal string, at most 6 decimals (about 0.1 m). */
export function decimal(value) {
  return String(Math.round(Number(value) * 1e6) / 1e6);
}

function validLatLong(lat, long) {
  return Number.isFinite(lat) && Number.isFinite(long) && Math.abs(lat) <= 90 && Math.abs(long) <= 180;
}

// Words that say what a facility is rather than which one it is.
const GENERIC_WORDS = new Set(
  "THE OF AND DE DEL LA LE TERMINAL TERMINALS CONTAINER CONTAINERS PORT PORTS INTERNATIONAL SERVICE SERVICES LLC INC LTD CO CORP COMPANY MARINE".split(
    " ",
  ),
);
const words = (s) =>
  new Set(
    (s ?? "")
      .toUpperCase()
      .replace(/[^A-Z0-9 ]+/g, " ")
      .split(/\s+/)
      .filter((w) => w && !GENERIC_WORDS.has(w)),
  );

/** The acronym an SMDG name ends with in parentheses, e.g. `FENIX MARINE CONTAINER TERMINAL (FMS)` → `FMS`. */
function trailingAcronym(name) {
  return /\(([A-Z0-9]{2,8})\)\s*$/.exec(name)?.[1] ?? null;
}

/** Initials of a name's words, e.g. `Oakland International Container Terminal` → `OICT`. */
function initials(name) {
  return (name.toUpperCase().match(/[A-Z0-9]+/g) ?? [])
    .filter((w) => !["OF", "THE", "AND", "DE", "LA"].includes(w))
    .map((w) => w[0])
    .join("");
}

/**
 * How sure we are that a terminals.csv row and an SMDG row are one facility at the same port, 0..2: the BIC code is
 * the UN/LOCODE + SMDG code (2); the same code or acronym (`APMT`, `(FMS)`, initials `OICT`: 1 to 1.25); else the weighted
 * share of the csv row's name words (generic words left out, the port's own name counting a quarter) found in the
 * SMDG row; its nickname's words alone count for less (0.8), as a nickname is often an operator shared by several.
 */
function sameFacilityScore(csv, smdg, portWords) {
  if (csv.firms_code && [csv.port_locode, smdg.ownLocode].some((l) => csv.firms_code === `${l}${smdg.code}`)) return 2;
  const nick = csv.nickname.toUpperCase();
  const acronyms = [nick, trailingAcronym(nick), initials(csv.name)].filter((n) => n && n.length >= 2);
  const b = words(`${smdg.code} ${smdg.name} ${smdg.company}`);
  const weight = (w) => (portWords.has(w) ? 0.25 : 1);
  const share = (a) => {
    let total = 0;
    let shared = 0;
    for (const w of a) {
      total += weight(w);
      if (b.has(w)) shared += weight(w);
    }
    return total === 0 ? 0 : shared / total;
  };
  const byWords = share(words(`${csv.name} ${csv.nickname}`));
  // Two csv rows may share an acronym (LBCT Pier E and Pier F): the words decide between them.
  if (acronyms.some((n) => n === smdg.code || n === smdg.acronym)) return 1 + byWords / 4;
  // The whole name's share breaks a tie between two terminals of one operator (GCT New York, GCT Bayonne).
  return Math.max(byWords, 0.8 * share(words(csv.nickname))) + byWords / 100;
}

/** US/Canadian address `street, city, ST 12345, USA` → parts; other countries' lines are not split. */
function splitAddress(address) {
  const m =
    /^(.*),\s*([^,]+),\s*([A-Z]{2})\s+(\d{5}(?:-\d{4})?|[A-Z]\d[A-Z] ?\d[A-Z]\d),\s*(USA|United States|Canada)$/.exec(
      address,
    );
  if (!m) return null;
  return { street: m[1], city: m[2], stateAbbr: m[3], zip: m[4] };
}

/**
 * Compiles the ports and terminals.
 * @param {object} io `readCsv(relPath, columns)` (relPath under data/), `readProjectCsv(path, columns)`,
 *   `fail(file, line, reason)`, `uuidV5(name)`, `today` (YYYY-MM-DD, for the count of expired terminals only).
 * @returns {{ ports: object[], terminals: object[], notes: string[] }} sorted records and a build report.
 */
export function compileLocations(io) {
  const { readCsv, readProjectCsv, fail, uuidV5, today } = io;
  const notes = [];

  // ---- sea-ports: the canonical UN/LOCODE of every code it knows --------------------------------------------
  const seaPortsFile = require.resolve("sea-ports/lib/ports.json");
  const seaPorts = JSON.parse(readFileSync(seaPortsFile, "utf8"));
  const canonicalOf = new Map();
  const ports = new Map();
  const sourceZone = new Map();
  for (const [key, p] of Object.entries(seaPorts)) {
    const unlocs = (p.unlocs ?? []).map((u) => String(u).toUpperCase());
    const code = unlocs[0];
    if (!code || !unlocs.every((u) => LOCODE.test(u))) fail("sea-ports/lib/ports.json", 0, `bad UN/LOCODE in ${key}`);
    for (const u of unlocs) {
      const known = canonicalOf.get(u);
      if (known && known !== code) fail("sea-ports/lib/ports.json", 0, `${u} names both ${known} and ${code}`);
      canonicalOf.set(u, code);
    }
    if (ports.has(code)) continue; // the same port under its alternative code
    const [long, lat] = p.coordinates ?? [];
    const hasPoint = validLatLong(lat, long);
    ports.set(code, {
      id: uuidV5(`port:${code}`),
      code,
      alternativeCodes: unlocs.slice(1).sort(),
      name: p.name || code,
      city: p.city || null,
      stateAbbr: null,
      countryCode: code.slice(0, 2),
      latitude: hasPoint ? decimal(lat) : null,
      longitude: hasPoint ? decimal(long) : null,
      timeZone: null,
    });
    if (p.timezone) sourceZone.set(code, p.timezone);
  }
  const canonical = (code) => canonicalOf.get(code) ?? code;

  // ---- terminals.csv: the reference service's own port names, cities and states ------------------------------
  const csvRows = readCsv("terminals.csv", [
    "name",
    "nickname",
    "firms_code",
    "port_name",
    "port_locode",
    "city",
    "state",
    "country_code",
    "timezone",
  ]);
  csvRows.forEach((r, i) => {
    if (!LOCODE.test(r.port_locode)) fail("terminals.csv", i + 2, `bad UN/LOCODE ${JSON.stringify(r.port_locode)}`);
    const code = canonical(r.port_locode);
    const known = ports.get(code);
    const port = known ?? {
      id: uuidV5(`port:${code}`),
      code,
      alternativeCodes: [],
      name: code,
      city: null,
      stateAbbr: null,
      countryCode: r.country_code || code.slice(0, 2),
      latitude: null,
      longitude: null,
      timeZone: null,
    };
    if (!port.fromCsv) {
      port.fromCsv = true;
      port.name = r.port_name || port.name;
      port.city = r.city || port.city;
      port.stateAbbr = r.country_code === "US" || r.country_code === "CA" ? r.state || null : null;
    }
    if (r.timezone && !sourceZone.has(code)) sourceZone.set(code, r.timezone);
    ports.set(code, port);
  });

  // ---- DCSA's UN/LOCODE sample: places no other source has ---------------------------------------------------
  const dcsaFile = "dcsa/reference-data/sample-unlocationcodes.csv";
  const dcsaNames = new Map();
  readCsv(dcsaFile, ["UN Location Code", "UN Location Name", "ISO 3166-1"]).forEach((r, i) => {
    const code = r["UN Location Code"];
    if (!LOCODE.test(code)) fail(dcsaFile, i + 2, `bad UN/LOCODE ${JSON.stringify(code)}`);
    dcsaNames.set(code, r["UN Location Name"]);
    if (ports.has(canonical(code))) return;
    ports.set(code, {
      id: uuidV5(`port:${code}`),
      code,
      alternativeCodes: [],
      name: r["UN Location Name"],
      city: r["UN Location Name"],
      stateAbbr: null,
      countryCode: r["ISO 3166-1"] || code.slice(0, 2),
      latitude: null,
      longitude: null,
      timeZone: null,
    });
  });

  // ---- inland rail points and ramps (project data) -----------------------------------------------------------
  const inlandFile = "data/inland-rail.csv";
  const inlandRows = readProjectCsv(inlandFile, ["kind", "code", "name", "locode", "time_zone"]);
  const ramps = [];
  inlandRows.forEach((r, i) => {
    const line = i + 6; // four comment lines and the header
    if (!LOCODE.test(r.locode ?? "")) fail(inlandFile, line, `bad UN/LOCODE ${JSON.stringify(r.locode)}`);
    if (!/^[A-Za-z_]+\/[A-Za-z_]+$/.test(r.time_zone ?? ""))
      fail(inlandFile, line, `bad time zone ${JSON.stringify(r.time_zone)}`);
    if (r.kind === "point") {
      if (!ports.has(r.locode)) {
        ports.set(r.locode, {
          id: uuidV5(`port:${r.locode}`),
          code: r.locode,
          alternativeCodes: [],
          name: r.name,
          city: r.city || null,
          stateAbbr: r.state_abbr || null,
          countryCode: r.country_code,
          latitude: null,
          longitude: null,
          timeZone: null,
        });
      }
      const port = ports.get(r.locode);
      port.city ??= r.city || null;
      port.stateAbbr ??= r.state_abbr || null;
      if (!sourceZone.has(r.locode)) sourceZone.set(r.locode, r.time_zone);
    } else if (r.kind === "ramp") {
      if (!/^[A-Z]{2}[A-Z2-9]{3}[A-Z]{2,4}$/.test(r.code ?? "")) fail(inlandFile, line, `bad ramp code ${r.code}`);
      ramps.push({ ...r, line });
    } else {
      fail(inlandFile, line, `kind must be point or ramp, got ${JSON.stringify(r.kind)}`);
    }
  });

  // ---- SMDG terminal code list ---------------------------------------------------------------------------------
  const smdgFile = "smdg-terminal-code-list.csv";
  const smdgRows = readCsv(smdgFile, [
    "UNLOCODE",
    "Alternative UNLOCODE",
    "Terminal Code",
    "Terminal Facility Name",
    "Terminal Company Name",
    "Latitude",
    "Longitude",
    "Valid to",
    "Terminal Address",
  ]);
  const seenSmdg = new Set();
  const smdg = smdgRows.map((r, i) => {
    const line = i + 2;
    const own = r.UNLOCODE;
    const alt = r["Alternative UNLOCODE"];
    if (!LOCODE.test(own)) fail(smdgFile, line, `bad UN/LOCODE ${JSON.stringify(own)}`);
    if (alt && !LOCODE.test(alt)) fail(smdgFile, line, `bad alternative UN/LOCODE ${JSON.stringify(alt)}`);
    const code = r["Terminal Code"];
    if (!SMDG_CODE.test(code)) fail(smdgFile, line, `bad terminal code ${JSON.stringify(code)}`);
    const lat = Number(r.Latitude);
    const long = Number(r.Longitude);
    if (!validLatLong(lat, long)) fail(smdgFile, line, `bad coordinates ${r.Latitude}, ${r.Longitude}`);
    const validTo = r["Valid to"] || null;
    if (validTo && !ISO_DATE.test(validTo)) fail(smdgFile, line, `bad Valid to ${JSON.stringify(validTo)}`);
    if (!r["Terminal Facility Name"]) fail(smdgFile, line, "blank Terminal Facility Name");
    // A terminal belongs to the port sea-ports knows under its code or its alternative code (SMDG keeps some
    // retired codes such as CNNBO, which sea-ports maps to CNNGB).
    const port = canonicalOf.get(own) ?? (alt ? canonicalOf.get(alt) : undefined) ?? own;
    const key = `${port}:${code}`;
    if (seenSmdg.has(key)) fail(smdgFile, line, `duplicate terminal ${code} at ${port}`);
    seenSmdg.add(key);
    return {
      line,
      ownLocode: own,
      port,
      code,
      name: r["Terminal Facility Name"],
      company: r["Terminal Company Name"],
      acronym: trailingAcronym(r["Terminal Facility Name"]),
      latitude: decimal(lat),
      longitude: decimal(long),
      zone: zoneAt(lat, long),
      validTo,
      address: r["Terminal Address"] || null,
    };
  });
  // Ports known only through their SMDG terminals: named by DCSA's sample when it has them, else by code.
  let namedByCode = 0;
  for (const t of smdg) {
    if (ports.has(t.port)) continue;
    const name = dcsaNames.get(t.port) ?? dcsaNames.get(t.ownLocode);
    if (!name) namedByCode++;
    ports.set(t.port, {
      id: uuidV5(`port:${t.port}`),
      code: t.port,
      alternativeCodes: [],
      name: name ?? t.port,
      city: name ?? null,
      stateAbbr: null,
      countryCode: t.port.slice(0, 2),
      latitude: null,
      longitude: null,
      timeZone: null,
    });
  }
  if (namedByCode > 0)
    notes.push(`${namedByCode} ports known only by SMDG terminals and named by their UN/LOCODE (no source names them)`);

  // ---- merge terminals.csv into SMDG by port and name ------------------------------------------------------------
  const smdgByPort = new Map();
  for (const t of smdg) smdgByPort.set(t.port, [...(smdgByPort.get(t.port) ?? []), t]);
  const seenCsvKeys = new Set();
  const seenFirms = new Map();
  const csv = csvRows.map((r, i) => {
    const line = i + 2;
    // The firms_code column holds the terminal's code in its own country's scheme: a 4-character CBP FIRMS code
    // (US), a BIC facility code (UN/LOCODE + facility suffix, e.g. AEJEADPWJ2), or a local numeric code (MX).
    const code = r.firms_code;
    if (code && !/^[A-Z0-9]{1,12}$/.test(code))
      fail("terminals.csv", line, `bad facility code ${JSON.stringify(code)}`);
    if (!r.name) fail("terminals.csv", line, "blank name");
    const isFirms = FIRMS.test(code ?? "") && r.country_code === "US";
    const isBic = /^[A-Z]{2}[A-Z2-9]{3}[A-Z0-9]+$/.test(code ?? "") && !isFirms;
    const key = code ? `code:${r.port_locode}:${code}` : `name:${r.port_locode}:${r.name}`;
    if (seenCsvKeys.has(key)) fail("terminals.csv", line, `duplicate terminal ${key}`);
    seenCsvKeys.add(key);
    if (isFirms) {
      if (seenFirms.has(code)) fail("terminals.csv", line, `FIRMS code ${code} also on line ${seenFirms.get(code)}`);
      seenFirms.set(code, line);
    }
    return { ...r, line, key, port: canonical(r.port_locode), isFirms, isBic, match: null };
  });
  const pairs = [];
  for (const c of csv) {
    const port = ports.get(c.port);
    const portWords = words(`${port?.name ?? ""} ${port?.city ?? ""} ${c.port_name} ${c.city}`);
    for (const s of smdgByPort.get(c.port) ?? []) {
      const score = sameFacilityScore(c, s, portWords);
      if (score >= 0.5) pairs.push({ c, s, score });
    }
  }
  pairs.sort((a, b) => b.score - a.score || a.c.line - b.c.line || a.s.line - b.s.line);
  const matchedSmdg = new Set();
  for (const p of pairs) {
    if (p.c.match || matchedSmdg.has(p.s)) continue;
    p.c.match = p.s;
    matchedSmdg.add(p.s);
  }

  // ---- terminal records -----------------------------------------------------------------------------------------
  const terminals = [];
  const recordOf = (s, c) => {
    const port = ports.get(s?.port ?? c.port);
    const parts = s?.address ? splitAddress(s.address) : null;
    const zone = s?.zone ?? null;
    // A terminal with no city of its own is placed in its port's city, and so in its port's state.
    const ownCity = c?.city || parts?.city || null;
    const stateAbbr = c?.state || parts?.stateAbbr || (ownCity ? null : port.stateAbbr) || null;
    const countryCode = c?.country_code || port.countryCode;
    return {
      id: uuidV5(c ? `terminal:${c.key}` : `terminal:smdg:${s.ownLocode}:${s.code}`),
      name: c?.name ?? s.name,
      nickname: c?.nickname || s?.acronym || null,
      firmsCode: c?.isFirms ? c.firms_code : null,
      smdgCode: s?.code ?? null,
      bicFacilityCode: c?.isBic ? c.firms_code : null,
      portLocode: port.code,
      portId: port.id,
      street: parts?.street ?? s?.address ?? null,
      city: ownCity || port.city,
      state: subdivisionName(countryCode, stateAbbr),
      stateAbbr,
      zip: parts?.zip ?? null,
      country: countryName(countryCode),
      countryCode,
      latitude: s?.latitude ?? null,
      longitude: s?.longitude ?? null,
      // Filled below from coordinates, else from the port.
      timeZone: zone,
      csvZone: c?.timezone || null,
      validTo: s?.validTo ?? null,
      facilityType: "ocean_terminal",
    };
  };
  for (const s of smdg) if (!matchedSmdg.has(s)) terminals.push(recordOf(s, null));
  for (const c of csv) terminals.push(recordOf(c.match, c));
  for (const r of ramps) {
    const port = ports.get(r.locode);
    if (!port) fail(inlandFile, r.line, `ramp ${r.code} at ${r.locode}, which no point row declares`);
    const key = `code:${r.locode}:${r.code}`;
    if (seenCsvKeys.has(key)) fail(inlandFile, r.line, `duplicate terminal ${key}`);
    seenCsvKeys.add(key);
    terminals.push({
      id: uuidV5(`terminal:${key}`),
      name: r.name,
      nickname: r.rail_scac || null,
      // No open list of rail ramps' FIRMS codes (or SPLCs) is among our sources: see data/inland-rail.csv.
      firmsCode: null,
      smdgCode: null,
      bicFacilityCode: r.code,
      portLocode: r.locode,
      portId: port.id,
      street: null,
      city: r.city || null,
      state: subdivisionName(r.country_code, r.state_abbr),
      stateAbbr: r.state_abbr || null,
      zip: null,
      country: countryName(r.country_code),
      countryCode: r.country_code || null,
      latitude: null,
      longitude: null,
      timeZone: null,
      csvZone: r.time_zone,
      validTo: null,
      facilityType: "rail_terminal",
    });
  }

  // ---- zones and coordinates of ports ----------------------------------------------------------------------------
  // Coordinates decide the zone, checked against the country: the lookup's borders are coarse at the coast, so a
  // point on the water can fall in the neighbour's zone (Tanjung Pelepas, MY, in Asia/Jakarta), and the sources'
  // own zones are often wrong (sea-ports: Oakland in America/Chicago, Bangkok in Asia/Tehran). The first candidate
  // that is a zone of the place's country (CLDR, through Intl.Locale#timeZones) wins: the terminals' computed zones
  // (SMDG coordinates are precise), the port's computed zone, the source's zone; else the country's only zone.
  const terminalsByPort = new Map();
  for (const t of terminals) terminalsByPort.set(t.portLocode, [...(terminalsByPort.get(t.portLocode) ?? []), t]);
  const chosen = { computed: 0, source: 0, country: 0, unchecked: 0, none: 0 };
  for (const port of ports.values()) {
    const located = (terminalsByPort.get(port.code) ?? []).filter((t) => t.latitude !== null);
    if (port.latitude === null && located.length > 0) {
      const mean = (k) => located.reduce((sum, t) => sum + Number(t[k]), 0) / located.length;
      port.latitude = decimal(mean("latitude"));
      port.longitude = decimal(mean("longitude"));
    }
    const computed = [
      ...located.map((t) => t.timeZone),
      port.latitude !== null ? zoneAt(port.latitude, port.longitude) : null,
    ].filter(Boolean);
    const named = sourceZone.get(port.code) ?? null;
    const given = named && isZone(named) ? named : null;
    if (named && !given) notes.push(`${port.code}: source zone ${named} is not an IANA zone; ignored`);
    const pick = zoneFor(port.countryCode, computed, given ? [given] : []);
    chosen[pick.how]++;
    port.timeZone = pick.zone;
  }
  notes.push(
    `port zones: ${chosen.computed} from coordinates, ${chosen.source} from the source (computed one in another country), ${chosen.country} the country's only zone, ${chosen.unchecked} unchecked (no CLDR zones for the country), ${chosen.none} none`,
  );
  const terminalChosen = { computed: 0, source: 0, country: 0, unchecked: 0, none: 0 };
  for (const t of terminals) {
    const portZone = ports.get(t.portLocode)?.timeZone ?? null;
    const pick = zoneFor(t.countryCode ?? t.portLocode.slice(0, 2), t.timeZone ? [t.timeZone] : [], [
      portZone,
      t.csvZone,
    ]);
    terminalChosen[pick.how]++;
    t.timeZone = pick.zone;
    delete t.csvZone;
    if (!t.timeZone) fail("terminals", 0, `terminal ${t.name} at ${t.portLocode} has no time zone`);
  }
  notes.push(
    `terminal zones: ${terminalChosen.computed} from coordinates, ${terminalChosen.source} the port's or terminals.csv's, ${terminalChosen.country} the country's only zone, ${terminalChosen.unchecked} unchecked`,
  );

  const unmatchedCsv = csv.filter((c) => !c.match && smdgByPort.has(c.port));
  notes.push(
    `${csv.length - csv.filter((c) => !c.match).length} terminals.csv rows merged with their SMDG entry; ${unmatchedCsv.length} at SMDG ports unmatched (${unmatchedCsv.map((c) => `${c.port} ${c.name}`).join("; ")})`,
  );
  const expired = terminals.filter((t) => t.validTo !== null && t.validTo < today).length;
  notes.push(`${expired} expired SMDG terminals (kept, resolvable, not listed)`);

  for (const p of ports.values()) delete p.fromCsv;
  return {
    ports: [...ports.values()].sort((a, b) => a.code.localeCompare(b.code)),
    terminals: terminals.sort(
      (a, b) => a.portLocode.localeCompare(b.portLocode) || a.name.localeCompare(b.name) || a.id.localeCompare(b.id),
    ),
    matches: csv
      .filter((c) => c.match)
      .map((c) => `${c.port} ${c.name} (${c.firms_code}) = ${c.match.code} ${c.match.name}`),
    notes,
  };
}
