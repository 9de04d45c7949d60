import { describe, expect, it } from "vitest";
import { matchExpressions, runClasses, type SearchHitRow } from "../../src/search/query";

describe("matchExpressions (docs/architecture.md §Search index)", () => {
  it("frames the classes: whole term, prefix without the whole term, substring without the prefix", () => {
    expect(matchExpressions("MSCU12")).toEqual([
      { match: "exact", expression: '"\u0002MSCU12\u0003"' },
      { match: "prefix", expression: '"\u0002MSCU12" NOT "\u0002MSCU12\u0003"' },
      { match: "contains", expression: '"MSCU12" NOT "\u0002MSCU12"' },
    ]);
  });

  it("asks no class the trigram index cannot answer: one character whole terms only, two no substrings", () => {
    expect(matchExpressions("A").map((c) => c.match)).toEqual(["exact"]);
    expect(matchExpressions("AB").map((c) => c.match)).toEqual(["exact", "prefix"]);
  });

  it("keeps FTS5 syntax inside the phrase: a double quote is doubled", () => {
    expect(matchExpressions('A"B')[2]?.expression).toBe('"A""B" NOT "\u0002A""B"');
  });
});

describe("runClasses", () => {
  const row = (id: string) => ({ id }) as SearchHitRow;

  it("asks the next class only for what the better ones left of the page", async () => {
    const asked: [string, number][] = [];
    const hits = await runClasses("ABC", 4, (expression, limit) => {
      asked.push([expression.slice(0, 6), limit]);
      return asked.length === 1 ? [row("e1")] : [row("p1"), row("p2"), row("p3")].slice(0, limit);
    });
    expect(hits.map((h) => [h.row.id, h.match])).toEqual([
      ["e1", "exact"],
      ["p1", "prefix"],
      ["p2", "prefix"],
      ["p3", "prefix"],
    ]);
    expect(asked).toEqual([
      ['"\u0002ABC\u0003', 4],
      ['"\u0002ABC"', 3],
    ]);
  });
});
