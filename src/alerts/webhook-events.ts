import { inArray } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type ContainerRow, serializeContainer } from "../containers/serializer";
import { createDatabase } from "../db/client";
import { containers, webhookNotifications } from "../db/schema";
import { shardD1 } from "../db/shards";
import { toIsoSeconds } from "../lib/clock";
import {
  enqueueNotifications,
  loadActiveWebhooks,
  type NotificationDraft,
  notificationInserts,
} from "../webhooks/outbox";
import { type AlertCharges, chargesOfBoxes } from "./charges";
import { isOut } from "./conditions";

/**
 * The charges extension webhook events (issue 27 §1; docs/webhooks.md §Extension events), sent by the cron to
 * webhooks that list them:
 * - `container.free_time.ending_soon`: the free time of a box still at the terminal ends within 24 hours (the end of
 *   its last free day, local midnight where it is picked up);
 * - `container.charges.started`: that moment has passed and the box is still not out: demurrage accrues.
 * Reference object: the container (in `included`, as it stands). Once per box, event and LFD value in force (the
 * terminal's, else the tariff's calculated one): the notification's dedup key carries the LFD, so a new LFD is news
 * again.
 */
export const CHARGES_WEBHOOK_EVENTS = ["container.free_time.ending_soon", "container.charges.started"] as const;

/** Boxes the cron looks at per run for these events (the rest wait a minute). */
const BOXES_PER_RUN = 200;

/**
 * Which of {@link CHARGES_WEBHOOK_EVENTS} a box is in at `nowMs`, or null. Pure. The free time's end and whether
 * demurrage accrues are the tariff calculator's (`charges`, src/alerts/charges.ts): the terminal's LFD when reported,
 * else the matching tariff's; `charges.started` once the calculator says the box accrues.
 */
export function chargesEventOf(
  c: Pick<ContainerRow, "podFullOutAt" | "finalDestinationFullOutAt" | "emptyTerminatedAt">,
  charges: AlertCharges | undefined,
  nowMs: number,
): (typeof CHARGES_WEBHOOK_EVENTS)[number] | null {
  const line = charges?.demurrage;
  if (!line || line.stopped || isOut(c) || c.emptyTerminatedAt) return null;
  if (line.accruing) return "container.charges.started";
  const ends = line.freeTimeEndsAtMs;
  if (ends === null || nowMs >= ends) return null;
  return ends - nowMs <= 86_400_000 ? "container.free_time.ending_soon" : null;
}

/**
 * Writes the charges events due now for webhooks subscribed to them (at most {@link BOXES_PER_RUN} boxes a run,
 * those not yet announced for their LFD first), and enqueues them. Candidates are a cheap superset: boxes with a
 * terminal LFD near today not yet announced as accruing for it, then boxes without one, discharged, of an account
 * with a demurrage or combined tariff, whose calculated LFD can be near (discharge + the fewest free days) and not
 * announced as accruing since the box or the tariffs last changed; the calculator decides.
 * One shard a call (`shard`, the primary by default: src/db/shards.ts).
 * @returns how many notifications were written.
 */
export async function chargesWebhookEvents(
  env: Pick<Env, "DB"> & Partial<Pick<Env, "WEBHOOK_DELIVERIES_QUEUE">>,
  nowMs: number,
  shard = 0,
): Promise<number> {
  const d1 = shardD1(env as Env, shard);
  const today = toIsoSeconds(nowMs).slice(0, 10);
  const subscribed = `w.active = 1
        AND EXISTS (SELECT 1 FROM json_each(w.events) e WHERE e.value IN ('container.free_time.ending_soon', 'container.charges.started'))
        AND c.pod_full_out_at IS NULL AND c.final_destination_full_out_at IS NULL AND c.empty_terminated_at IS NULL`;
  const started = "n.webhook_id = w.id AND n.event = 'container.charges.started' AND n.reference_object_id = c.id";
  const pickupTariffs = "t.account_id = c.account_id AND t.kind IN ('demurrage', 'combined')";
  const { results } = await d1
    .prepare(
      `SELECT id FROM (
      SELECT DISTINCT c.id AS id, 0 AS calculated, c.pickup_lfd_terminal AS lfd
        FROM webhooks w JOIN containers c ON c.account_id = w.account_id
        WHERE ${subscribed} AND c.pickup_lfd_terminal IS NOT NULL
          AND date(c.pickup_lfd_terminal) <= date(?1, '+2 days')
          AND NOT EXISTS (SELECT 1 FROM webhook_notifications n WHERE ${started}
            AND instr(n.payload, '"pickup_lfd_terminal":"' || c.pickup_lfd_terminal || '"') > 0)
      UNION
      SELECT DISTINCT c.id, 1, c.pod_discharged_at
        FROM webhooks w JOIN containers c ON c.account_id = w.account_id
        WHERE ${subscribed} AND c.pickup_lfd_terminal IS NULL AND c.pod_discharged_at IS NOT NULL
          AND date(c.pod_discharged_at, '+' || (SELECT MIN(t.free_days) FROM tariffs t WHERE ${pickupTariffs}) || ' days')
            <= date(?1, '+2 days')
          AND NOT EXISTS (SELECT 1 FROM webhook_notifications n WHERE ${started} AND n.created_at >= c.updated_at
            AND n.created_at >= COALESCE((SELECT MAX(t.updated_at) FROM tariffs t WHERE ${pickupTariffs}), ''))
    ) ORDER BY calculated, lfd DESC LIMIT ?2`,
    )
    .bind(today, BOXES_PER_RUN)
    .all<{ id: string }>();
  if (results.length === 0) return 0;
  const db = createDatabase(d1);
  const rows = [];
  for (let i = 0; i < results.length; i += 80) {
    rows.push(
      ...(await db
        .select()
        .from(containers)
        .where(
          inArray(
            containers.id,
            results.slice(i, i + 80).map((r) => r.id),
          ),
        )),
    );
  }
  const charges = await chargesOfBoxes(db, rows, nowMs);
  const nowIso = toIsoSeconds(nowMs);
  const drafts: NotificationDraft[] = rows.flatMap((c) => {
    const event = chargesEventOf(c, charges.get(c.id), nowMs);
    const lfd = charges.get(c.id)?.demurrage?.lastFreeDay;
    if (!event || !lfd) return [];
    return [
      {
        accountId: c.accountId,
        event,
        reference: { id: c.id, type: "container" },
        dedupKey: `${event}:${c.id}:${lfd}`,
        createdAt: nowIso,
        included: () => [serializeContainer(c)],
      },
    ];
  });
  if (drafts.length === 0) return 0;
  const targets = await loadActiveWebhooks(db, [...new Set(drafts.map((d) => d.accountId))]);
  const { statements, ids } = await notificationInserts(db, targets, drafts, nowIso);
  // A box stays in the window for up to a day after its `ending_soon`: only notifications not written yet are news.
  const existing = new Set<string>();
  for (let i = 0; i < ids.length; i += 80) {
    const chunk = ids.slice(i, i + 80);
    for (const r of await db
      .select({ id: webhookNotifications.id })
      .from(webhookNotifications)
      .where(inArray(webhookNotifications.id, chunk))) {
      existing.add(r.id);
    }
  }
  const fresh = ids.filter((id) => !existing.has(id));
  if (fresh.length === 0) return 0;
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  if (env.WEBHOOK_DELIVERIES_QUEUE) await enqueueNotifications(env.WEBHOOK_DELIVERIES_QUEUE, fresh, undefined, shard);
  return fresh.length;
}
