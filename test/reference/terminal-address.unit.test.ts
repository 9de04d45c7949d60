import { iso31662 } from "iso-3166";
import { describe, expect, it } from "vitest";
import { TERMINALS } from "../../src/reference/generated/terminals";

// Terminal text fields the reference's OpenAPI types as strings (issue 25): `state` is the ISO 3166-2 name of the
// subdivision `state_abbr` names (the reference's "Virginia" for "VA"), and an SMDG address of a US or Canadian
// terminal gives `street`, `city`, `state_abbr` and `zip` (scripts/lib/locations.mjs).

const names = new Map(iso31662.map((s) => [s.code, s.name]));

describe("terminal addresses", () => {
  it("every terminal with a state_abbr has its state's name; none has a state without one", () => {
    const withAbbr = TERMINALS.filter((t) => t.stateAbbr !== null);
    expect(withAbbr.length).toBeGreaterThan(100);
    for (const t of withAbbr) {
      expect(t.state, `${t.portLocode} ${t.name}`).toBe(names.get(`${t.countryCode}-${t.stateAbbr}`));
    }
    expect(TERMINALS.filter((t) => t.stateAbbr === null && t.state !== null)).toEqual([]);
  });

  it("the issue's example: Jacksonville's terminals are in Florida; VIG (N195) in Virginia; Montreal's in Quebec", () => {
    const jax = TERMINALS.filter((t) => t.portLocode === "USJAX");
    expect(jax.length).toBeGreaterThan(0);
    for (const t of jax) expect(t).toMatchObject({ state: "Florida", stateAbbr: "FL" });
    expect(TERMINALS.find((t) => t.firmsCode === "N195")).toMatchObject({ state: "Virginia", stateAbbr: "VA" });
    expect(TERMINALS.find((t) => t.smdgCode === "VIAU")).toMatchObject({
      state: "Quebec",
      stateAbbr: "QC",
      street: "450 Rue De Boucherville",
      zip: "H1N 0C6",
    });
  });

  it("a terminal placed in its port's city (no city of its own) is in its port's state: Tioga (B197), Terminal 5", () => {
    expect(TERMINALS.find((t) => t.firmsCode === "B197")).toMatchObject({
      city: "Philadelphia",
      stateAbbr: "PA",
      state: "Pennsylvania",
    });
    expect(TERMINALS.find((t) => t.firmsCode === "Y400")).toMatchObject({ stateAbbr: "WA", state: "Washington" });
  });

  it("a US or Canadian terminal with an SMDG address has street, city, state_abbr and zip", () => {
    const addressed = TERMINALS.filter(
      (t) => (t.countryCode === "US" || t.countryCode === "CA") && t.smdgCode !== null && t.street !== null,
    );
    expect(addressed.length).toBeGreaterThan(50);
    const incomplete = addressed.filter((t) => !t.city || !t.stateAbbr || !t.zip || !t.state);
    expect(incomplete.map((t) => `${t.portLocode} ${t.name}: ${t.street}`)).toEqual([]);
  });
});
