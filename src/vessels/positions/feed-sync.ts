import { createDatabase } from "../../db/client";
import { deleteExpiredPositions } from "../position-store";
import { trackedVessels } from "../tracked-vessels";
import { AIS_FEED_NAME, type AisFeedStatus, aisFeedConfig } from "./ais-feed";

/**
 * The cron's part in vessel positions (docs/architecture.md §Vessel positions), every minute: deletes positions past
 * their retention, and, when an AIS key is configured, tells the AisFeed object which vessels carry a tracked box
 * (src/vessels/tracked-vessels.ts), so its subscription follows that set. Without a key nothing is followed and
 * nothing connects. @returns the feed's status after the update, or null without a key.
 */
export async function syncVesselPositions(
  env: Pick<Env, "DB" | "AIS_FEED" | "AISSTREAM_API_KEY" | "AISSTREAM_URL">,
  nowMs: number,
): Promise<AisFeedStatus | null> {
  const db = createDatabase(env.DB);
  await deleteExpiredPositions(db, nowMs);
  if (!aisFeedConfig(env).apiKey) return null;
  const vessels = await trackedVessels(db);
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
