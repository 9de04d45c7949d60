import { env } from "cloudflare:test";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { trackingRequests } from "../../src/db/schema";
import { newId } from "../../src/lib/ids";
import { trackingRequestDraft } from "../../src/tracking/persist";
import type { TrackingRequestRow } from "../../src/tracking-requests/serializer";
import { batchWithNotifications, type NotificationDraft } from "../../src/webhooks/outbox";
import { createAccount, type TestAccount } from "../helpers/api";
import { insertWebhook, notificationsOf } from "../helpers/receiver";

// batchWithNotifications' one-round-trip path (src/webhooks/outbox.ts): with no active webhook subscribed to the
// events, the change goes in one batch with a guard; a subscriber trips the guard (the batch rolls back) and the change
// is written with its notifications instead. Either way the rows are those of reading the webhooks first.

const NOW = "2031-04-01T00:00:00Z";
const EVENT = "tracking_request.failed";

/** A pending request of `account` for `number` (scac TEST). */
function requestRow(accountId: string, number: string, id = newId()): TrackingRequestRow {
  return {
    id,
    accountId,
    requestType: "bill_of_lading",
    requestNumber: number,
    normalizedNumber: number,
    compactNumber: number.replace(/[\s-]/g, ""),
    scac: "TEST",
    lineScac: "TEST",
    autoDetectScac: false,
    refNumbers: [],
    shipmentTags: [],
    status: "pending",
    failedReason: null,
    isRetrying: false,
    retryCount: null,
    customerId: null,
    shipmentId: null,
    initialCustomFields: null,
    nextAttemptAt: null,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

async function insertRequestOf(account: TestAccount, number: string) {
  const row = requestRow(account.accountId, number);
  await createDatabase(env.DB).insert(trackingRequests).values(row);
  return row;
}

/** Marks the request failed and announces it, as recordLookupFailures does for one request. */
async function failAndAnnounce(account: TestAccount, number: string) {
  const db = createDatabase(env.DB);
  const request = await insertRequestOf(account, number);
  const after = { ...request, status: "failed", failedReason: "not_found", updatedAt: NOW };
  let built = 0;
  const ids = await batchWithNotifications(
    db,
    undefined,
    [
      db
        .update(trackingRequests)
        .set({ status: "failed", failedReason: "not_found", updatedAt: NOW })
        .where(eq(trackingRequests.id, request.id)),
    ],
    { accountId: account.accountId, events: [EVENT], nowIso: NOW },
    async (): Promise<NotificationDraft[]> => {
      built++;
      return [trackingRequestDraft(EVENT, after, {}, NOW)];
    },
  );
  const stored = await env.DB.prepare("SELECT status FROM tracking_requests WHERE id = ?1")
    .bind(request.id)
    .first<{ status: string }>();
  return { ids, built, status: stored?.status, requestId: request.id };
}

describe("batchWithNotifications: the guarded one-batch path", () => {
  it("no webhook: the change is written, nothing is built or announced", async () => {
    const account = await createAccount();
    const r = await failAndAnnounce(account, "GUARD-NONE");
    expect(r).toMatchObject({ ids: [], built: 0, status: "failed" });
  });

  it("a webhook of other events, an inactive one and another account's: still none", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const unsubscribed = await insertWebhook(account, { events: ["container.transport.vessel_arrived"] });
    const inactive = await insertWebhook(account, { events: [EVENT], active: false });
    const elsewhere = await insertWebhook(other, { events: [EVENT] });
    const r = await failAndAnnounce(account, "GUARD-OTHERS");
    expect(r).toMatchObject({ ids: [], built: 0, status: "failed" });
    for (const w of [unsubscribed, inactive, elsewhere]) expect(await notificationsOf(w.id)).toEqual([]);
  });

  it("a subscribed webhook trips the guard: the change and its notification are written together", async () => {
    const account = await createAccount();
    const hook = await insertWebhook(account, { events: ["container.transport.vessel_arrived", EVENT] });
    const first = await failAndAnnounce(account, "GUARD-SUBSCRIBED-1");
    expect(first.status).toBe("failed");
    expect(first.built).toBe(1);
    expect(first.ids).toHaveLength(1);
    // The isolate now goes to the webhooks first for this account: the same rows.
    const second = await failAndAnnounce(account, "GUARD-SUBSCRIBED-2");
    expect(second.ids).toHaveLength(1);
    const rows = await notificationsOf(hook.id);
    expect(rows.map((n) => [n.event, n.reference_object_id]).sort()).toEqual(
      [
        [EVENT, first.requestId],
        [EVENT, second.requestId],
      ].sort(),
    );
  });

  it("a statement that fails in the guarded batch fails the call and writes nothing (no retry, no guard confusion)", async () => {
    const account = await createAccount();
    const db = createDatabase(env.DB);
    const request = await insertRequestOf(account, "GUARD-FAILS");
    const duplicate = requestRow(account.accountId, "GUARD-FAILS-2", request.id);
    await expect(
      batchWithNotifications(
        db,
        undefined,
        [
          db
            .update(trackingRequests)
            .set({ status: "failed", updatedAt: NOW })
            .where(eq(trackingRequests.id, request.id)),
          db.insert(trackingRequests).values(duplicate),
        ],
        { accountId: account.accountId, events: [EVENT], nowIso: NOW },
        async () => [],
      ),
    ).rejects.toThrow(/UNIQUE|PRIMARY|constraint/i);
    const stored = await env.DB.prepare("SELECT status FROM tracking_requests WHERE id = ?1")
      .bind(request.id)
      .first<{ status: string }>();
    expect(stored?.status).toBe("pending");
  });
});
