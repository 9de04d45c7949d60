import { describe, expect, it } from "vitest";
import { ActiveKeyIndex, KEY_INDEX_HASH_DIGITS } from "../../src/middleware/active-key-index";

// The per-isolate index of active keys' hash prefixes (src/middleware/active-key-index.ts, issue 23 §2), with a
// hand-driven clock and wait, and a loader that reads a table the test edits.

const hash = (n: number) =>
  `${n.toString(16).padStart(KEY_INDEX_HASH_DIGITS, "0")}${"f".repeat(64 - KEY_INDEX_HASH_DIGITS)}`;
const prefixOf = (h: string) => h.slice(0, KEY_INDEX_HASH_DIGITS);

function harness(minReloadMs = 1000) {
  let nowMs = 0;
  const waits: number[] = [];
  const table = new Set<string>();
  let loads = 0;
  let failNext = false;
  const index = new ActiveKeyIndex(
    () => nowMs,
    async (ms) => {
      waits.push(ms);
      nowMs += ms;
    },
    minReloadMs,
  );
  const load = async () => {
    loads++;
    if (failNext) {
      failNext = false;
      throw new Error("D1 unavailable");
    }
    return [...table].map(prefixOf);
  };
  return {
    index,
    table,
    load,
    waits,
    loads: () => loads,
    advance: (ms: number) => {
      nowMs += ms;
    },
    failOnce: () => {
      failNext = true;
    },
  };
}

describe("ActiveKeyIndex", () => {
  it("answers a held prefix at once; a miss waits for a load that starts after it, so a new key is found", async () => {
    const h = harness();
    h.table.add(hash(1));
    expect(await h.index.mayHold(hash(1), h.load)).toBe(true);
    expect(h.loads()).toBe(1);
    expect(await h.index.mayHold(hash(1), h.load)).toBe(true);
    expect(h.loads()).toBe(1);
    // Created after the load: the next miss loads again (after the spacing) and finds it.
    h.table.add(hash(2));
    expect(await h.index.mayHold(hash(2), h.load)).toBe(true);
    expect(h.loads()).toBe(2);
    expect(h.waits).toEqual([1000]);
    // A guessed key: refused, after a fresh load.
    expect(await h.index.mayHold(hash(3), h.load)).toBe(false);
    expect(h.loads()).toBe(3);
  });

  it("misses arriving together share one load; loads start at least the spacing apart", async () => {
    const h = harness(1000);
    h.table.add(hash(7));
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => h.index.mayHold(hash(100 + i), h.load)));
    expect(answers.every((a) => a === false)).toBe(true);
    expect(h.loads()).toBe(1);
    h.advance(300);
    const again = await Promise.all(Array.from({ length: 50 }, (_, i) => h.index.mayHold(hash(200 + i), h.load)));
    expect(again.every((a) => a === false)).toBe(true);
    expect(h.loads()).toBe(2);
    expect(h.waits).toEqual([700]);
    expect(h.index.size).toBe(1);
  });

  it("forget drops a prefix; a key that shares it comes back with the next load", async () => {
    const h = harness();
    h.table.add(hash(5));
    expect(await h.index.mayHold(hash(5), h.load)).toBe(true);
    h.index.forget(hash(5));
    expect(h.index.size).toBe(0);
    expect(await h.index.mayHold(hash(5), h.load)).toBe(true);
    expect(h.loads()).toBe(2);
  });

  it("a failing load answers 'may hold' (the lookup decides) and the next miss loads again", async () => {
    const h = harness();
    h.table.add(hash(9));
    h.failOnce();
    expect(await h.index.mayHold(hash(4), h.load)).toBe(true);
    expect(await h.index.mayHold(hash(4), h.load)).toBe(false);
    expect(await h.index.mayHold(hash(9), h.load)).toBe(true);
    expect(h.loads()).toBe(2);
  });
});
