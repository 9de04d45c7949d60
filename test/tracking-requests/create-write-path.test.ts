import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { runMaintenance } from "../../src/tracking/maintenance";
import type { TrackingRequestMessage } from "../../src/tracking-requests/queue-message";
import { createTrackingRequest } from "../../src/tracking-requests/service";
import { apiJson, createAccount, type TestAccount, trackingRequestBody } from "../helpers/api";
import type { Doc, Many } from "../helpers/tracking";

// The create's one-round-trip path (src/tracking-requests/service.ts): without customer or initial custom fields the
// duplicate check is the partial unique index inside the write's batch; with them it is read first, so that it is
// reported together with their errors. And the queue message goes out after the row is durable, never failing the
// create.

async function create(account: TestAccount, attributes: Record<string, unknown>) {
  return apiJson<Doc>("/tracking_requests", { key: account.key, body: trackingRequestBody(attributes) });
}

async function storedCount(accountId: string): Promise<number | undefined> {
  const row = await env.DB.prepare(
    "SELECT count FROM account_resource_counts WHERE account_id = ?1 AND resource = 'tracking_request'",
  )
    .bind(accountId)
    .first<{ count: number }>();
  return row?.count;
}

describe("POST /tracking_requests: the write's own duplicate check", () => {
  it("a duplicate refused by the unique index writes nothing and counts nothing", async () => {
    const account = await createAccount();
    expect((await create(account, { request_number: "TEST-ONE-BATCH", scac: "TEST" })).res.status).toBe(201);
    const dup = await create(account, { request_number: "test-one-batch", scac: "test" });
    expect(dup.res.status).toBe(422);
    expect(dup.json.errors).toEqual([
      {
        status: "422",
        title: "Unprocessable Entity",
        detail:
          "Request number 'test-one-batch' with scac 'TEST' already exists in a tracking_request with a pending or created status",
        source: { pointer: "/data/attributes/request_number" },
        code: "duplicate",
      },
    ]);
    const { json } = await apiJson<Many>("/tracking_requests", { key: account.key });
    expect(json.data).toHaveLength(1);
    expect(json.meta?.total).toBe(1);
    expect(await storedCount(account.accountId)).toBe(1);
  });

  it("another line's request for the same number is no duplicate (the index is per line)", async () => {
    const account = await createAccount();
    expect((await create(account, { request_number: "TEST-PER-LINE", scac: "TEST" })).res.status).toBe(201);
    const other = await create(account, { request_number: "TEST-PER-LINE", scac: "MAEU", auto_detect_vocc_scac: true });
    expect(other.res.status).toBe(201);
    expect(await storedCount(account.accountId)).toBe(2);
  });

  it("with initial custom fields, a duplicate is reported together with their errors", async () => {
    const account = await createAccount();
    expect((await create(account, { request_number: "TEST-WITH-FIELDS", scac: "TEST" })).res.status).toBe(201);
    const { res, json } = await create(account, {
      request_number: "TEST-WITH-FIELDS",
      scac: "TEST",
      initial_custom_fields: { shipment: [{ api_slug: "no_such_field", value: "x" }] },
    });
    expect(res.status).toBe(422);
    const pointers = (json.errors ?? []).map((e) => e.source?.pointer).sort();
    expect(pointers).toEqual([
      "/data/attributes/initial_custom_fields/shipment/0/api_slug",
      "/data/attributes/request_number",
    ]);
    expect(json.errors?.find((e) => e.source?.pointer === "/data/attributes/request_number")?.code).toBe("duplicate");
    expect(await storedCount(account.accountId)).toBe(1);
  });
});

describe("createTrackingRequest: the queue message", () => {
  const failingQueue = {
    send: async (_message: TrackingRequestMessage) => {
      throw new Error("queue unavailable");
    },
  };

  it("a send that fails does not fail the create; the every-minute repair re-queues the request", async () => {
    const account = await createAccount();
    const db = createDatabase(env.DB);
    const t0 = Date.parse("2031-03-01T00:00:00Z");
    const deferred: Promise<unknown>[] = [];
    const row = await createTrackingRequest(
      {
        db,
        clock: { now: () => t0 },
        queue: failingQueue,
        supportedScacs: new Set(["TEST"]),
        defer: (work) => deferred.push(work),
      },
      account.accountId,
      { requestType: "bill_of_lading", requestNumber: "TEST-LOST-SEND", scac: "TEST" },
    );
    // The send was handed to `defer` (after the response) and settles without throwing.
    expect(deferred).toHaveLength(1);
    await expect(deferred[0]).resolves.toBeUndefined();
    const stored = await env.DB.prepare("SELECT status, next_attempt_at FROM tracking_requests WHERE id = ?1")
      .bind(row.id)
      .first<{ status: string; next_attempt_at: string | null }>();
    expect(stored).toEqual({ status: "pending", next_attempt_at: null });

    const sent: TrackingRequestMessage[] = [];
    const capture = { send: async (m: TrackingRequestMessage) => void sent.push(m) };
    await runMaintenance(
      { ...env, TRACKING_REQUESTS_QUEUE: capture as unknown as Queue<TrackingRequestMessage> },
      {
        now: () => t0 + 31_000,
      },
    );
    expect(sent).toContainEqual({ trackingRequestId: row.id, accountId: account.accountId });
  });

  it("without defer the send is awaited, and a failure is still not the create's", async () => {
    const account = await createAccount();
    const row = await createTrackingRequest(
      {
        db: createDatabase(env.DB),
        clock: { now: () => Date.parse("2031-03-01T00:00:00Z") },
        queue: failingQueue,
        supportedScacs: new Set(["TEST"]),
      },
      account.accountId,
      { requestType: "container", requestNumber: "TEST-LOST-SEND-2", scac: "TEST" },
    );
    expect(row.status).toBe("pending");
    expect(await storedCount(account.accountId)).toBe(1);
  });
});
