import { describe, expect, it } from "vitest";
import { PORTS } from "../../src/reference/generated/ports";
import { TERMINALS } from "../../src/reference/generated/terminals";
import { findPortByLocode, findTerminalByCode, resolveTerminal } from "../../src/reference/locations";

// The compiled reference data (scripts/compile-data.mjs: sea-ports, the SMDG Terminal Code List, terminals.csv,
// DCSA's UN/LOCODE sample) and the one lookup every source and writer resolves places through.

/** Whether `zone` is an IANA zone this runtime knows (Intl throws a RangeError otherwise). */
function isIanaZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

describe("ports", () => {
  it.each([
    ["CNSHA", "Asia/Shanghai", 31.2, 121.5],
    ["CNNGB", "Asia/Shanghai", 29.9, 121.5],
    ["NLRTM", "Europe/Amsterdam", 51.9, 4.5],
    ["SGSIN", "Asia/Singapore", 1.3, 103.8],
    ["KRPUS", "Asia/Seoul", 35.1, 129.0],
    ["DEHAM", "Europe/Berlin", 53.5, 10.0],
  ])("%s resolves with coordinates (decimal strings) and the zone %s", (code, zone, lat, long) => {
    const port = findPortByLocode(code);
    expect(port?.code).toBe(code);
    expect(port?.timeZone).toBe(zone);
    expect(port?.latitude).toMatch(/^-?\d+(\.\d+)?$/);
    expect(port?.longitude).toMatch(/^-?\d+(\.\d+)?$/);
    expect(Math.abs(Number(port?.latitude) - lat)).toBeLessThan(0.5);
    expect(Math.abs(Number(port?.longitude) - long)).toBeLessThan(0.5);
  });

  it("an alternative (retired) code resolves to the port under its current code", () => {
    expect(findPortByLocode("CNSGH")?.code).toBe("CNSHA");
    expect(findPortByLocode("cnsgh")?.name).toBe("Shanghai");
    expect(findPortByLocode("CNNBO")?.code).toBe("CNNGB");
    expect(findPortByLocode("CNSHA")?.alternativeCodes).toContain("CNSGH");
  });

  it("no code (current or alternative) names two ports, and ids are unique", () => {
    const codes = PORTS.flatMap((p) => [p.code, ...p.alternativeCodes]);
    expect(new Set(codes).size).toBe(codes.length);
    expect(new Set(PORTS.map((p) => p.id)).size).toBe(PORTS.length);
  });

  it("covers the world's container ports: well over a thousand, most with coordinates and a zone", () => {
    expect(PORTS.length).toBeGreaterThan(1500);
    expect(PORTS.filter((p) => p.latitude !== null).length).toBeGreaterThan(1500);
    expect(PORTS.filter((p) => p.timeZone !== null).length).toBeGreaterThan(1500);
    for (const p of PORTS) if (p.timeZone) expect(isIanaZone(p.timeZone), `${p.code} ${p.timeZone}`).toBe(true);
  });

  it("keeps the ids ports had before (v5 of the UN/LOCODE)", () => {
    expect(findPortByLocode("USLAX")?.id).toBe("7f489361-09f1-5853-a300-c72f23604b40");
  });

  it("an unknown or malformed code finds nothing", () => {
    for (const code of ["ZZZZZ", "", "US", null, undefined]) expect(findPortByLocode(code)).toBeNull();
  });
});

describe("terminals", () => {
  it("every terminal has an IANA time zone and a port that exists", () => {
    const portIds = new Set(PORTS.map((p) => p.id));
    for (const t of TERMINALS) {
      expect(t.timeZone && isIanaZone(t.timeZone), `${t.name} ${t.timeZone}`).toBe(true);
      expect(portIds.has(t.portId), `${t.name} → ${t.portLocode}`).toBe(true);
    }
  });

  it("the merge never gives two terminals the same FIRMS code, SMDG code at a port, or id", () => {
    const firms = TERMINALS.flatMap((t) => (t.firmsCode ? [t.firmsCode] : []));
    expect(new Set(firms).size).toBe(firms.length);
    const smdg = TERMINALS.flatMap((t) => (t.smdgCode ? [`${t.portLocode}:${t.smdgCode}`] : []));
    expect(new Set(smdg).size).toBe(smdg.length);
    expect(new Set(TERMINALS.map((t) => t.id)).size).toBe(TERMINALS.length);
  });

  it("holds the SMDG list: over a thousand container terminals with coordinates", () => {
    const smdg = TERMINALS.filter((t) => t.smdgCode !== null);
    expect(smdg.length).toBeGreaterThan(1200);
    expect(smdg.every((t) => t.latitude !== null && t.longitude !== null)).toBe(true);
  });

  it("one record carries both codes where terminals.csv and SMDG name the same facility (APM Pier 400)", () => {
    const apm = findTerminalByCode("W185");
    expect(apm).toMatchObject({ firmsCode: "W185", smdgCode: "APMT", portLocode: "USLAX" });
    expect(apm?.timeZone).toBe("America/Los_Angeles");
    expect(apm?.street).toContain("Navy Way");
    expect(apm?.country).toBe("United States");
    // Its id is the one terminals.csv gave it before SMDG was merged in.
    expect(apm?.id).toBe("c5128cb0-2b98-5be8-935e-a2b75f4f9bcc");
  });

  it("resolves by FIRMS code, by SMDG code + UN/LOCODE (also a retired one), and by nickname at the port", () => {
    const apm = findTerminalByCode("W185");
    expect(resolveTerminal("APMT", "USLAX")?.id).toBe(apm?.id);
    expect(resolveTerminal("apmt", "uslax")?.id).toBe(apm?.id);
    expect(resolveTerminal("W185", null)?.id).toBe(apm?.id);
    expect(resolveTerminal("FMS", "USLAX")?.firmsCode).toBe("Y257");
    const ningbo = TERMINALS.find((t) => t.portLocode === "CNNGB" && t.smdgCode !== null);
    expect(ningbo).toBeDefined();
    expect(resolveTerminal(ningbo?.smdgCode, "CNNBO")?.id).toBe(ningbo?.id);
  });

  it("an SMDG code is only looked up at its own port", () => {
    expect(resolveTerminal("APMT", "NLRTM")?.portLocode).not.toBe("USLAX");
    expect(resolveTerminal("ZZZZZZ", "USLAX")).toBeNull();
    expect(resolveTerminal(null, "USLAX")).toBeNull();
  });
});
