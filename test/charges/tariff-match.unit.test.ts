import { describe, expect, it } from "vitest";
import { formatMinorUnits, isCurrencyCode, minorDigits, toMinorUnits } from "../../src/charges/money";
import { chooseTariff, type Tariff, type TariffScopeFacts } from "../../src/charges/tariff-match";

// Which tariff applies (docs/charges.md §Which tariff): the most specific match wins and the choice is explained; and
// money in exact minor units (ISO 4217).

const BOX: TariffScopeFacts = {
  scac: "MAEU",
  podLocode: "USLAX",
  podTerminalId: "term-1",
  equipmentLength: 40,
  equipmentType: "reefer",
};

function tariff(id: string, over: Partial<Tariff> = {}): Tariff {
  return {
    id,
    name: null,
    kind: "demurrage",
    scac: null,
    portCode: null,
    terminalId: null,
    equipmentLength: null,
    equipmentType: null,
    freeDays: 4,
    freeDaysBasis: "calendar",
    clockStartsAt: "discharged",
    tiers: [{ fromDay: 1, toDay: null, ratePerDay: "100.00", currencyCode: "USD" }],
    updatedAt: "2026-01-01T00:00:00Z",
    ...over,
  };
}

describe("chooseTariff", () => {
  it("picks the most specific match: terminal over port over line over equipment", () => {
    const tariffs = [
      tariff("any"),
      tariff("reefer", { equipmentType: "reefer", equipmentLength: 40 }),
      tariff("line", { scac: "MAEU" }),
      tariff("port", { portCode: "USLAX" }),
      tariff("terminal", { terminalId: "term-1" }),
    ];
    const choice = chooseTariff(tariffs, BOX, ["demurrage"]);
    expect(choice?.tariff.id).toBe("terminal");
    expect(choice?.specificity).toBe(16);
    expect(choice?.explanation).toEqual([
      "tariff terminal applies to terminal_id=term-1 (specificity 16).",
      "tariff port also matches (port_code=USLAX, specificity 8) but is less specific.",
      "3 other matching tariff(s) are less specific still.",
    ]);
    expect(chooseTariff(tariffs.slice(0, 4), BOX, ["demurrage"])?.tariff.id).toBe("port");
    expect(chooseTariff(tariffs.slice(0, 3), BOX, ["demurrage"])?.tariff.id).toBe("line");
    expect(chooseTariff(tariffs.slice(0, 2), BOX, ["demurrage"])?.tariff.id).toBe("reefer");
  });

  it("never picks a tariff one of whose fields differs, nor another kind", () => {
    const tariffs = [
      tariff("other-port", { portCode: "USLGB", terminalId: "term-1" }),
      tariff("other-kind", { kind: "detention", clockStartsAt: "full_out" }),
      tariff("dry", { equipmentType: "dry" }),
    ];
    expect(chooseTariff(tariffs, BOX, ["demurrage"])).toBeNull();
    expect(chooseTariff(tariffs, BOX, ["detention"])?.tariff.id).toBe("other-kind");
  });

  it("breaks a tie by the most recently updated, and says so", () => {
    const older = tariff("older", { portCode: "USLAX", updatedAt: "2026-01-01T00:00:00Z" });
    const newer = tariff("newer", { portCode: "USLAX", name: "LA 2026", updatedAt: "2026-06-01T00:00:00Z" });
    const choice = chooseTariff([older, newer], BOX, ["demurrage"]);
    expect(choice?.tariff.id).toBe("newer");
    expect(choice?.explanation[1]).toBe(
      "tariff older is as specific (port_code=USLAX); the more recently updated one wins.",
    );
  });
});

describe("money", () => {
  it("knows ISO 4217 codes and their minor units", () => {
    expect(isCurrencyCode("USD")).toBe(true);
    expect(isCurrencyCode("usd")).toBe(false);
    expect(isCurrencyCode("XYZ")).toBe(false);
    expect([minorDigits("USD"), minorDigits("JPY"), minorDigits("KWD")]).toEqual([2, 0, 3]);
    expect(() => minorDigits("XYZ")).toThrow(RangeError);
  });

  it("converts decimal strings exactly, refusing more decimals than the currency has", () => {
    expect(toMinorUnits("150", "USD")).toBe(15_000);
    expect(toMinorUnits("150.5", "USD")).toBe(15_050);
    expect(toMinorUnits("0.10", "USD")).toBe(10);
    expect(toMinorUnits("1500", "JPY")).toBe(1500);
    expect(toMinorUnits("1.5", "JPY")).toBeNull();
    expect(toMinorUnits("1.234", "KWD")).toBe(1234);
    expect(toMinorUnits("-1", "USD")).toBeNull();
    expect(toMinorUnits("1e3", "USD")).toBeNull();
    expect(formatMinorUnits(15_000, "USD")).toBe("150.00");
    expect(formatMinorUnits(5, "USD")).toBe("0.05");
    expect(formatMinorUnits(1500, "JPY")).toBe("1500");
    expect(formatMinorUnits(1234, "KWD")).toBe("1.234");
    expect(formatMinorUnits(-5, "USD")).toBe("-0.05");
  });
});
