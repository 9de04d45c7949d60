import { and, eq, isNull, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { trackedEquipment, upstreamCallbackReceipts, upstreamSubscriptions } from "../db/schema";
import { toHex } from "../lib/crypto";

/** An `upstream_subscriptions` row as read. */
export type UpstreamSubscriptionRow = typeof upstreamSubscriptions.$inferSelect;

/** Which subscription a row is: its provider (`dcsa:{SCAC}`, `port_of_virginia:{number}`) and reference. */
export interface SubscriptionKey {
  provider: string;
  scac: string;
  referenceType: string;
  referenceNumber: string;
}

/** The fields written when a subscription is (re)started, before the provider is asked. */
export interface CreatingSubscription {
  callbackUrl: string;
  secretCiphertext: string;
  status: "creating";
  upstreamId: null;
  lastError: null;
  deletedAt: null;
  /** UTC ISO, second precision. */
  updatedAt: string;
}

/** The row of one provider's subscription to one reference, if there is one. */
export async function findSubscriptionRow(
  db: Database,
  key: Omit<SubscriptionKey, "scac">,
): Promise<UpstreamSubscriptionRow | undefined> {
  const [existing] = await db
    .select()
    .from(upstreamSubscriptions)
    .where(
      and(
        eq(upstreamSubscriptions.provider, key.provider),
        eq(upstreamSubscriptions.referenceType, key.referenceType),
        eq(upstreamSubscriptions.referenceNumber, key.referenceNumber),
      ),
    )
    .limit(1);
  return existing;
}

/**
 * Claims subscription `id` for a (re)start by writing `row`: an `existing` row is taken over only from the state it
 * was read in, a new one inserted (with `key` and `createdAt` = `row.updatedAt`) only if no other got there first.
 * True when this caller won and should ask the provider; false when a concurrent lookup did.
 */
export async function claimSubscriptionRow(
  db: Database,
  id: string,
  existing: UpstreamSubscriptionRow | undefined,
  key: SubscriptionKey,
  row: CreatingSubscription,
): Promise<boolean> {
  if (existing) {
    const taken = await db
      .update(upstreamSubscriptions)
      .set(row)
      .where(and(eq(upstreamSubscriptions.id, id), eq(upstreamSubscriptions.status, existing.status)))
      .returning({ id: upstreamSubscriptions.id });
    return taken.length > 0;
  }
  const inserted = await db
    .insert(upstreamSubscriptions)
    .values({ id, ...key, createdAt: row.updatedAt, ...row })
    .onConflictDoNothing()
    .returning({ id: upstreamSubscriptions.id });
  return inserted.length > 0;
}

/** Subscription `id` was created at the provider (id `upstreamId`): `active`. `at`: UTC ISO, second precision. */
export async function markSubscriptionActive(db: Database, id: string, upstreamId: string, at: string): Promise<void> {
  await db
    .update(upstreamSubscriptions)
    .set({ status: "active", upstreamId, updatedAt: at })
    .where(eq(upstreamSubscriptions.id, id));
}

/** The provider refused or failed to create subscription `id`: `failed`, with `error` (never a secret) kept. */
export async function markSubscriptionFailed(db: Database, id: string, error: string, at: string): Promise<void> {
  await db
    .update(upstreamSubscriptions)
    .set({ status: "failed", lastError: error, updatedAt: at })
    .where(eq(upstreamSubscriptions.id, id));
}

/** Subscription `id` is gone at the provider (or never existed there): `deleted`, its last error cleared. */
export async function markSubscriptionDeleted(db: Database, id: string, at: string): Promise<void> {
  await db
    .update(upstreamSubscriptions)
    .set({ status: "deleted", deletedAt: at, lastError: null, updatedAt: at })
    .where(eq(upstreamSubscriptions.id, id));
}

/** Deleting subscription `id` at the provider failed: the row keeps its state, with `error` for the next sweep. */
export async function noteSubscriptionDeleteFailure(
  db: Database,
  id: string,
  error: string,
  at: string,
): Promise<void> {
  await db
    .update(upstreamSubscriptions)
    .set({ lastError: error, updatedAt: at })
    .where(eq(upstreamSubscriptions.id, id));
}

/** A callback body read as the JSON it must be: its text and value, or null when it is not UTF-8 JSON. */
export function parseCallbackJson(body: Uint8Array): { text: string; value: unknown } | null {
  try {
    const text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(body);
    return { text, value: JSON.parse(text) };
  } catch {
    return null;
  }
}

/**
 * Keeps an accepted callback of subscription `row` and finds the boxes it covers, in ONE D1 round trip: the receipt
 * (`upstream_callback_receipts`, keyed by the body's SHA-256, so the same body again writes nothing: a replay), the
 * subscription's `last_callback_at` / `callback_count` only when the receipt was written (`changes()` of the insert,
 * same batch), and the live boxes (`tracked_equipment` of `scac` not stopped) whose `column` equals `value` (the
 * reference a DCSA subscription covers, or the container number of a Port of Virginia one).
 * @returns null for a replay (nothing written), else the container numbers to poll now.
 */
export async function acceptCallback(
  db: Database,
  row: Pick<UpstreamSubscriptionRow, "id">,
  callback: { body: Uint8Array; text: string; eventCount: number; at: string },
  boxes: { scac: string; column: "shipmentNumber" | "number"; value: string },
): Promise<string[] | null> {
  const digest = toHex(new Uint8Array(await crypto.subtle.digest("SHA-256", callback.body)));
  const [accepted, , live] = await db.batch([
    db
      .insert(upstreamCallbackReceipts)
      .values({
        subscriptionId: row.id,
        bodySha256: digest,
        body: callback.text,
        eventCount: callback.eventCount,
        receivedAt: callback.at,
      })
      .onConflictDoNothing()
      .returning({ id: upstreamCallbackReceipts.subscriptionId }),
    db
      .update(upstreamSubscriptions)
      .set({ lastCallbackAt: callback.at, callbackCount: sql`${upstreamSubscriptions.callbackCount} + 1` })
      .where(and(eq(upstreamSubscriptions.id, row.id), sql`changes() = 1`)),
    db
      .select({ number: trackedEquipment.number })
      .from(trackedEquipment)
      .where(
        and(
          eq(trackedEquipment.scac, boxes.scac),
          eq(trackedEquipment[boxes.column], boxes.value),
          isNull(trackedEquipment.stoppedAt),
        ),
      ),
  ]);
  return accepted.length === 0 ? null : live.map((b) => b.number);
}
