import { describe, expect, it } from "vitest";
import { forEachShard, groupAccountsByShard, groupSubscriptionsByShard } from "../../src/tracking/shard-groups";

// Grouping a box's rows by shard (src/tracking/shard-groups.ts), with fake bindings: no storage is reached.

/** A D1 binding that fails the test if anything is read from it. */
const untouchable = {
  prepare: () => {
    throw new Error("read a D1 binding");
  },
} as unknown as D1Database;

/** A primary whose `accounts.shard` lookups answer from `shards`. */
function primaryOf(shards: Record<string, number>): D1Database {
  return {
    prepare: () => ({
      bind: (id: string) => ({
        first: async () => (id in shards ? { shard: shards[id] } : null),
      }),
    }),
  } as unknown as D1Database;
}

describe("groupAccountsByShard", () => {
  it("with one shard puts every account on the primary without reading anything", async () => {
    const env = { DB: untouchable } as unknown as Env;
    expect(await groupAccountsByShard(env, ["a", "b", "a"])).toEqual([{ shard: 0, accountIds: ["a", "b"] }]);
    expect(await groupAccountsByShard(env, [])).toEqual([]);
  });

  it("with two shards groups by each account's recorded shard, in shard order, and skips an unknown account", async () => {
    const env = { DB: primaryOf({ g1: 1, g0: 0, g1b: 1 }), DB_1: untouchable } as unknown as Env;
    expect(await groupAccountsByShard(env, ["g1", "g0", "ghost", "g1b"])).toEqual([
      { shard: 0, accountIds: ["g0"] },
      { shard: 1, accountIds: ["g1", "g1b"] },
    ]);
  });

  it("splits subscriptions and joining rows alike, keeping their order", async () => {
    const env = { DB: primaryOf({ s0: 0, s1: 1 }), DB_1: untouchable } as unknown as Env;
    const sub = (accountId: string, n: number) => ({ accountId, containerId: `c${n}`, shipmentId: `s${n}` });
    const parts = await groupSubscriptionsByShard(env, [sub("s1", 1), sub("s0", 2), sub("s1", 3)], [sub("s0", 4)]);
    expect(parts).toEqual([
      { shard: 0, subscriptions: [sub("s0", 2)], joining: [sub("s0", 4)] },
      { shard: 1, subscriptions: [sub("s1", 1), sub("s1", 3)], joining: [] },
    ]);
  });
});

describe("forEachShard", () => {
  it("runs every shard, hands the committed ones to onPartial and rethrows the first failure", async () => {
    const seen: number[] = [];
    const work = async ({ shard }: { shard: number }) => {
      if (shard === 1) throw new Error("shard 1 down");
      return shard * 10;
    };
    await expect(
      forEachShard([{ shard: 0 }, { shard: 1 }, { shard: 2 }], work, async (done) => {
        seen.push(...done.map((d) => d.result));
      }),
    ).rejects.toThrow("shard 1 down");
    expect(seen).toEqual([0, 20]);
    const all = await forEachShard([{ shard: 0 }, { shard: 2 }], work, async () => {
      throw new Error("not called when all succeed");
    });
    expect(all.map((d) => d.result)).toEqual([0, 20]);
  });
});
