/**
 * Port of loading and port of discharge (docs/documents.md §What is recognised): the value after a POL / POD label
 * (`Port of Loading`, `Load Port`, `POL`…) resolved against our ports reference data (src/reference/locations.ts):
 * a UN/LOCODE in it (`CNSHA`, `CN SHA`, a retired code such as `CNSGH`), else the port's name or city (`Shanghai`,
 * `Rotterdam, Netherlands`), a port's own name before a city's. A name several ports share is settled by a country
 * code or English country name in the value (`Portland, US`, `Rotterdam, Netherlands`); otherwise it is a weak guess.
 */
import { PORTS } from "../../../reference/generated/ports.ts";
import { findPortByLocode } from "../../../reference/locations.ts";
import type { PortRecord } from "../../../reference/types.ts";
import { type LabelKey, labelledValues } from "../labels.ts";
import type { TextLine } from "../text-layer.ts";
import type { ExtractedField } from "../types.ts";
import { field } from "./field.ts";

/** Confidences of the port rules. */
export const PORT_CONFIDENCE = { locode: 0.95, uniqueName: 0.85, nameWithCountry: 0.85, ambiguousName: 0.5 } as const;
/** Taken off the confidence when the value is on the line after its label. */
const NEXT_LINE_PENALTY = 0.05;

/** Ports by upper-cased name, then by upper-cased city (a port's own name wins: `Los Angeles` is USLAX, not the
 * Long Beach port whose city is Los Angeles). */
function indexBy(key: (port: PortRecord) => string | null): ReadonlyMap<string, readonly PortRecord[]> {
  const map = new Map<string, PortRecord[]>();
  for (const port of PORTS) {
    const raw = key(port);
    if (!raw) continue;
    const name = normalName(raw);
    const list = map.get(name) ?? [];
    list.push(port);
    map.set(name, list);
  }
  return map;
}

interface PortNameIndex {
  byName: ReadonlyMap<string, readonly PortRecord[]>;
  byCity: ReadonlyMap<string, readonly PortRecord[]>;
  /** Longest port name, in words: a value's first words are tried from this many down to one. */
  maxWords: number;
}

let portNameIndex: PortNameIndex | undefined;

/**
 * The name and city indexes of every port, built on the first extraction that resolves a name (once per isolate):
 * normalising the names of every port took several ms of the Worker's startup when built at module load
 * (docs/SCALING.md §Worker bundle, startup and cold start), which requests that never extract a document paid too.
 */
function portNames(): PortNameIndex {
  if (!portNameIndex) {
    const byName = indexBy((port) => port.name);
    const byCity = indexBy((port) => port.city);
    const maxWords = Math.max(...[...byName.keys(), ...byCity.keys()].map((n) => n.split(" ").length));
    portNameIndex = { byName, byCity, maxWords };
  }
  return portNameIndex;
}

function normalName(name: string): string {
  return name
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, " ")
    .trim();
}

let regionNames: Intl.DisplayNames | undefined;

/** The English name of an ISO 3166-1 alpha-2 country, upper case (`NL` → `NETHERLANDS`), or the code. */
function countryName(code: string): string {
  regionNames ??= new Intl.DisplayNames(["en"], { type: "region" });
  return normalName(regionNames.of(code) ?? code);
}

/** The port a labelled value names, with the rule's confidence, or null. */
export function resolvePort(value: string): { port: PortRecord; confidence: number } | null {
  const upper = value.toUpperCase();
  for (const match of upper.matchAll(/\b([A-Z]{2})\s?([A-Z2-9]{3})\b/g)) {
    const port = findPortByLocode(`${match[1]}${match[2]}`);
    if (port) return { port, confidence: PORT_CONFIDENCE.locode };
  }
  const words = normalName(value).split(" ").filter(Boolean);
  const countries = new Set(words.filter((w) => w.length === 2));
  const { byName, byCity, maxWords } = portNames();
  for (let n = Math.min(maxWords, words.length); n >= 1; n--) {
    const key = words.slice(0, n).join(" ");
    const candidates = byName.get(key) ?? byCity.get(key);
    if (!candidates || candidates.length === 0) continue;
    const first = candidates[0] as PortRecord;
    if (candidates.length === 1) return { port: first, confidence: PORT_CONFIDENCE.uniqueName };
    const inCountry = candidates.filter(
      (p) => countries.has(p.countryCode) || ` ${words.join(" ")} `.includes(` ${countryName(p.countryCode)} `),
    );
    if (inCountry.length === 1)
      return { port: inCountry[0] as PortRecord, confidence: PORT_CONFIDENCE.nameWithCountry };
    return { port: first, confidence: PORT_CONFIDENCE.ambiguousName };
  }
  return null;
}

function recognisePort(lines: readonly TextLine[], key: LabelKey): ExtractedField | null {
  for (const { value, sameLine, sourceText } of labelledValues(lines, key)) {
    const resolved = resolvePort(value);
    if (!resolved) continue;
    const confidence = resolved.confidence - (sameLine ? 0 : NEXT_LINE_PENALTY);
    return field(resolved.port.code, confidence, sourceText);
  }
  return null;
}

/** POL and POD as UN/LOCODEs of our ports reference data, each or both null. */
export function recognisePorts(lines: readonly TextLine[]): {
  portOfLoading: ExtractedField | null;
  portOfDischarge: ExtractedField | null;
} {
  return {
    portOfLoading: recognisePort(lines, "port_of_loading"),
    portOfDischarge: recognisePort(lines, "port_of_discharge"),
  };
}
