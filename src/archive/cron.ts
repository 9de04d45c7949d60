import { allShards } from "../db/shards";
import type { Clock } from "../lib/clock";
import { archiveConfigOf } from "./config";
import { type ArchiveRunResult, runArchive } from "./job";

/**
 * The every-minute cron's retention step (src/index.ts): `runArchive` for every shard (`allShards`: `DB`, `DB_1`, …),
 * one after another so a run's R2 and D1 work stays bounded. A shard whose run fails is logged and left to the next
 * minute; the others still run.
 * @returns each shard's result, or its error message.
 */
export async function runArchiveCron(
  env: Env,
  clock: Clock,
): Promise<{ shard: number; result?: ArchiveRunResult; error?: string }[]> {
  const config = archiveConfigOf(env);
  const out: { shard: number; result?: ArchiveRunResult; error?: string }[] = [];
  for (const { shard, d1 } of allShards(env)) {
    try {
      out.push({ shard, result: await runArchive({ d1, bucket: env.ARCHIVE_BUCKET, clock, config }) });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      console.error(`archive: shard ${shard}: ${message}`);
      out.push({ shard, error: message });
    }
  }
  return out;
}
