import { describe, expect, it } from "vitest";
import { webhookSourceIps } from "../../src/webhooks/source-ips";
import { apiJson, createAccount } from "../helpers/api";
import { type One, trackSandboxShipment } from "../helpers/tracking";

// Issue 15: wire compatibility with the reference service (REFERENCE-SERVICE.md, "R").

describe("GET /webhooks/ips (R §3.14)", () => {
  it("answers the configured delivery addresses and last_updated, not a webhook lookup", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson("/webhooks/ips", { key: account.key });
    expect(res.status).toBe(200);
    // wrangler.toml configures no fixed addresses: on Workers deliveries leave from Cloudflare's shared ranges.
    expect(json).toEqual({ webhook_notification_ips: [], last_updated: null });
  });

  it("needs an API key like every other route", async () => {
    const { res } = await apiJson("/webhooks/ips", { key: null });
    expect(res.status).toBe(401);
  });

  it("reads the list and its date from WEBHOOK_SOURCE_IPS / WEBHOOK_SOURCE_IPS_UPDATED_AT", () => {
    expect(
      webhookSourceIps({
        WEBHOOK_SOURCE_IPS: " 35.222.62.171, 2001:db8::/32 ,,not-an-ip,3.230.67.145",
        WEBHOOK_SOURCE_IPS_UPDATED_AT: "2023-10-17T21:23:16Z",
      }),
    ).toEqual({
      webhook_notification_ips: ["35.222.62.171", "2001:db8::/32", "3.230.67.145"],
      last_updated: "2023-10-17T21:23:16Z",
    });
    expect(webhookSourceIps({ WEBHOOK_SOURCE_IPS: "10.0.0.1", WEBHOOK_SOURCE_IPS_UPDATED_AT: "yesterday" })).toEqual({
      webhook_notification_ips: ["10.0.0.1"],
      last_updated: null,
    });
  });
});

describe("writes without data.type where the reference does not require it (R §3.12, §1.12)", () => {
  it("PATCH /shipments/{id} accepts a body with attributes only; a wrong type stays 422", async () => {
    const account = await createAccount();
    const { shipment } = await trackSandboxShipment(account);
    const ok = await apiJson<One>(`/shipments/${shipment.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { attributes: { tags: ["no-type"] } } },
    });
    expect(ok.res.status).toBe(200);
    expect(ok.json.data.attributes.tags).toEqual(["no-type"]);
    const wrong = await apiJson(`/shipments/${shipment.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "container", attributes: { tags: ["x"] } } },
    });
    expect(wrong.res.status).toBe(422);
  });

  it("POST /parties accepts a body with attributes only; a wrong type stays 422", async () => {
    const account = await createAccount();
    const ok = await apiJson<One>("/parties", {
      method: "POST",
      key: account.key,
      body: { data: { attributes: { company_name: "No Type Ltd" } } },
    });
    expect(ok.res.status).toBe(201);
    expect(ok.json.data.attributes.company_name).toBe("No Type Ltd");
    const wrong = await apiJson("/parties", {
      method: "POST",
      key: account.key,
      body: { data: { type: "shipment", attributes: { company_name: "Wrong Type Ltd" } } },
    });
    expect(wrong.res.status).toBe(422);
  });

  it("PATCH /tracking_requests/{id}, stop_tracking, POST and PATCH /webhooks accept an absent type", async () => {
    const account = await createAccount();
    const { shipment, request } = await trackSandboxShipment(account);
    const tr = await apiJson(`/tracking_requests/${request.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { attributes: { ref_numbers: ["R-1"] } } },
    });
    expect(tr.res.status).toBe(200);
    const stop = await apiJson(`/shipments/${shipment.id}/stop_tracking`, {
      method: "PATCH",
      key: account.key,
      body: { data: { id: shipment.id } },
    });
    expect(stop.res.status).toBe(200);
    const created = await apiJson<One>("/webhooks", {
      method: "POST",
      key: account.key,
      body: { data: { attributes: { url: "https://hooks.example.com/in", events: ["container.updated"] } } },
    });
    expect(created.res.status).toBe(201);
    const patched = await apiJson(`/webhooks/${created.json.data.id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { attributes: { active: false } } },
    });
    expect(patched.res.status).toBe(200);
  });
});
