import { inArray } from "drizzle-orm";
import { createDatabase, type Database } from "../../db/client";
import { vessels as vesselsTable } from "../../db/schema";
import { sweptShards } from "../../db/shard-sweeps";
import { deleteExpiredPositions } from "../position-store";
import { MAX_TRACKED_VESSELS, trackedVessels } from "../tracked-vessels";
import { AIS_FEED_NAME, type AisFeedStatus, aisFeedConfig } from "./ais-feed";
import type { TrackedVessel } from "./source";

/**
 * {@link trackedVessels} over every shard holding accounts (issue 29 §3): the boxes are account rows, in their
 * account's shard, while the `vessels` rows (MMSI, name) are in the primary. The union by IMO number, each vessel
 * with the primary's MMSI and name, at most {@link MAX_TRACKED_VESSELS} by IMO number. One query per shard, and one
 * more of the primary's vessels when another shard names a vessel the primary's boxes do not.
 */
export async function trackedVesselsOfShards(
  primary: Database,
  otherShards: readonly Database[],
): Promise<TrackedVessel[]> {
  const byImo = new Map<string, TrackedVessel>();
  for (const v of await trackedVessels(primary)) byImo.set(v.imo, v);
  const missing = new Set<string>();
  for (const shard of otherShards) {
    for (const v of await trackedVessels(shard)) {
      if (!byImo.has(v.imo)) missing.add(v.imo);
    }
  }
  const imos = [...missing];
  for (let i = 0; i < imos.length; i += 80) {
    const chunk = imos.slice(i, i + 80);
    const known = await primary
      .select({ imo: vesselsTable.imo, mmsi: vesselsTable.mmsi, name: vesselsTable.name })
      .from(vesselsTable)
      .where(inArray(vesselsTable.imo, chunk));
    const found = new Map(known.map((k) => [k.imo, k]));
    for (const imo of chunk) {
      const k = found.get(imo);
      byImo.set(imo, { imo, mmsi: k?.mmsi ?? null, name: k?.name ?? null });
    }
  }
  return [...byImo.values()].sort((a, b) => (a.imo < b.imo ? -1 : a.imo > b.imo ? 1 : 0)).slice(0, MAX_TRACKED_VESSELS);
}

/**
 * The cron's part in vessel positions (docs/architecture.md §Vessel positions), every minute: deletes positions past
 * their retention, and, when an AIS key is configured, tells the AisFeed object which vessels carry a tracked box
 * (src/vessels/tracked-vessels.ts; in every shard, {@link trackedVesselsOfShards}), so its subscription follows that set. Without a key nothing is followed and
 * nothing connects. @returns the feed's status after the update, or null without a key.
 */
export async function syncVesselPositions(
  env: Pick<Env, "DB" | "AIS_FEED" | "AISSTREAM_API_KEY" | "AISSTREAM_URL">,
  nowMs: number,
): Promise<AisFeedStatus | null> {
  const db = createDatabase(env.DB);
  await deleteExpiredPositions(db, nowMs);
  if (!aisFeedConfig(env).apiKey) return null;
  const shards = await sweptShards(env as Env);
  const vessels = await trackedVesselsOfShards(
    db,
    shards.slice(1).map((s) => s.db),
  );
  const status = await env.AIS_FEED.get(env.AIS_FEED.idFromName(AIS_FEED_NAME)).follow(vessels);
  // One line a minute for operators (and `npm run bench -- ais`, which reads it): counts only, never the key.
  console.log(
    `AIS feed status ${JSON.stringify({
      followed: status.followed,
      subscriptions: status.subscriptions.length,
      openSockets: status.openSockets,
      buffered: status.buffered,
      ...status.counters,
    })}`,
  );
  return status;
}
