import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { runArchiveCron } from "../../src/archive/cron";
import { type ArchiveHooks, runArchive } from "../../src/archive/job";
import {
  ARCHIVE_OBJECTS_CURSOR,
  ARCHIVE_ORPHAN_GRACE_MS,
  type ArchiveOrphanSweepReport,
  sweepOrphanArchiveObjects,
} from "../../src/archive/orphans";
import { sweptShards } from "../../src/db/shard-sweeps";
import { FakeClock } from "../../src/lib/clock";
import { api, createAccount } from "../helpers/api";
import { AFTER, archiveDeps, drainArchive, seedBox } from "../helpers/archive-rows";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";

// The sweep of archive objects no manifest names (src/archive/orphans.ts, docs/SCALING.md §Retention and archive): a
// run that stops after its R2 put and before its manifest batch leaves such an object; the sweep deletes it once it is
// older than the grace, and never an object any shard's manifest names. R2 stamps `uploaded` with the real time, so
// "after the grace" is a clock that far past now.

const stopAfterPut: ArchiveHooks = {
  afterPut: () => {
    throw new Error("injected crash afterPut");
  },
};

/** Every key under `prefix` in the archive bucket. */
async function keysUnder(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await env.ARCHIVE_BUCKET.list({ prefix, ...(cursor ? { cursor } : {}) });
    keys.push(...page.objects.map((o) => o.key));
    if (!page.truncated) return keys;
    cursor = page.cursor;
  }
}

/** The keys a shard's manifest names. */
async function recorded(d1: D1Database): Promise<string[]> {
  const { results } = await d1.prepare("SELECT key FROM archive_objects").all<{ key: string }>();
  return results.map((r) => r.key);
}

/** Forgets where the listing stopped, so the next slice starts a pass. */
async function restartPass(): Promise<void> {
  await env.DB.prepare("DELETE FROM maintenance_cursors WHERE name = ?1").bind(ARCHIVE_OBJECTS_CURSOR).run();
}

/** One whole pass over the bucket at `nowMs` (slices of `limit` until the listing ends), against every swept shard. */
async function sweepPass(nowMs: number, limit = 500): Promise<ArchiveOrphanSweepReport[]> {
  await restartPass();
  const shards = (await sweptShards(env)).map((s) => s.d1);
  const reports: ArchiveOrphanSweepReport[] = [];
  for (let i = 0; i < 1000; i++) {
    const report = await sweepOrphanArchiveObjects({
      primary: env.DB,
      shards,
      bucket: env.ARCHIVE_BUCKET,
      clock: new FakeClock(nowMs),
      limit,
    });
    reports.push(report);
    if (report.passEnded) return reports;
  }
  throw new Error("the sweep never finished its pass");
}

/** A box of the account whose first archive object a stopped run left unrecorded; then archived for real. */
async function crashedBox(d1: D1Database, accountId: string) {
  const box = await seedBox(d1, accountId, 4);
  await expect(runArchive(archiveDeps(AFTER, { hooks: stopAfterPut }, d1))).rejects.toThrow("injected crash");
  const [orphan, ...more] = await keysUnder(`archive/${accountId}/`);
  expect(more).toEqual([]);
  expect(await recorded(d1)).not.toContain(orphan);
  // The next run archives the rows again into new parts (raw events of two months: two objects), recorded.
  expect((await runArchive(archiveDeps(AFTER, {}, d1))).rawEvents).toBe(4);
  return { box, orphan: orphan ?? "" };
}

describe("the sweep of archive objects no manifest names", () => {
  it("deletes a stopped run's unrecorded object after the grace, and never a recorded one", async () => {
    await drainArchive();
    const account = await createAccount();
    const { box, orphan } = await crashedBox(env.DB, account.accountId);
    const mine = await keysUnder(`archive/${account.accountId}/`);
    expect(mine).toHaveLength(3);
    const readBefore = await (await api(`/containers/${box.containerId}/raw_events`, { key: account.key })).text();

    // Within the grace (an in-flight run's object looks the same): nothing is deleted.
    const early = await sweepPass(Date.now());
    expect(early.reduce((n, r) => n + r.deleted, 0)).toBe(0);
    expect(await keysUnder(`archive/${account.accountId}/`)).toEqual(mine);

    const late = await sweepPass(Date.now() + ARCHIVE_ORPHAN_GRACE_MS + 60_000);
    expect(late.reduce((n, r) => n + r.deleted, 0)).toBe(1);
    expect(await keysUnder(`archive/${account.accountId}/`)).toEqual(mine.filter((k) => k !== orphan));
    // Every object a manifest names is still there, and the archived rows read as before.
    const left = new Set(await keysUnder("archive/"));
    expect((await recorded(env.DB)).filter((k) => !left.has(k))).toEqual([]);
    const readAfter = await (await api(`/containers/${box.containerId}/raw_events`, { key: account.key })).text();
    expect(readAfter).toBe(readBefore);
  });

  it("looks at most `limit` objects a run and resumes where the last run stopped", async () => {
    await drainArchive();
    const account = await createAccount();
    const { orphan } = await crashedBox(env.DB, account.accountId);
    const total = (await keysUnder("archive/")).length;
    const reports = await sweepPass(Date.now() + ARCHIVE_ORPHAN_GRACE_MS + 60_000, 2);
    expect(reports.every((r) => r.listed <= 2)).toBe(true);
    expect(reports.reduce((n, r) => n + r.listed, 0)).toBe(total);
    expect(reports.length).toBeGreaterThanOrEqual(Math.ceil(total / 2));
    expect(reports.reduce((n, r) => n + r.deleted, 0)).toBe(1);
    expect(await keysUnder(orphan)).toEqual([]);
    // The pass ended: the stored cursor is "", so the next run starts over.
    const cursor = await env.DB.prepare("SELECT cursor FROM maintenance_cursors WHERE name = ?1")
      .bind(ARCHIVE_OBJECTS_CURSOR)
      .first<{ cursor: string }>();
    expect(cursor?.cursor).toBe("");
  });

  it("keeps an object only shard 1's manifest names; deletes shard 1's orphan; the cron runs it", async () => {
    const shard1 = await prepareSecondShard();
    await drainArchive();
    await drainArchive(shard1);
    const onShard1 = await createAccountOnShard(1, "Shard one");
    const { orphan } = await crashedBox(shard1, onShard1.accountId);
    const named = await recorded(shard1);
    expect(named.length).toBeGreaterThanOrEqual(2);
    // The primary's manifest names none of them: only shard 1's does.
    expect((await recorded(env.DB)).filter((k) => named.includes(k))).toEqual([]);

    // The every-minute cron's step, a day and more later, on a pass started afresh (every object fits one slice).
    await restartPass();
    const later = new FakeClock(Date.now() + ARCHIVE_ORPHAN_GRACE_MS + 60_000);
    const result = await runArchiveCron(env, later);
    expect(result.orphans).toMatchObject({ deleted: 1, passEnded: true });
    const left = new Set(await keysUnder("archive/"));
    expect(left.has(orphan)).toBe(false);
    expect(named.filter((k) => !left.has(k))).toEqual([]);
    expect((await recorded(env.DB)).filter((k) => !left.has(k))).toEqual([]);
  });
});
