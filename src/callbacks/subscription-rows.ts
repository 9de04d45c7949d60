import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { upstreamSubscriptions } from "../db/schema";

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
