import { LRUCache } from "lru-cache";

/**
 * A least-recently-used cache (`lru-cache`) of at most `maxEntries` entries whose memory grows with what it holds.
 *
 * Given `max`, lru-cache allocates its key, value and link arrays for all `max` entries when it is constructed. The
 * per-isolate caches of the request path are module-level (the key cache's two halves and the last-used marks of
 * src/middleware, the failure throttle, the account → shard map of src/db/shards.ts: 130 000 slots together), so that
 * allocation ran in the Worker's startup on every isolate: 2.4–3.5 MB (by pointer size) and, in
 * `npm run bench -- bundle`, about 16 ms of the global scope's CPU (docs/SCALING.md §Worker bundle, startup and cold start). Bounded through `maxSize`
 * with every entry of size 1 instead, the cache keeps the same bound (a `set` that would exceed `maxEntries` entries
 * evicts the least recently used one) and allocates nothing up front.
 * @param maxEntries the most entries held at once (a positive integer)
 * @throws TypeError from lru-cache when `maxEntries` is not a positive integer
 */
export function boundedLru<K extends {}, V extends {}>(maxEntries: number): LRUCache<K, V> {
  return new LRUCache<K, V>({ maxSize: maxEntries, sizeCalculation: () => 1 });
}
