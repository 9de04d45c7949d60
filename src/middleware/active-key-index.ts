/** Hex digits of a key's SHA-256 the index keeps per active key (48 bits). */
export const KEY_INDEX_HASH_DIGITS = 12;
/** Loads of the index start at least this long apart in one isolate (ms): its D1 cost under a flood of bad keys. */
export const KEY_INDEX_MIN_RELOAD_MS = 1000;

/** Reads the first {@link KEY_INDEX_HASH_DIGITS} hex digits of the SHA-256 of every API key not revoked. */
export type ActiveKeyHashLoader = () => Promise<string[]>;

/** The D1 read behind the index: one scan of `api_keys`, 12 hex digits a row. */
export async function loadActiveKeyHashPrefixes(db: D1Database): Promise<string[]> {
  const { results } = await db
    .prepare(`SELECT substr(key_hash, 1, ${KEY_INDEX_HASH_DIGITS}) AS p FROM api_keys WHERE revoked_at IS NULL`)
    .all<{ p: string }>();
  return results.map((row) => row.p);
}

/**
 * Which API keys may be valid, without a D1 read per key (issue 23 §2): the first 48 bits of the SHA-256 of every
 * key not revoked, held in this isolate. The failure throttle (src/middleware/auth-throttle.ts) consults it for an
 * address that is refused: a key whose hash prefix is here goes on to the real lookup, so a colleague's valid key
 * behind the same NAT as a misconfigured script is never refused for the script's failures; a guessed key is not here
 * (the chance is the number of keys in 2^48) and is refused with no D1 read. Knowing one's own key does not help an
 * attacker: the hashes of other keys are not public, and a key of the same hash prefix as one's own costs 2^48 tries.
 *
 * A key created after the index was read must still get in, so a miss never trusts an index read before the request:
 * it waits for a load that starts after it (coalesced: every miss waiting shares the next load), and loads start at
 * least {@link KEY_INDEX_MIN_RELOAD_MS} apart. Under a flood of bad keys the isolate so reads `api_keys` at most once a
 * second (one scan, 12 hex digits a row), and each refused request waits at most about that long. The index is read
 * only when a throttled address presents a key never seen valid here: ordinary traffic never loads it. A failing
 * load answers "may hold" (the caller's own lookup then decides, and reports the failure as it always did).
 * A key the lookup finds unknown or revoked leaves the index at once ({@link ActiveKeyIndex.forget}); it is only a
 * filter, the lookup of the whole hash decides.
 */
export class ActiveKeyIndex {
  private held = new Set<string>();
  /** When (ms, `now`) the last load started; loads start {@link KEY_INDEX_MIN_RELOAD_MS} apart. */
  private lastStartMs = Number.NEGATIVE_INFINITY;
  private inFlight: Promise<void> | null = null;
  /** The next load, not started yet: every miss from now on waits for it. */
  private next: Promise<void> | null = null;

  /**
   * @param now clock of the reload spacing (ms)
   * @param wait sleeps `ms` milliseconds
   * @param minReloadMs least time between two loads' starts (ms)
   */
  constructor(
    private readonly now: () => number = Date.now,
    private readonly wait: (ms: number) => Promise<void> = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    private readonly minReloadMs = KEY_INDEX_MIN_RELOAD_MS,
  ) {}

  /**
   * Whether the key whose lowercase hex SHA-256 is `keyHash` may be an active key. True at once when its prefix is
   * held; otherwise waits for a load (through `load`) that starts after this call, and answers from it.
   */
  async mayHold(keyHash: string, load: ActiveKeyHashLoader): Promise<boolean> {
    const prefix = keyHash.slice(0, KEY_INDEX_HASH_DIGITS);
    if (this.held.has(prefix)) return true;
    this.next ??= this.queueLoad(load);
    try {
      await this.next;
    } catch {
      return true;
    }
    return this.held.has(prefix);
  }

  /**
   * Drops the prefix of `keyHash`, a key the lookup just found unknown or revoked, so the index stops sending it to D1
   * before its next load. Safe even if another active key shares the prefix: a miss always waits for a fresh load,
   * which brings that key's prefix back.
   */
  forget(keyHash: string): void {
    this.held.delete(keyHash.slice(0, KEY_INDEX_HASH_DIGITS));
  }

  /** Entries held: for tests and diagnostics. */
  get size(): number {
    return this.held.size;
  }

  private async queueLoad(load: ActiveKeyHashLoader): Promise<void> {
    try {
      // The first await also lets `mayHold` store this promise as `next` before the `finally` below clears it.
      await (this.inFlight ?? Promise.resolve()).catch(() => undefined);
      const delay = this.lastStartMs + this.minReloadMs - this.now();
      if (delay > 0) await this.wait(delay);
    } finally {
      // From here the load starts: a miss that comes later must wait for the one after it.
      this.next = null;
    }
    this.lastStartMs = this.now();
    const run = load().then((prefixes) => {
      this.held = new Set(prefixes);
    });
    this.inFlight = run;
    try {
      await run;
    } finally {
      if (this.inFlight === run) this.inFlight = null;
    }
  }
}
