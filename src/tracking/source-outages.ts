import { and, eq, inArray, isNull } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { sourceOutageAccounts, sourceOutages, webhooks } from "../db/schema";
import { primaryDb, shardDb } from "../db/shards";
import { newId } from "../lib/ids";
import type { ResourceObject } from "../lib/jsonapi/types";
import type { ExtensionWebhookEvent } from "../webhooks/catalog";
import {
  activeWebhooksQuery,
  loadActiveWebhooks,
  type NotificationDraft,
  notificationInserts,
  type WebhookTarget,
} from "../webhooks/outbox";
import { forEachShard, groupAccountsByShard } from "./shard-groups";

/**
 * Telling an account once per outage that a tracking source refused our credentials (issue 13 §1: "the account gets
 * it once per outage, not once per poll").
 *
 * Why a webhook event of our own: the reference's catalog (docs/webhooks.md §Events) has nothing for it.
 * `tracking_request.failed` is about a request that will not be tracked, while here tracking goes on and the data only
 * goes stale; a `container.updated` changeset would tell each box apart (hundreds of notices for one broken key) and
 * puts an unknown field in front of reference clients. What a user needs is one notice per account naming the source
 * and when it stopped answering, and one when it works again: `source_outage.started` / `source_outage.resolved`, sent
 * only to webhooks that list them (src/webhooks/catalog.ts `EXTENSION_WEBHOOK_EVENTS`), with a `source_outage`
 * reference object. Each box keeps showing its own state meanwhile (`line_tracking_failed_reason`,
 * `terminal_/rail_tracking_failed_reason`).
 *
 * How "once" holds: the first box whose poll finds a source refusing opens the source's outage (`source_outages`,
 * one open per source by a partial unique index), every other box joins it, and each account is registered once per
 * outage (`source_outage_accounts`), its notification id derived from the outage (so a replay writes it once). A box
 * reports only changes of its own view of the source (the Tracker compares with its previous poll), so a poll that
 * changes nothing writes nothing here. The first answer of the source after that closes the outage and tells the
 * registered accounts; a later refusal opens a new outage and tells them again.
 */

/** What kind of source an outage is of: a shipping line (by SCAC) or a terminal / rail ramp (by facility code). */
export type OutageSourceType = "shipping_line" | "terminal";

/** A source, as outages name it. */
export interface OutageSource {
  sourceType: OutageSourceType;
  /** The line's SCAC, or the facility code of the POD terminal or rail ramp (CBP FIRMS or reference data code). */
  sourceCode: string;
}

/** A `source_outages` row. */
export type SourceOutageRow = typeof sourceOutages.$inferSelect;

/**
 * The `source_outage` resource a notification carries (its reference object, in `included`): `source_type`,
 * `source_code`, `reason` (`shipping_line_credentials_rejected` / `terminal_credentials_rejected`), `started_at`
 * and `resolved_at` (UTC ISO seconds; null while open).
 */
export function sourceOutageResource(row: SourceOutageRow): ResourceObject {
  return {
    id: row.id,
    type: "source_outage",
    attributes: {
      source_type: row.sourceType,
      source_code: row.sourceCode,
      reason: row.reason,
      started_at: row.startedAt,
      resolved_at: row.resolvedAt,
    },
  };
}

/**
 * The operator's log line of an outage, written once per outage by the box that opened it (issue 13 §1: reported
 * once per outage, not once per box or poll): which source refused our credentials since when, the config to fix
 * (`DCSA_SOURCES` for a shipping line, `TERMINAL_SOURCES` for a terminal or ramp), and the box and shipments that
 * found it first. No secret: the line names codes and ids only.
 * @param firstBox the container number and shipment ids of the box that opened the outage.
 */
export function outageLogLine(
  outage: SourceOutageRow,
  firstBox: { number: string; shipmentIds: readonly string[] },
): string {
  const [what, config] =
    outage.sourceType === "terminal"
      ? [`terminal ${outage.sourceCode}`, "TERMINAL_SOURCES"]
      : [outage.sourceCode, "DCSA_SOURCES"];
  const shipments = [...new Set(firstBox.shipmentIds)].join(", ");
  return (
    `tracking: ${what} refused our credentials (${outage.reason}) since ${outage.startedAt}, first for ` +
    `${firstBox.number} (shipments ${shipments}); check ${config}. Polling backs off until it accepts them; ` +
    `logged once per outage (source_outages ${outage.id}).`
  );
}

function drafts(
  event: ExtensionWebhookEvent,
  outage: SourceOutageRow,
  accountIds: readonly string[],
  nowIso: string,
): NotificationDraft[] {
  return accountIds.map((accountId) => ({
    accountId,
    event,
    reference: { id: outage.id, type: "source_outage" },
    dedupKey: `${event}:${outage.id}`,
    createdAt: nowIso,
    included: () => [sourceOutageResource(outage)],
  }));
}

/** Notification ids written in one shard, to enqueue (with the shard) once committed. */
export interface ShardNotifications {
  shard: number;
  ids: string[];
}

/**
 * What {@link joinSourceOutage} did: `opened` is the outage when this box opened it (exactly one box per outage gets
 * it, so the caller logs the outage once, not once per box: issue 13 §1), null when it joined an open one;
 * `notifications` are the `source_outage.started` notifications written, per shard, to enqueue once committed.
 */
export interface JoinedOutage {
  opened: SourceOutageRow | null;
  notifications: ShardNotifications[];
}

/**
 * The `source_outage.*` notifications of `accountIds` on the shards other than the primary: per shard, one read of
 * its accounts' active webhooks and one batch of inserts (issue 29 §3: notifications live in each account's shard).
 */
async function notifyOtherShards(
  env: Env,
  groups: { shard: number; accountIds: string[] }[],
  event: ExtensionWebhookEvent,
  outage: SourceOutageRow,
  nowIso: string,
): Promise<ShardNotifications[]> {
  const done = await forEachShard(
    groups.filter((g) => g.shard !== 0),
    async (g) => {
      const db = shardDb(env, g.shard);
      const targets = await loadActiveWebhooks(db, g.accountIds);
      const notices = await notificationInserts(db, targets, drafts(event, outage, g.accountIds, nowIso), nowIso);
      if (notices.statements.length > 0) {
        await db.batch(notices.statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
      }
      return notices.ids;
    },
    async () => undefined,
  );
  return done.map((d) => ({ shard: d.part.shard, ids: d.result }));
}

/**
 * A box found `source` refusing our credentials (its previous poll did not): opens the source's outage unless one is
 * open, registers the accounts the box's rows belong to, and writes a `source_outage.started` notification for each
 * account not registered before (per webhook listing the event). The outage and its accounts are in the primary; the
 * notifications in each account's shard (issue 29 §3). Two D1 round trips when every account is on the primary (one
 * when all are already registered); each other shard adds two (its webhooks, its notifications), written before the
 * primary registers the accounts: a failure in between leaves the accounts unregistered, so the next box writes their
 * notifications again, which their derived ids make a no-op.
 * @param reason the source's failure reason (`shipping_line_credentials_rejected`, `terminal_credentials_rejected`).
 * @param nowIso when the box's poll ran (UTC ISO seconds): the outage's `started_at` if this opens it.
 * @returns whether this box opened the outage, and the notification ids (per shard) for the caller to enqueue.
 */
export async function joinSourceOutage(
  env: Env,
  source: OutageSource,
  reason: string,
  accountIds: readonly string[],
  nowIso: string,
): Promise<JoinedOutage> {
  const db = primaryDb(env);
  const accounts = [...new Set(accountIds)];
  const groups = await groupAccountsByShard(env, accounts);
  const onPrimary = groups.find((g) => g.shard === 0)?.accountIds ?? [];
  const open = and(
    eq(sourceOutages.sourceType, source.sourceType),
    eq(sourceOutages.sourceCode, source.sourceCode),
    isNull(sourceOutages.resolvedAt),
  );
  const [inserted, outages, registered, targets] = await db.batch([
    db
      .insert(sourceOutages)
      .values({ id: newId(), ...source, reason, startedAt: nowIso, resolvedAt: null })
      .onConflictDoNothing()
      .returning({ id: sourceOutages.id }),
    db.select().from(sourceOutages).where(open).limit(1),
    db
      .select({ accountId: sourceOutageAccounts.accountId })
      .from(sourceOutageAccounts)
      .innerJoin(sourceOutages, eq(sourceOutages.id, sourceOutageAccounts.outageId))
      .where(and(open, inArray(sourceOutageAccounts.accountId, accounts))),
    // The primary's webhooks are those of the accounts on shard 0.
    activeWebhooksQuery(db, onPrimary),
  ]);
  const outage = outages[0];
  if (!outage) return { opened: null, notifications: [] };
  const opened = inserted.some((row) => row.id === outage.id) ? outage : null;
  const known = new Set(registered.map((r) => r.accountId));
  const joining = new Set(accounts.filter((a) => !known.has(a)));
  if (joining.size === 0) return { opened, notifications: [] };
  const joiningGroups = groups
    .map((g) => ({ shard: g.shard, accountIds: g.accountIds.filter((a) => joining.has(a)) }))
    .filter((g) => g.accountIds.length > 0);
  const notifications = await notifyOtherShards(env, joiningGroups, "source_outage.started", outage, nowIso);
  const notices = await notificationInserts(
    db,
    targets,
    drafts(
      "source_outage.started",
      outage,
      onPrimary.filter((a) => joining.has(a)),
      nowIso,
    ),
    nowIso,
  );
  const statements: BatchItem<"sqlite">[] = [
    ...[...joining].map((accountId) =>
      db
        .insert(sourceOutageAccounts)
        .values({ outageId: outage.id, accountId, createdAt: nowIso })
        .onConflictDoNothing(),
    ),
    ...notices.statements,
  ];
  await db.batch(statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
  if (notices.ids.length > 0) notifications.unshift({ shard: 0, ids: notices.ids });
  return { opened, notifications };
}

/**
 * A box found `source` answering again after it had refused our credentials: closes the source's open outage (if a
 * box has not already) and writes a `source_outage.resolved` notification for each account registered in it (per
 * webhook listing the event), in each account's shard. Up to three D1 round trips with every account on the primary,
 * only when an outage was open, and two more per other shard; returns the notification ids (per shard) for the caller
 * to enqueue once they are committed.
 * @param nowIso when the box's poll ran (UTC ISO seconds): the outage's `resolved_at`.
 */
export async function resolveSourceOutage(
  env: Env,
  source: OutageSource,
  nowIso: string,
): Promise<ShardNotifications[]> {
  const db = primaryDb(env);
  const [outage] = await db
    .update(sourceOutages)
    .set({ resolvedAt: nowIso })
    .where(
      and(
        eq(sourceOutages.sourceType, source.sourceType),
        eq(sourceOutages.sourceCode, source.sourceCode),
        isNull(sourceOutages.resolvedAt),
      ),
    )
    .returning();
  if (!outage) return [];
  const accountIds = db
    .select({ accountId: sourceOutageAccounts.accountId })
    .from(sourceOutageAccounts)
    .where(eq(sourceOutageAccounts.outageId, outage.id));
  const [accounts, targets] = await db.batch([
    accountIds,
    // The primary's webhooks are those of the accounts on shard 0.
    db
      .select({ id: webhooks.id, accountId: webhooks.accountId, events: webhooks.events })
      .from(webhooks)
      .where(and(inArray(webhooks.accountId, accountIds), eq(webhooks.active, true))),
  ]);
  const groups = await groupAccountsByShard(
    env,
    accounts.map((a) => a.accountId),
  );
  const notifications = await notifyOtherShards(env, groups, "source_outage.resolved", outage, nowIso);
  const notices = await notificationInserts(
    db,
    targets as WebhookTarget[],
    drafts("source_outage.resolved", outage, groups.find((g) => g.shard === 0)?.accountIds ?? [], nowIso),
    nowIso,
  );
  if (notices.statements.length > 0) {
    await db.batch(notices.statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]]);
    notifications.unshift({ shard: 0, ids: notices.ids });
  }
  return notifications;
}
