// What `npm start` says about where each supported SCAC's tracking comes from: lines configured in DCSA_SOURCES are
// served by their carrier's DCSA Track & Trace 2.2 API, the other supported lines by the journey simulator (when
// it is on); and which terminals are live (TERMINAL_SOURCES, issue 14). Reads DCSA_SOURCES and TERMINAL_SOURCES where
// wrangler dev does (a `--var NAME:<json>` argument, else .dev.vars), prints SCACs, providers, facility codes and auth
// types only, never a URL, header, key or secret.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { lookupFacilityKey } from "../../src/reference/locations.ts";
import { allShippingLines, SANDBOX_SCAC } from "../../src/reference/shipping-lines.ts";

/**
 * Value of `--var NAME:value` (or `--var=NAME:value`) among wrangler dev arguments, if given.
 * @param {string[]} devArgs
 * @param {string} name
 * @returns {string | undefined}
 */
export function devVar(devArgs, name) {
  for (let i = 0; i < devArgs.length; i++) {
    const arg = devArgs[i] ?? "";
    const value = arg === "--var" ? devArgs[i + 1] : arg.startsWith("--var=") ? arg.slice(6) : undefined;
    if (value?.startsWith(`${name}:`)) return value.slice(name.length + 1);
  }
  return undefined;
}

/**
 * `NAME` from a .dev.vars file (dotenv syntax: `NAME=value`, the value optionally in single or double quotes).
 * @param {string} root
 * @param {string} name
 * @returns {string | undefined}
 */
export function devVarsFileValue(root, name) {
  const file = join(root, ".dev.vars");
  if (!existsSync(file)) return undefined;
  for (const line of readFileSync(file, "utf8").split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.*)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const raw = (match[2] ?? "").trim();
    const quoted = /^(['"])([\s\S]*)\1$/.exec(raw);
    return quoted ? (quoted[2] ?? "") : raw;
  }
  return undefined;
}

/**
 * The DCSA-served SCACs of a DCSA_SOURCES value with their auth type (`headers`, `api_key`,
 * `oauth2_client_credentials`), by the same outline rules as the Worker's `parseDcsaSources` (2–4 letter SCAC, a
 * baseUrl): the Worker itself logs and skips an entry it finds invalid. Unparsable JSON gives `{ error }`.
 * @param {string | undefined} json
 * @returns {{ served: { scac: string, auth: string, subscriptions: boolean }[], error?: string }}
 */
export function dcsaServed(json) {
  if (json === undefined || json.trim() === "") return { served: [] };
  let parsed;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { served: [], error: "DCSA_SOURCES is not valid JSON (the Worker configures no DCSA source)" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { served: [], error: "DCSA_SOURCES must be a JSON object keyed by SCAC" };
  }
  const served = [];
  for (const [key, entry] of Object.entries(parsed)) {
    const scac = key.trim().toUpperCase();
    if (!/^[A-Z]{2,4}$/.test(scac) || typeof entry?.baseUrl !== "string") continue;
    const auth = typeof entry.auth?.type === "string" ? entry.auth.type : entry.headers ? "headers" : "none";
    served.push({ scac, auth, subscriptions: entry.subscriptions === true });
  }
  return { served: served.sort((a, b) => a.scac.localeCompare(b.scac)) };
}

/** Keys of TERMINAL_SOURCES (src/tracking/sources/terminal-operators/index.ts TERMINAL_PROVIDERS) and their names. */
const TERMINAL_PROVIDER_NAMES = { apmt: "APMT", lbct: "LBCT", port_of_virginia: "Port of Virginia" };

/**
 * The providers of a TERMINAL_SOURCES value with their auth type and our facility codes, by the same outline rules as
 * the Worker's `parseTerminalSources` (a known provider, a baseUrl, a facilities object): the Worker itself logs and
 * skips an entry it finds invalid. Facility keys resolve as the Worker resolves them (src/reference/locations.ts
 * `lookupFacilityKey`): `facilities` holds our code of each known terminal, as the Worker keeps it (`W185`, or
 * `NLRTM:NLMVII` for a terminal outside the US), with the provider's facility code (`W185→USLAX`); `leftOut` the keys
 * the Worker leaves out, each with why (`ZZ99 (unknown)`, `APMT (ambiguous: DKAAR:APMT, INPAV:APMT, …)`). Unparsable
 * JSON gives `{ error }`. Prints no URL, key or secret.
 * @param {string | undefined} json
 * @returns {{ served: { provider: string, name: string, auth: string, facilities: string[], leftOut: string[], subscriptions: boolean }[], error?: string }}
 */
export function terminalsServed(json) {
  if (json === undefined || json.trim() === "") return { served: [] };
  let parsed;
  try {
    parsed = JSON.parse(json);
  } catch {
    return { served: [], error: "TERMINAL_SOURCES is not valid JSON (the Worker configures no terminal source)" };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { served: [], error: "TERMINAL_SOURCES must be a JSON object keyed by provider" };
  }
  const served = [];
  for (const [provider, name] of Object.entries(TERMINAL_PROVIDER_NAMES)) {
    const entry = parsed[provider];
    if (typeof entry?.baseUrl !== "string" || typeof entry.facilities !== "object" || entry.facilities === null)
      continue;
    const auth = typeof entry.auth?.type === "string" ? entry.auth.type : "none";
    /** Our code → the provider's; a terminal named twice keeps the later entry, as the Worker does. */
    const ours = new Map();
    const leftOut = [];
    for (const [key, providerFacility] of Object.entries(entry.facilities)) {
      const found = lookupFacilityKey(key);
      const shownKey = key.trim().toUpperCase().slice(0, 20);
      if (found.kind === "found") {
        const theirs = typeof providerFacility === "string" ? providerFacility.trim().slice(0, 32) : "?";
        ours.set(found.facilityCode, theirs);
      } else if (found.kind === "unknown") leftOut.push(`${shownKey} (unknown)`);
      else {
        const more = found.candidates.length > 4 ? ", …" : "";
        leftOut.push(`${shownKey} (ambiguous: ${found.candidates.slice(0, 4).join(", ")}${more})`);
      }
    }
    const facilities = [...ours].map(([code, theirs]) => `${code}→${theirs}`);
    served.push({ provider, name, auth, facilities, leftOut, subscriptions: entry.subscriptions === true });
  }
  return { served };
}

/**
 * The banner's lines about sources: which SCACs DCSA serves, which the simulator plays (SCACs the reference data
 * marks as tracking-supported, minus the DCSA ones and the sandbox's TEST), and where DCSA_SOURCES was read.
 * @param {{ root: string, devArgs: string[] }} options
 * @returns {string}
 */
export function sourcesBanner({ root, devArgs }) {
  const fromArgs = devVar(devArgs, "DCSA_SOURCES");
  const json = fromArgs ?? devVarsFileValue(root, "DCSA_SOURCES");
  const origin = fromArgs !== undefined ? "--var DCSA_SOURCES" : ".dev.vars";
  const { served, error } = dcsaServed(json);
  const dcsa = new Set(served.map((s) => s.scac));
  const simulatorOn = (devVar(devArgs, "SIMULATOR_ENABLED") ?? "true") === "true";
  const simulated = allShippingLines()
    .filter((l) => l.trackingSupported && l.scac !== SANDBOX_SCAC && !dcsa.has(l.scac))
    .map((l) => l.scac);
  const lines = [];
  if (error) lines.push(`! ${error} (${origin})`);
  lines.push(
    served.length > 0
      ? `DCSA     ${served.map((s) => `${s.scac} (${s.auth}${s.subscriptions ? ", subscriptions" : ""})`).join(", ")}   from ${origin}`
      : "DCSA     none (set DCSA_SOURCES in .dev.vars to track a real carrier; docs/carriers.md §Connecting a carrier)",
  );
  if (served.some((s) => s.subscriptions)) {
    // Push subscriptions need both (src/callbacks/lifecycle.ts); without them the Worker polls only.
    const missing = ["PUBLIC_BASE_URL", "UPSTREAM_SUBSCRIPTION_KEY"].filter(
      (name) => !(devVar(devArgs, name) ?? devVarsFileValue(root, name))?.trim(),
    );
    if (missing.length > 0) lines.push(`! "subscriptions": true needs ${missing.join(" and ")}: polling only`);
  }
  lines.push(
    simulatorOn
      ? `Simulated ${simulated.length} lines, one simulated day per real minute: ${simulated.join(", ")}`
      : "Simulated none (SIMULATOR_ENABLED is false)",
  );
  const terminalsFromArgs = devVar(devArgs, "TERMINAL_SOURCES");
  const terminals = terminalsServed(terminalsFromArgs ?? devVarsFileValue(root, "TERMINAL_SOURCES"));
  const terminalsOrigin = terminalsFromArgs !== undefined ? "--var TERMINAL_SOURCES" : ".dev.vars";
  if (terminals.error) lines.push(`! ${terminals.error} (${terminalsOrigin})`);
  for (const t of terminals.served) {
    if (t.leftOut.length > 0) {
      lines.push(
        `! TERMINAL_SOURCES ${t.provider}: left out ${t.leftOut.join("; ")} (a terminal outside the US is UN/LOCODE:SMDG code, e.g. NLRTM:NLMVII)`,
      );
    }
  }
  lines.push(
    terminals.served.length > 0
      ? `Terminals ${terminals.served.map((t) => `${t.name} ${t.facilities.join(" ")} (${t.auth}${t.subscriptions ? ", subscriptions" : ""})`).join(", ")}   from ${terminalsOrigin}; ${simulatorOn ? "the simulator plays its other terminals" : "no other terminal is polled"}`
      : `Terminals none connected (${simulatorOn ? "the simulator plays its terminals" : "terminal fields stay null"}; set TERMINAL_SOURCES, docs/terminals.md §Connecting a terminal)`,
  );
  lines.push(`Sandbox  ${SANDBOX_SCAC} (test numbers, always on)`);
  return lines.map((l) => `  ${l}`).join("\n");
}
