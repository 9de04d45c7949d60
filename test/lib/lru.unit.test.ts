import { describe, expect, it } from "vitest";
import { boundedLru } from "../../src/lib/lru";

// The bounded LRU of the per-isolate caches (src/lib/lru.ts): the same bound as lru-cache's `max`, nothing allocated
// up front.

describe("boundedLru", () => {
  it("holds at most maxEntries, evicting the least recently used", () => {
    const cache = boundedLru<string, number>(3);
    cache.set("a", 1);
    cache.set("b", 2);
    cache.set("c", 3);
    expect(cache.get("a")).toBe(1); // a is now the most recently used; b the least
    cache.set("d", 4);
    expect(cache.size).toBe(3);
    expect(cache.has("b")).toBe(false);
    expect([...cache.keys()].sort()).toEqual(["a", "c", "d"]);
  });

  it("replaces a key's value without counting it twice", () => {
    const cache = boundedLru<string, number>(2);
    cache.set("a", 1);
    cache.set("a", 2);
    cache.set("b", 3);
    expect(cache.size).toBe(2);
    expect(cache.get("a")).toBe(2);
  });

  it("is bounded by size, not by preallocated slots", () => {
    // lru-cache preallocates arrays of `max` slots; a cache bounded by maxSize has max 0 and grows as it fills.
    const cache = boundedLru<string, number>(100_000);
    expect(cache.max).toBe(0);
    expect(cache.maxSize).toBe(100_000);
    for (let i = 0; i < 100_010; i++) cache.set(`k${i}`, i);
    expect(cache.size).toBe(100_000);
    expect(cache.has("k9")).toBe(false);
    expect(cache.has("k10")).toBe(true);
  });

  it("refuses a bound that is not a positive integer", () => {
    expect(() => boundedLru(0)).toThrow(TypeError);
    expect(() => boundedLru(-1)).toThrow(TypeError);
  });
});
