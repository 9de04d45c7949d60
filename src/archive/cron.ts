import { sweptShards } from "../db/shard-sweeps";
import { allShards } from "../db/shards";
import type { Clock } from "../lib/clock";
import { archiveConfigOf } from "./config";
import { type ArchiveRunResult, runArchive } from "./job";
import { type ArchiveOrphanSweepReport, sweepOrphanArchiveObjects } from "./orphans";

/** What one cron step did: each shard's archive run (or its error), then the orphan sweep's slice (or its error). */
export interface ArchiveCronResult {
  shards: { shard: number; result?: ArchiveRunResult; error?: string }[];
  orphans: ArchiveOrphanSweepReport | { error: string };
}

/** An error's message, for the log and the result. */
function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * The every-minute cron's retention step (src/index.ts): `runArchive` for every shard (`allShards`: `DB`, `DB_1`, …),
 * one after another so a run's R2 and D1 work stays bounded, then one slice of the sweep of archive objects no
 * manifest names (`sweepOrphanArchiveObjects`, src/archive/orphans.ts), against the manifests of every shard holding
 * accounts (`sweptShards`). A shard whose run fails, or a failed sweep, is logged and left to the next minute; the
 * rest still runs.
 */
export async function runArchiveCron(env: Env, clock: Clock): Promise<ArchiveCronResult> {
  const config = archiveConfigOf(env);
  const shards: ArchiveCronResult["shards"] = [];
  for (const { shard, d1 } of allShards(env)) {
    try {
      shards.push({ shard, result: await runArchive({ d1, bucket: env.ARCHIVE_BUCKET, clock, config }) });
    } catch (error) {
      const message = messageOf(error);
      console.error(`archive: shard ${shard}: ${message}`);
      shards.push({ shard, error: message });
    }
  }
  let orphans: ArchiveCronResult["orphans"];
  try {
    orphans = await sweepOrphanArchiveObjects({
      primary: env.DB,
      shards: (await sweptShards(env)).map((s) => s.d1),
      bucket: env.ARCHIVE_BUCKET,
      clock,
    });
  } catch (error) {
    orphans = { error: messageOf(error) };
    console.error(`archive: orphan sweep: ${orphans.error}`);
  }
  return { shards, orphans };
}
