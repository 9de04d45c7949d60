import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { RAW_EVENT_NAMES, referenceRawEventName } from "../../src/raw-events/serializer";
import { findShippingLine } from "../../src/reference/shipping-lines";
import { webhookSourceIps } from "../../src/webhooks/source-ips";
import { apiJson, createAccount } from "../helpers/api";
import { type Many, type One, type Resource, toOne, trackSandboxShipment } from "../helpers/tracking";

// Issue 15: wire compatibility with the reference service (docs/api.md §Compatibility).

describe("GET /webhooks/ips (docs/webhooks.md §Webhook endpoints)", () => {
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

describe("writes without data.type where the reference does not require it (docs/api.md §Shipment endpoints, §Party resource)", () => {
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

/** The sandbox shipment, with the routing entitlement so that its container's route is served too. */
async function trackedWithRouting() {
  const account = await createAccount();
  await env.DB.prepare(`UPDATE accounts SET entitlements = '["routing"]' WHERE id = ?1`).bind(account.accountId).run();
  const sandbox = await trackSandboxShipment(account);
  return { account, ...sandbox };
}

/**
 * Writes a carrier feed (raw rows) and the transport events recorded from it for one container, as the engine
 * would: a loading, a berthing (outside docs/api.md §Raw event names) and an arrival estimate, plus an LFD change no
 * feed row stands behind. Returns the raw ids in index order and, per transport event id, the raw id it came from (or
 * null).
 */
async function seedFeed(accountId: string, containerId: string) {
  const p = crypto.randomUUID().slice(0, 8);
  const shipment = await env.DB.prepare("SELECT shipment_id FROM containers WHERE id = ?1")
    .bind(containerId)
    .first<{ shipment_id: string }>();
  const feed = [
    ["vessel_loaded", "Loaded on Vessel", "2025-04-19T03:00:00Z", 0, "container.transport.vessel_loaded"],
    ["vessel_berthed", "Vessel Berthed", "2025-05-10T07:00:00Z", 0, "container.transport.vessel_berthed"],
    [
      "vessel_arrived",
      "Vessel Arrival (ETA)",
      "2025-05-11T08:00:00Z",
      1,
      "container.transport.estimated.vessel_arrived",
    ],
  ] as const;
  const raw = feed.map((_, i) => `${p}-raw-${i}`);
  const events = feed.map((_, i) => `${p}-te-${i}`);
  const lfd = `${p}-te-lfd`;
  await env.DB.batch([
    ...feed.map(([event, original, timestamp, estimated], i) =>
      env.DB.prepare(
        `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated,
           data_source, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, 'shipping_line', '2025-06-01T00:00:00Z')`,
      ).bind(raw[i], accountId, containerId, 100 + i, event, original, timestamp, estimated),
    ),
    ...[
      ...feed.map(([, , timestamp, , name], i) => [events[i], name, timestamp] as const),
      [lfd, "container.pickup_lfd.changed", "2025-05-12T00:00:00Z"] as const,
    ].map(([id, name, timestamp]) =>
      env.DB.prepare(
        `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, timestamp, data_source,
             created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 'shipping_line', '2025-06-01T00:00:00Z')`,
      ).bind(id, accountId, containerId, shipment?.shipment_id, name, timestamp),
    ),
  ]);
  const sources: [string, string | null][] = [
    ...events.map((e, i): [string, string | null] => [e, raw[i] ?? null]),
    [lfd, null],
  ];
  return { raw, sources };
}

describe("attributes and relationships the reference's payloads carry (issue 15 item 3)", () => {
  it("container: ind_facility_holds, ind_facility_fees (null) and ssl_lfd (the line's LFD)", async () => {
    const { account, containerIds } = await trackedWithRouting();
    const { json } = await apiJson<One>(`/containers/${containerIds[0]}`, { key: account.key });
    const a = json.data.attributes;
    expect(a).toHaveProperty("ind_facility_holds", null);
    expect(a).toHaveProperty("ind_facility_fees", null);
    expect(a).toHaveProperty("ssl_lfd", (a.import_deadlines as Record<string, unknown>).pickup_lfd_line);
  });

  it("raw_event: actual_at / estimated_at / will_occur_at from the row, its provider, names from docs/api.md §Raw event names only", async () => {
    const { account, containerIds } = await trackedWithRouting();
    const id = containerIds[0] ?? "";
    const seeded = await seedFeed(account.accountId, id);
    const { json } = await apiJson<Many>(`/containers/${id}/raw_events`, { key: account.key });
    expect(json.data.map((r) => r.id)).toEqual(seeded.raw);
    for (const raw of json.data) {
      const a = raw.attributes;
      expect(a.actual_at).toBe(a.estimated ? null : a.timestamp);
      expect(a.estimated_at).toBe(a.estimated ? a.timestamp : null);
      expect(a.will_occur_at).toBe(a.estimated ? a.timestamp : null);
      expect(a.data_provider_code).toBe("TEST");
      expect(a.data_provider_name).toBe(findShippingLine("TEST")?.name);
      expect(a.event === null || RAW_EVENT_NAMES.has(a.event as string)).toBe(true);
    }
    expect(json.data[1]?.attributes).toMatchObject({ event: null, original_event: "Vessel Berthed" });
  });

  it("raw_event names outside docs/api.md §Raw event names are served as null with the carrier's words kept", () => {
    expect(referenceRawEventName("vessel_berthed")).toBeNull();
    expect(referenceRawEventName("arrived_at_inland_destination")).toBe("arrived_at_destination");
    expect(referenceRawEventName("vessel_discharged")).toBe("vessel_discharged");
    expect(RAW_EVENT_NAMES.size).toBe(28);
  });

  it("transport_event: source_event links the raw event it came from; previous_version is null", async () => {
    const { account, containerIds } = await trackedWithRouting();
    const id = containerIds[0] ?? "";
    const seeded = await seedFeed(account.accountId, id);
    const { json } = await apiJson<Many>(`/containers/${id}/transport_events`, { key: account.key });
    const byId = new Map(json.data.map((e) => [e.id, e]));
    // The endpoint serves past events only (docs/api.md §Container endpoints): the estimate is not listed.
    expect(seeded.sources.filter(([eventId]) => byId.has(eventId)).length).toBeGreaterThanOrEqual(3);
    for (const [eventId, rawId] of seeded.sources) {
      const e = byId.get(eventId);
      if (!e) continue;
      expect(e?.relationships?.previous_version).toEqual({ data: null });
      expect(toOne(e, "source_event")).toEqual(rawId ? { id: rawId, type: "raw_event" } : null);
    }
    // Through include too (the container's transport_events are hydrated like a list).
    const withEvents = await apiJson<One & { included: Resource[] }>(`/containers/${id}?include=transport_events`, {
      key: account.key,
    });
    const included = withEvents.json.included.find((r) => r.id === seeded.sources[0]?.[0]);
    expect(toOne(included, "source_event")).toEqual({ id: seeded.raw[0], type: "raw_event" });
  });

  it("shipping_line provided_data: what the line's source supplies here, all false for an unserved line", async () => {
    const account = await createAccount();
    const test = await apiJson<One>("/shipping_lines/TEST", { key: account.key });
    const provided = test.json.data.attributes.provided_data as Record<string, unknown>;
    expect(provided).toMatchObject({ pod_arrived_at: true, seal_number: true, ssl_lfd: false, ssl_lfd_notes: "" });
    const list = await apiJson<Many>("/shipping_lines?page[size]=100", { key: account.key });
    const unserved = list.json.data.find((l) => l.attributes.supported === false);
    expect(unserved).toBeDefined();
    const flags = Object.entries(unserved?.attributes.provided_data as Record<string, unknown>);
    expect(flags.filter(([k]) => !k.endsWith("_notes")).every(([, v]) => v === false)).toBe(true);
  });

  it("route: created_at / updated_at; vessel legs name the line in inbound_scac / outbound_scac", async () => {
    const { account, shipment, containerIds } = await trackedWithRouting();
    const { res, json } = await apiJson<One & { included: Resource[] }>(
      `/containers/${containerIds[0]}/route?include=route_location`,
      { key: account.key },
    );
    expect(res.status).toBe(200);
    expect(json.data.attributes.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    expect(json.data.attributes.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const pol = json.included.find((l) => l.attributes.outbound_mode === "vessel");
    expect(pol?.attributes.outbound_scac).toBe(shipment.attributes.shipping_line_scac);
    const pod = json.included.find((l) => l.attributes.inbound_mode === "vessel");
    expect(pod?.attributes.inbound_scac).toBe(shipment.attributes.shipping_line_scac);
  });
});

describe("terminal provided_data says what we serve there (issue 15 item 5)", () => {
  it("the sandbox's POD terminal (FMS, Y257) flags LFD and availability; an unserved terminal flags nothing", async () => {
    const { account, containerIds } = await trackedWithRouting();
    const { json } = await apiJson<One>(`/containers/${containerIds[0]}?include=pod_terminal`, { key: account.key });
    const fmsId = toOne(json.data, "pod_terminal")?.id;
    const fms = await apiJson<One>(`/terminals/${fmsId}`, { key: account.key });
    expect(fms.json.data.attributes.smdg_code ?? fms.json.data.attributes.firms_code).toBeTruthy();
    expect(fms.json.data.attributes.provided_data).toMatchObject({
      pickup_lfd: true,
      available_for_pickup: true,
      holds_at_pod_terminal: true,
      pickup_lfd_notes: "",
    });
    const port = await apiJson<One>("/ports/DEHAM?include=terminals", { key: account.key });
    const other = (port.json as unknown as { included: Resource[] }).included.find((t) => t.type === "terminal");
    expect(other?.attributes.provided_data).toMatchObject({ pickup_lfd: false, available_for_pickup: false });
  });
});
