import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { apiJson, createAccount } from "../../helpers/api";
import type { Many } from "../../helpers/tracking";

// Includes read in chunks (src/lib/jsonapi/include.ts, MAX_IDS_PER_STATEMENT): a page of 100 boxes, each in a
// shipment of its own (box-level tracking), with their shipments included, and the reverse: D1 takes
// at most 100 bound parameters a statement, so reading 100 shipments and their linkage by id must not bind 101.

describe("include=shipment on a full page of single-box shipments", () => {
  it("answers 200 with every related row: shipments of boxes, tracked shipments of requests, boxes of shipments", async () => {
    const account = await createAccount();
    const now = "2026-12-01T00:00:00Z";
    const statements: D1PreparedStatement[] = [];
    for (let i = 0; i < 100; i++) {
      const shipment = `wide-ship-${i}-${account.accountId}`;
      statements.push(
        env.DB.prepare(
          `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, created_at,
             updated_at) VALUES (?1, ?2, ?3, ?3, 'TEST', ?4, ?4)`,
        ).bind(shipment, account.accountId, `WIDE${i}`, now),
        env.DB.prepare(
          `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac,
             line_scac, status, shipment_id, created_at, updated_at)
           VALUES (?1, ?2, 'bill_of_lading', ?3, ?3, 'TEST', 'TEST', 'created', ?4, ?5, ?5)`,
        ).bind(`wide-tr-${i}-${account.accountId}`, account.accountId, `WIDE${i}`, shipment, now),
        env.DB.prepare(
          `INSERT INTO containers (id, account_id, shipment_id, number, scac, current_status, created_at, updated_at)
           VALUES (?1, ?2, ?3, ?4, 'TEST', 'new', ?5, ?5)`,
        ).bind(
          `wide-box-${i}-${account.accountId}`,
          account.accountId,
          shipment,
          `WIDE${String(i).padStart(7, "0")}`,
          now,
        ),
      );
    }
    await env.DB.batch(statements);
    const { res, json } = await apiJson<Many>("/containers?page[size]=100&include=shipment", { key: account.key });
    expect(res.status, JSON.stringify(json).slice(0, 300)).toBe(200);
    expect(json.data).toHaveLength(100);
    expect(json.included?.filter((r) => r.type === "shipment")).toHaveLength(100);
    // Read by id (loadByIds): the requests' tracked shipments.
    const requests = await apiJson<Many>("/tracking_requests?page[size]=100&include=tracked_object", {
      key: account.key,
    });
    expect(requests.res.status, JSON.stringify(requests.json).slice(0, 300)).toBe(200);
    expect(requests.json.included?.filter((r) => r.type === "shipment")).toHaveLength(100);
    // Loaded per parent (a relationship's load): the shipments' containers.
    const shipments = await apiJson<Many>("/shipments?page[size]=100&include=containers", { key: account.key });
    expect(shipments.res.status).toBe(200);
    expect(shipments.json.included?.filter((r) => r.type === "container")).toHaveLength(100);
  });
});
