import { sweptShards } from "../db/shard-sweeps";
import { shardCount } from "../db/shards";

/**
 * Which shard holds the row a queue message names (issue 29 §3): `webhook-deliveries` messages carry the shard of
 * their notification (or alert) since shards exist; an older message, or one from a producer that did not know the
 * shard, is looked up in each shard holding accounts in turn (one indexed read per shard and 80 ids). With one shard nothing is read.
 */

/** A message's row id and the shard it says the row is in (anything but a known shard number counts as unsaid). */
export interface ShardedId {
  id: string;
  shard?: unknown;
}

/** Tables whose rows `webhook-deliveries` messages name. */
export type MessageTable = "webhook_notifications" | "alerts";

const IDS_PER_READ = 80;

/**
 * The ids of `items` grouped by the shard holding their row, in shard order. An id in no shard goes to shard 0, where
 * the consumer finds nothing and acks its message, as it always did for an unknown id.
 */
export async function idsByShard(
  env: Env,
  items: readonly ShardedId[],
  table: MessageTable,
): Promise<Map<number, string[]>> {
  const count = shardCount(env);
  const out = new Map<number, string[]>();
  const add = (shard: number, id: string) => {
    const list = out.get(shard) ?? [];
    if (!list.includes(id)) list.push(id);
    out.set(shard, list);
  };
  let unknown: string[] = [];
  for (const item of items) {
    const shard = item.shard;
    if (typeof shard === "number" && Number.isInteger(shard) && shard >= 0 && shard < count) add(shard, item.id);
    else if (count === 1) add(0, item.id);
    else unknown.push(item.id);
  }
  unknown = [...new Set(unknown)];
  for (const { shard, d1 } of unknown.length > 0 ? await sweptShards(env) : []) {
    if (unknown.length === 0) break;
    const found = new Set<string>();
    for (let i = 0; i < unknown.length; i += IDS_PER_READ) {
      const chunk = unknown.slice(i, i + IDS_PER_READ);
      const { results } = await d1
        .prepare(`SELECT id FROM ${table} WHERE id IN (${chunk.map((_, k) => `?${k + 1}`).join(", ")})`)
        .bind(...chunk)
        .all<{ id: string }>();
      for (const r of results) found.add(r.id);
    }
    for (const id of found) add(shard, id);
    unknown = unknown.filter((id) => !found.has(id));
  }
  for (const id of unknown) add(0, id);
  return new Map([...out.entries()].sort((a, b) => a[0] - b[0]));
}
