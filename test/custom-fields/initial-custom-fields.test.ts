import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { apiJson, createAccount, type TestAccount, trackingRequestBody } from "../helpers/api";
import {
  createTrackingRequest,
  deliverTrackingMessages,
  type Many,
  type One,
  toOne,
  trackSandboxShipment,
} from "../helpers/tracking";

// initial_custom_fields on POST /tracking_requests and the tracking request's own values (docs/api.md §Custom fields):
// checked at create (422, nothing written), then written by the lookup onto the shipment and containers it creates,
// in the lookup's own batch.

async function define(account: TestAccount, api_slug: string, entity_type: string, data_type = "short_text") {
  const { res } = await apiJson<One>("/custom_field_definitions", {
    key: account.key,
    body: {
      data: {
        type: "custom_field_definition",
        attributes: { api_slug, entity_type, data_type, display_name: api_slug },
      },
    },
  });
  expect(res.status).toBe(201);
}

async function values(account: TestAccount, path: string): Promise<Record<string, unknown>> {
  const { json } = await apiJson<Many>(`${path}/custom_fields`, { key: account.key });
  return Object.fromEntries(json.data.map((v) => [v.attributes.api_slug, v.attributes.value]));
}

async function numberOf(account: TestAccount, containerId: string): Promise<string> {
  const { json } = await apiJson<One>(`/containers/${containerId}`, { key: account.key });
  return json.data.attributes.number as string;
}

describe("initial_custom_fields", () => {
  it("are applied to the shipment and to the containers (one by number, or all) when the lookup creates them", async () => {
    const account = await createAccount();
    await define(account, "booking_reference", "Shipment");
    await define(account, "po_number", "Container");
    await define(account, "customs_broker", "Container");
    await define(account, "gross_kg", "Container", "number");
    // The sandbox's two boxes for TEST-TR-SUCCEEDED: learn their numbers from a first account's lookup.
    const probe = await createAccount("Probe");
    const sample = await trackSandboxShipment(probe);
    const [first, second] = await Promise.all(sample.containerIds.map((id) => numberOf(probe, id)));
    const { shipment, containerIds } = await trackSandboxShipment(account, {
      initial_custom_fields: {
        shipment: [{ api_slug: "booking_reference", value: "BOOK-2026-001" }],
        containers: [
          { api_slug: "po_number", value: "PO-123", number: first?.toLowerCase() },
          { api_slug: "po_number", value: "PO-999", number: second },
          { api_slug: "customs_broker", value: "Acme Brokerage" },
          { api_slug: "gross_kg", value: 12000, number: "" },
          { api_slug: "po_number", value: "PO-IGNORED", number: "ZZZU0000000" },
        ],
      },
    });
    expect(await values(account, `/shipments/${shipment.id}`)).toEqual({ booking_reference: "BOOK-2026-001" });
    const byNumber: Record<string, Record<string, unknown>> = {};
    for (const id of containerIds) byNumber[await numberOf(account, id)] = await values(account, `/containers/${id}`);
    expect(byNumber).toEqual({
      [first as string]: { po_number: "PO-123", customs_broker: "Acme Brokerage", gross_kg: 12000 },
      [second as string]: { po_number: "PO-999", customs_broker: "Acme Brokerage", gross_kg: 12000 },
    });
  });

  it("values set on the tracking request flow to the shipment (Shipment fields) and every container (Container fields)", async () => {
    const account = await createAccount();
    await define(account, "booking_reference", "Shipment");
    await define(account, "seal_number", "Container");
    await define(account, "intake_note", "TrackingRequest");
    const request = await createTrackingRequest(account, { request_number: "TEST-TR-SUCCEEDED" });
    for (const [api_slug, value] of [
      ["booking_reference", "B-1"],
      ["seal_number", "S-1"],
      ["intake_note", "via e-mail"],
    ]) {
      const { res } = await apiJson(`/tracking_requests/${request.id}/custom_fields`, {
        key: account.key,
        body: { data: { type: "custom_field", attributes: { api_slug, value } } },
      });
      expect(res.status).toBe(201);
    }
    await deliverTrackingMessages([{ trackingRequestId: request.id, accountId: account.accountId }]);
    const { json } = await apiJson<One>(`/tracking_requests/${request.id}`, { key: account.key });
    const shipmentId = toOne(json.data, "tracked_object")?.id;
    expect(await values(account, `/shipments/${shipmentId}`)).toEqual({ booking_reference: "B-1" });
    const shipment = await apiJson<One>(`/shipments/${shipmentId}`, { key: account.key });
    const boxes = shipment.json.data.relationships?.containers?.data as { id: string }[];
    expect(boxes.length).toBe(2);
    for (const box of boxes) expect(await values(account, `/containers/${box.id}`)).toEqual({ seal_number: "S-1" });
    expect(await values(account, `/tracking_requests/${request.id}`)).toEqual({
      booking_reference: "B-1",
      seal_number: "S-1",
      intake_note: "via e-mail",
    });
  });

  it("a definition deleted before the lookup writes nothing (no orphan value)", async () => {
    const account = await createAccount();
    await define(account, "booking_reference", "Shipment");
    const request = await createTrackingRequest(account, {
      request_number: "TEST-TR-SUCCEEDED",
      initial_custom_fields: { shipment: [{ api_slug: "booking_reference", value: "B" }] },
    });
    const defs = await apiJson<Many>("/custom_field_definitions", { key: account.key });
    await apiJson(`/custom_field_definitions/${defs.json.data[0]?.id}`, { method: "DELETE", key: account.key });
    const result = await deliverTrackingMessages([{ trackingRequestId: request.id, accountId: account.accountId }]);
    expect(result.explicitAcks.length).toBe(1);
    const { json } = await apiJson<One>(`/tracking_requests/${request.id}`, { key: account.key });
    expect(json.data.attributes.status).toBe("created");
    const row = await env.DB.prepare("SELECT count(*) AS n FROM custom_fields WHERE account_id = ?1")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });

  it("unknown slugs, a slug of the other entity type and values that do not fit are one 422; nothing is written", async () => {
    const account = await createAccount();
    await define(account, "booking_reference", "Shipment");
    await define(account, "gross_kg", "Container", "number");
    const { res, json } = await apiJson<One>("/tracking_requests", {
      key: account.key,
      body: trackingRequestBody({
        request_number: "TEST-TR-SUCCEEDED",
        scac: "TEST",
        initial_custom_fields: {
          shipment: [
            { api_slug: "booking_reference", value: "OK" },
            { api_slug: "gross_kg", value: 1 },
          ],
          containers: [
            { api_slug: "gross_kg", value: "heavy" },
            { api_slug: "nope", value: "x" },
          ],
        },
      }),
    });
    expect(res.status).toBe(422);
    expect(json.errors?.map((e) => e.source?.pointer)).toEqual([
      "/data/attributes/initial_custom_fields/shipment/1/api_slug",
      "/data/attributes/initial_custom_fields/containers/0/value",
      "/data/attributes/initial_custom_fields/containers/1/api_slug",
    ]);
    const bad = await apiJson<One>("/tracking_requests", {
      key: account.key,
      body: trackingRequestBody({
        request_number: "TEST-TR-SUCCEEDED",
        scac: "TEST",
        initial_custom_fields: { shipment: [{ api_slug: "booking_reference" }] },
      }),
    });
    expect(bad.res.status).toBe(422);
    const row = await env.DB.prepare("SELECT count(*) AS n FROM tracking_requests WHERE account_id = ?1")
      .bind(account.accountId)
      .first<{ n: number }>();
    expect(row?.n).toBe(0);
  });
});
