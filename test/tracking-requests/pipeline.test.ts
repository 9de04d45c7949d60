import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { hasValidCheckDigit } from "../../src/infer/iso6346";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { apiJson, createAccount } from "../helpers/api";
import {
  createTrackingRequest,
  deliverTrackingMessages,
  insertTrackingRequests,
  type Many,
  type One,
  toMany,
  toOne,
  trackAndProcess,
} from "../helpers/tracking";

describe("tracking-requests queue consumer (sandbox carrier)", () => {
  it("TEST-TR-SUCCEEDED → created, tracked_object is a shipment with two ISO 6346 containers on_ship", async () => {
    const account = await createAccount();
    const created = await createTrackingRequest(account, { request_number: "TEST-TR-SUCCEEDED" });
    const result = await deliverTrackingMessages([{ trackingRequestId: created.id, accountId: account.accountId }]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);

    const { json } = await apiJson<One>(`/tracking_requests/${created.id}`, { key: account.key });
    expect(json.data.attributes).toMatchObject({ status: "created", failed_reason: null, is_retrying: false });
    const tracked = toOne(json.data, "tracked_object");
    expect(tracked?.type).toBe("shipment");
    // tracked_object is included by default.
    expect(json.included?.map((r) => `${r.type}:${r.id}`)).toEqual([`shipment:${tracked?.id}`]);

    const { res: shipmentRes, json: shipment } = await apiJson<One>(`/shipments/${tracked?.id}?include=containers`, {
      key: account.key,
    });
    expect(shipmentRes.status).toBe(200);
    expect(shipment.data.attributes).toMatchObject({
      bill_of_lading_number: "TEST-TR-SUCCEEDED",
      shipping_line_scac: "TEST",
      port_of_lading_locode: "CNYTN",
      port_of_discharge_locode: "USLAX",
    });
    const containerLinks = toMany(shipment.data, "containers");
    expect(containerLinks).toHaveLength(2);
    const containers = shipment.included?.filter((r) => r.type === "container") ?? [];
    expect(containers.map((c) => c.id).sort()).toEqual(containerLinks.map((c) => c.id).sort());
    for (const container of containers) {
      const number = String(container.attributes.number);
      expect(number).toMatch(/^[A-Z]{3}U\d{7}$/);
      expect(hasValidCheckDigit(number), number).toBe(true);
      expect(container.attributes.current_status).toBe("on_ship");
      expect(toOne(container, "shipment")?.id).toBe(tracked?.id);
    }
    expect(new Set(containers.map((c) => c.attributes.number)).size).toBe(2);
  });

  it("TEST-TR-FAILED → failed with failed_reason not_found, no shipment", async () => {
    const account = await createAccount();
    const request = await trackAndProcess(account, { request_number: "TEST-TR-FAILED" });
    expect(request.attributes).toMatchObject({ status: "failed", failed_reason: "not_found", is_retrying: false });
    expect(toOne(request, "tracked_object")).toBeNull();
    const { json } = await apiJson<Many>("/shipments", { key: account.key });
    expect(json.data).toEqual([]);
    expect(json.meta?.total).toBe(0);
  });

  it("after a failure the same number can be requested again", async () => {
    const account = await createAccount();
    await trackAndProcess(account, { request_number: "TEST-TR-FAILED" });
    const again = await createTrackingRequest(account, { request_number: "TEST-TR-FAILED" });
    expect(again.attributes.status).toBe("pending");
  });

  it("re-delivering the same message (twice in one batch, then again) creates one shipment", async () => {
    const account = await createAccount();
    const created = await createTrackingRequest(account, { request_number: "TEST-TR-SUCCEEDED" });
    const message = { trackingRequestId: created.id, accountId: account.accountId };
    const first = await deliverTrackingMessages([message, message]);
    expect(first.explicitAcks).toHaveLength(2);
    const second = await deliverTrackingMessages([message]);
    expect(second.explicitAcks).toHaveLength(1);
    await processTrackingRequest({ env }, message);

    const { json: shipments } = await apiJson<Many>("/shipments", { key: account.key });
    expect(shipments.data).toHaveLength(1);
    expect(shipments.meta?.total).toBe(1);
    const { json: containers } = await apiJson<Many>("/containers", { key: account.key });
    expect(containers.data).toHaveLength(2);
    expect(containers.meta?.total).toBe(2);
    const rows = await env.DB.prepare("SELECT COUNT(*) AS n FROM containers WHERE account_id = ?1")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(rows?.n).toBe(2);
  });

  it("a message naming another account does nothing; the owner's message tracks it", async () => {
    const owner = await createAccount();
    const other = await createAccount();
    // Inserted directly so that no queue message exists besides the ones this test delivers.
    const [id = ""] = await insertTrackingRequests(owner, 1, { status: "pending", number: "TEST-TR-SUCCEEDED" });
    const foreign = await deliverTrackingMessages([{ trackingRequestId: id, accountId: other.accountId }]);
    expect(foreign.explicitAcks).toHaveLength(1);
    const row = await env.DB.prepare("SELECT status, shipment_id FROM tracking_requests WHERE id = ?1")
      .bind(id)
      .first();
    expect(row).toEqual({ status: "pending", shipment_id: null });

    await deliverTrackingMessages([{ trackingRequestId: id, accountId: owner.accountId }]);
    const { json } = await apiJson<One>(`/tracking_requests/${id}`, { key: owner.key });
    expect(json.data.attributes.status).toBe("created");
    const counts = await env.DB.prepare(
      "SELECT account_id, COUNT(*) AS n FROM shipments WHERE account_id IN (?1, ?2) GROUP BY account_id",
    )
      .bind(owner.accountId, other.accountId)
      .all();
    expect(counts.results).toEqual([{ account_id: owner.accountId, n: 1 }]);
  });

  it("a message for an unknown request is acked and ignored", async () => {
    const account = await createAccount();
    const result = await deliverTrackingMessages([
      { trackingRequestId: "00000000-0000-7000-8000-000000000000", accountId: account.accountId },
    ]);
    expect(result.explicitAcks).toHaveLength(1);
    expect(result.retryMessages).toEqual([]);
  });

  it("the shipment carries the request's ref numbers, tags and customer", async () => {
    const account = await createAccount();
    const { json: party } = await apiJson<One>("/parties", {
      key: account.key,
      body: { data: { type: "party", attributes: { company_name: "Brie Ltd" } } },
    });
    const created = await apiJson<One>("/tracking_requests", {
      key: account.key,
      body: {
        data: {
          type: "tracking_request",
          attributes: {
            request_type: "bill_of_lading",
            request_number: "TEST-TR-SUCCEEDED",
            scac: "TEST",
            ref_numbers: ["PO-9"],
            shipment_tags: ["hot"],
          },
          relationships: { customer: { data: { type: "party", id: party.data.id } } },
        },
      },
    });
    expect(created.res.status).toBe(201);
    await deliverTrackingMessages([{ trackingRequestId: created.json.data.id, accountId: account.accountId }]);
    const { json: shipments } = await apiJson<Many>("/shipments", { key: account.key });
    expect(shipments.data[0]?.attributes).toMatchObject({
      ref_numbers: ["PO-9"],
      tags: ["hot"],
      customer_name: "Brie Ltd",
    });
  });
});
