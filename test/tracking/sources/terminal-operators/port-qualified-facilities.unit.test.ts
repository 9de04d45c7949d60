import { afterEach, describe, expect, it, vi } from "vitest";
import {
  canonicalFacilityCode,
  findTerminalByCode,
  lookupFacilityKey,
  resolveTerminal,
} from "../../../../src/reference/locations";
import { providerServiceAt, servedFacilities } from "../../../../src/terminals/provided-data";
import { sourcesFor } from "../../../../src/tracking/sources";
import {
  createConfiguredTerminalSources,
  ourFacilityCode,
  parseTerminalSources,
} from "../../../../src/tracking/sources/terminal-operators";
import { APMT_PROVIDED_DATA } from "../../../../src/tracking/sources/terminal-operators/apmt-provided-data";
import { memoryBackoffStore } from "../../../../src/tracking/sources/terminal-operators/backoff";
import type { TerminalQuery, TerminalSource } from "../../../../src/tracking/sources/types";

// Issue 14, APM Terminals outside the US: APMT selects a facility by its port's UN/LOCODE and lists non-US terminals
// (NLRTM Maasvlakte II, DKAAR, … docs/terminals.md §APMT facility codes) that have neither a FIRMS nor a BIC facility
// code; our reference data knows them by an SMDG code unique only within their port. Such a terminal is our facility
// `<UN/LOCODE>:<SMDG code>` (`NLRTM:NLMVII`): in TERMINAL_SOURCES, on the shipment the carrier mapping writes, in the
// poll plan, and in `provided_data`. US terminals keep their FIRMS code everywhere.

/** APM Terminals Rotterdam Maasvlakte 2 (SMDG NLMVII at NLRTM; no FIRMS, no BIC code). */
const MAASVLAKTE_II = "NLRTM:NLMVII";
/** APM Terminals Aarhus: SMDG `APMT`, the code of APM terminals at several other ports too. */
const AARHUS = "DKAAR:APMT";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Everything `console.warn` / `console.error` printed while `fn` ran. */
function logged(fn: () => void): string {
  const lines: string[] = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => lines.push(args.map(String).join(" ")));
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => lines.push(args.map(String).join(" ")));
  fn();
  return lines.join("\n");
}

const apmtJson = (facilities: Record<string, string>) =>
  JSON.stringify({ apmt: { baseUrl: "https://apmt.test", auth: null, facilities } });

describe("a port-qualified facility code (UN/LOCODE:SMDG code)", () => {
  it("finds the terminal at that port, whatever the case, and only there", () => {
    const terminal = findTerminalByCode(MAASVLAKTE_II);
    expect(terminal).toMatchObject({ smdgCode: "NLMVII", portLocode: "NLRTM", timeZone: "Europe/Amsterdam" });
    expect(findTerminalByCode(" nlrtm:nlmvii ")?.id).toBe(terminal?.id);
    expect(findTerminalByCode(AARHUS)).toMatchObject({ portLocode: "DKAAR", smdgCode: "APMT" });
    // `APMT` names another terminal at each port: never one of them without the port.
    expect(findTerminalByCode("APMT")).toBeNull();
    expect(findTerminalByCode("NLMVII")).toBeNull();
    expect(findTerminalByCode("DKAAR:NLMVII")).toBeNull();
    expect(findTerminalByCode("XXZZZ:APMT")).toBeNull();
    expect(resolveTerminal(MAASVLAKTE_II, "NLRTM")?.id).toBe(terminal?.id);
    expect(resolveTerminal(MAASVLAKTE_II, null)?.id).toBe(terminal?.id);
  });

  it("is the canonical code of a terminal with neither FIRMS nor BIC code; US terminals keep their FIRMS code", () => {
    expect(canonicalFacilityCode("NLMVII", "NLRTM")).toBe(MAASVLAKTE_II);
    expect(canonicalFacilityCode("APMT", "DKAAR")).toBe(AARHUS);
    expect(canonicalFacilityCode(MAASVLAKTE_II, "NLRTM")).toBe(MAASVLAKTE_II);
    expect(canonicalFacilityCode("APMT", "USLAX")).toBe("W185");
    expect(canonicalFacilityCode("W185", "USLAX")).toBe("W185");
    expect(canonicalFacilityCode("ZZQX", "USLAX")).toBe("ZZQX");
    expect(ourFacilityCode(MAASVLAKTE_II)).toBe(MAASVLAKTE_II);
    expect(ourFacilityCode("nlrtm:nlmvii")).toBe(MAASVLAKTE_II);
    expect(ourFacilityCode("USLAX:APMT")).toBe("W185");
    expect(ourFacilityCode("NLMVII")).toBeNull();
  });

  it("as a configuration key: found, unknown, or ambiguous with the keys to write instead", () => {
    expect(lookupFacilityKey("nlrtm:NLMVII")).toMatchObject({ kind: "found", facilityCode: MAASVLAKTE_II });
    expect(lookupFacilityKey("W185")).toMatchObject({ kind: "found", facilityCode: "W185" });
    expect(lookupFacilityKey("NLRTM:ZZZZ")).toEqual({ kind: "unknown" });
    expect(lookupFacilityKey("ZZZZ")).toEqual({ kind: "unknown" });
    const bare = lookupFacilityKey("APMT");
    expect(bare.kind).toBe("ambiguous");
    expect(bare.kind === "ambiguous" ? bare.candidates : []).toEqual(expect.arrayContaining([AARHUS, "W185"]));
    expect(lookupFacilityKey("NLMVII")).toEqual({ kind: "ambiguous", candidates: [MAASVLAKTE_II] });
    // Two Le Havre terminals share the nickname GMP: it names neither (SMDG codes EUP and TDF do).
    expect(lookupFacilityKey("FRLEH:GMP")).toEqual({ kind: "ambiguous", candidates: ["FRLEH:EUP", "FRLEH:TDF"] });
    expect(lookupFacilityKey("FRLEH:TDF")).toMatchObject({ kind: "found", facilityCode: "FRLEH:TDF" });
    expect(canonicalFacilityCode("GMP", "FRLEH")).toBe("GMP");
  });
});

describe("TERMINAL_SOURCES with a terminal outside the US", () => {
  it("accepts a port-qualified key next to FIRMS keys, kept in its canonical form", () => {
    const configs = parseTerminalSources(apmtJson({ "nlrtm:nlmvii": "NLRTM", W185: "USLAX", "DKAAR:APMT": "DKAAR" }));
    expect(configs.get("apmt")?.facilities).toEqual({ [MAASVLAKTE_II]: "NLRTM", W185: "USLAX", [AARHUS]: "DKAAR" });
    // A US terminal named the port-qualified way is still its FIRMS code.
    expect(parseTerminalSources(apmtJson({ "USLAX:APMT": "USLAX" })).get("apmt")?.facilities).toEqual({
      W185: "USLAX",
    });
  });

  it("leaves out an unknown port-qualified key, naming it", () => {
    let configs = new Map();
    const text = logged(() => {
      configs = parseTerminalSources(apmtJson({ "NLRTM:ZZZZ": "NLRTM", "XXZZZ:APMT": "NLRTM", W185: "USLAX" }));
    });
    expect(configs.get("apmt")?.facilities).toEqual({ W185: "USLAX" });
    expect(text).toContain("NLRTM:ZZZZ");
    expect(text).toContain("XXZZZ:APMT");
  });

  it("leaves out an SMDG code without its port, naming it and the port-qualified keys it may mean", () => {
    let configs = new Map();
    const text = logged(() => {
      configs = parseTerminalSources(apmtJson({ APMT: "DKAAR", NLMVII: "NLRTM", W185: "USLAX" }));
    });
    expect(configs.get("apmt")?.facilities).toEqual({ W185: "USLAX" });
    expect(text).toMatch(/ambiguous/);
    expect(text).toContain("APMT");
    expect(text).toContain(AARHUS);
    expect(text).toContain(`NLMVII (${MAASVLAKTE_II})`);
  });

  it("a configured non-US terminal is served by its port-qualified code, and the adapter gets that code", async () => {
    const asked: TerminalQuery[] = [];
    const adapter: TerminalSource = {
      name: "Terminal",
      supports: () => true,
      poll: async (query) => {
        asked.push(query);
        return { kind: "not_found" };
      },
    };
    const [configured] = createConfiguredTerminalSources(
      parseTerminalSources(apmtJson({ [MAASVLAKTE_II]: "NLRTM", W185: "USLAX" })),
      {},
      { apmt: () => adapter },
      memoryBackoffStore(),
    );
    const source = configured?.source;
    expect(source?.supports(MAASVLAKTE_II, "MAEU")).toBe(true);
    expect(source?.supports("nlrtm:nlmvii", "MAEU")).toBe(true);
    expect(source?.supports("W185", "MAEU")).toBe(true);
    expect(source?.supports("USLAX:APMT", "MAEU")).toBe(true);
    // A bare SMDG code is no terminal of ours; another APM terminal at another port is not configured.
    expect(source?.supports("NLMVII", "MAEU")).toBe(false);
    expect(source?.supports(AARHUS, "MAEU")).toBe(false);
    await source?.poll(
      { containerNumber: "MRKU4000001", facilityCode: "nlrtm:nlmvii", scac: "MAEU", billOfLadingNumber: null },
      { nowMs: 0, fetch },
    );
    expect(asked.map((q) => q.facilityCode)).toEqual([MAASVLAKTE_II]);
  });

  it("provided_data of Maasvlakte II and Aarhus is APMT's, as configured", () => {
    const registry = sourcesFor({
      SIMULATOR_ENABLED: "false",
      DCSA_SOURCES: "",
      SIMULATION_SPEED: "",
      TERMINAL_SOURCES: apmtJson({ [MAASVLAKTE_II]: "NLRTM", [AARHUS]: "DKAAR" }),
    });
    expect(registry.terminalProviderFor?.(MAASVLAKTE_II)).toBe("apmt");
    const codesOf = (code: string) => {
      const t = findTerminalByCode(code);
      if (!t) throw new Error(`no terminal ${code}`);
      return {
        id: t.id,
        firmsCode: t.firmsCode,
        smdgCode: t.smdgCode,
        bicFacilityCode: t.bicFacilityCode,
        facilityType: t.facilityType,
      };
    };
    expect(providerServiceAt(registry, codesOf(MAASVLAKTE_II))?.flags).toEqual(APMT_PROVIDED_DATA);
    expect(providerServiceAt(registry, codesOf(AARHUS))?.flags).toMatchObject({
      pickup_lfd: false,
      available_for_pickup: true,
    });
    const served = servedFacilities(registry);
    expect(served(codesOf(MAASVLAKTE_II))).toBe(true);
    // Another port's `APMT` (Tangier) is not Aarhus.
    expect(providerServiceAt(registry, codesOf("MAPTM:APMT"))).toBeNull();
    expect(served(codesOf("MAPTM:APMT"))).toBe(false);
  });
});
