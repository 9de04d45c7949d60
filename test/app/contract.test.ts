import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { SANDBOX_CONTAINER_NUMBERS } from "../../src/tracking/sources/sandbox";
import { setInvitationTransport } from "../../src/users/invitation-mail";
import { billOfLadingPdf, pdfWithText } from "../fixtures/documents";
import { apiJson, createAccount, type TestAccount, trackingRequestBody } from "../helpers/api";
import { uploadDocument } from "../helpers/document-uploads";
import { type Resource, toOne, trackSandboxShipment } from "../helpers/tracking";
import { until } from "../helpers/vessels";
import { DEPARTURES } from "./contract/departures";
import samples from "./contract/reference-samples.generated.json";
import type { Validate } from "./contract/validators.generated.js";
import * as validators from "./contract/validators.generated.js";

// Contract of issue 15: every response of every endpoint we serve, validated against the reference service's schemas
// (test/app/contract/reference.schema.json, generated with its validators by `npm run contract:generate` from
// docs/api.md §Resources, §Lists and pagination, docs/webhooks.md §Webhook endpoints, docs/api.md §Errors), and the
// attribute/relationship names of our resources diffed against every captured sample (Appendix A). Anything off must be
// a listed departure (test/app/contract/departures.ts).

const schemas: Record<string, Validate | undefined> = validators;

/** Findings of the whole run: `where` (schema + instance path), `kind` and the request that produced it. */
const findings: { where: string; kind: string; request: string; message: string }[] = [];
/** Attribute and relationship names our resources carried, per type, over the whole run. */
const seen: Record<string, { attributes: Set<string>; relationships: Set<string> }> = {};

/** Ajv paths with array indexes and ids dropped, so one finding stands for every item. */
function generic(path: string): string {
  return path.replace(/\/\d+(?=\/|$)/g, "").replace(/^\//, "");
}

function check(schema: string, value: unknown, request: string): void {
  const validate = schemas[schema];
  if (!validate) throw new Error(`no validator ${schema}`);
  if (validate(value)) return;
  for (const e of validate.errors ?? []) {
    const where = [schema, generic(e.instancePath)].filter(Boolean).join("/");
    findings.push({ where, kind: e.keyword, request, message: e.message ?? "" });
  }
}

function record(resource: Resource): void {
  const names = seen[resource.type] ?? { attributes: new Set<string>(), relationships: new Set<string>() };
  seen[resource.type] = names;
  for (const [k, v] of Object.entries(resource.attributes ?? {})) {
    names.attributes.add(k);
    if (v && typeof v === "object" && !Array.isArray(v))
      for (const sub of Object.keys(v)) names.attributes.add(`${k}.${sub}`);
  }
  for (const k of Object.keys(resource.relationships ?? {})) names.relationships.add(k);
}

/** Validates a JSON:API document: its envelope (single, list or none) and every resource of a type R describes. */
function checkDocument(json: unknown, request: string, envelope: "single" | "list" | "none"): void {
  if (envelope !== "none") check(`${envelope}_document`, json, request);
  if (json === null) return;
  const doc = json as { data?: Resource | Resource[]; included?: Resource[] };
  const resources = [...(Array.isArray(doc.data) ? doc.data : doc.data ? [doc.data] : []), ...(doc.included ?? [])];
  for (const r of resources) {
    record(r);
    if (schemas[r.type] && r.type !== "infer_number_results") check(r.type, r, request);
  }
}

/** Sends a request, checks its status and validates the body as `envelope` (or against `schema`). */
async function call(
  account: TestAccount | null,
  method: string,
  path: string,
  status: number,
  envelope: "single" | "list" | "none" | "error" | { schema: string },
  body?: unknown,
) {
  const request = `${method} ${path}`;
  const { res, json } = await apiJson(path, { method, key: account?.key ?? null, body });
  expect(res.status, `${request}: ${JSON.stringify(json).slice(0, 300)}`).toBe(status);
  if (envelope === "error") check("error_document", json, request);
  else if (typeof envelope === "object") check(envelope.schema, json, request);
  else checkDocument(json, request, envelope);
  return json as Record<string, unknown> & { data: Resource & Resource[] };
}

describe("contract with the reference service (issue 15)", () => {
  let account: TestAccount;
  let other: TestAccount;
  let shipmentId = "";
  let containerId = "";
  let requestId = "";

  beforeAll(async () => {
    account = await createAccount();
    other = await createAccount("Other");
    await env.DB.prepare(`UPDATE accounts SET entitlements = '["routing"]' WHERE id = ?1`)
      .bind(account.accountId)
      .run();
    const tracked = await trackSandboxShipment(account);
    shipmentId = tracked.shipment.id;
    containerId = tracked.containerIds[0] ?? "";
    requestId = tracked.request.id;
    // The static sandbox journey writes no carrier feed rows: two as the engine writes them (an actual loading with
    // its vessel, an arrival estimate), so raw_events has rows to check.
    await env.DB.batch(
      [
        ["vessel_loaded", "Loaded on Vessel", "2025-04-19T03:00:00Z", 0, "CNYTN", "SANDBOX EXPRESS", "9811000"],
        ["vessel_arrived", "Vessel Arrival (ETA)", "2025-05-11T08:00:00Z", 1, "USLAX", null, null],
      ].map(([event, original, timestamp, estimated, locode, vessel, imo], i) =>
        env.DB.prepare(
          `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated,
             actual_on, estimated_on, location, location_locode, vessel_name, vessel_imo, voyage_number, timezone,
             data_source, created_at)
           VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, '001E', 'UTC', 'shipping_line',
             '2025-06-01T00:00:00Z')`,
        ).bind(
          crypto.randomUUID(),
          account.accountId,
          containerId,
          i,
          event,
          original,
          timestamp,
          estimated,
          estimated ? null : String(timestamp).slice(0, 10),
          estimated ? String(timestamp).slice(0, 10) : null,
          locode,
          locode,
          vessel,
          imo,
        ),
      ),
    );
  });

  it("containers (docs/api.md §Container endpoints)", async () => {
    await call(account, "GET", "/containers?include=shipment,pod_terminal,pickup_facility", 200, "list");
    await call(account, "GET", "/containers?page[size]=1", 200, "list");
    await call(
      account,
      "GET",
      `/containers/${containerId}?include=shipment,pod_terminal,pickup_facility,transport_events`,
      200,
      "single",
    );
    await call(account, "GET", `/containers/${containerId}/transport_events?include=location,terminal`, 200, "list");
    await call(account, "GET", `/containers/${containerId}/raw_events`, 200, "none");
    await call(account, "PATCH", `/containers/${containerId}/refresh`, 200, { schema: "refresh" });
    await call(account, "GET", `/containers/${containerId}/route?include=port,vessel,route_location`, 200, "single");
    await call(account, "PATCH", `/containers/${containerId}`, 200, "single", {
      data: { type: "container", attributes: { ref_numbers: ["REF-12345"] } },
    });
  });

  it("tracking requests and infer_number (docs/api.md §Tracking request endpoints, §Infer number)", async () => {
    const created = await call(
      account,
      "POST",
      "/tracking_requests",
      201,
      "single",
      trackingRequestBody({ request_number: `CONTRACT${Date.now()}`, scac: "TEST" }),
    );
    await call(account, "GET", "/tracking_requests", 200, "list");
    await call(account, "GET", "/tracking_requests?page[size]=1", 200, "list");
    await call(account, "GET", `/tracking_requests/${requestId}`, 200, "single");
    await call(account, "PATCH", `/tracking_requests/${created.data.id}`, 200, "single", {
      data: { type: "tracking_request", attributes: { ref_number: "REF-1" } },
    });
    const infer = await call(
      account,
      "POST",
      "/tracking_requests/infer_number",
      200,
      { schema: "single_document" },
      {
        number: "MSCU1234566",
      },
    );
    check("infer_number_results", infer.data, "POST /tracking_requests/infer_number");
  });

  it("shipments (docs/api.md §Shipment endpoints)", async () => {
    const include = "containers,pod_terminal,port_of_lading,port_of_discharge,destination,destination_terminal";
    await call(account, "GET", `/shipments?include=${include}`, 200, "list");
    await call(account, "GET", `/shipments/${shipmentId}?include=${include}`, 200, "single");
    await call(account, "PATCH", `/shipments/${shipmentId}`, 200, "single", { data: { attributes: { tags: ["c"] } } });
    await call(account, "PATCH", `/shipments/${shipmentId}/stop_tracking`, 200, "single");
    await call(account, "PATCH", `/shipments/${shipmentId}/resume_tracking`, 200, "single");
  });

  it("webhooks and notifications (docs/webhooks.md §Webhook endpoints, §Trigger)", async () => {
    const created = await call(account, "POST", "/webhooks", 201, "single", {
      data: {
        type: "webhook",
        attributes: { url: "https://hooks.example.com/contract", events: ["container.updated"] },
      },
    });
    await call(account, "GET", "/webhooks", 200, "list");
    await call(account, "GET", `/webhooks/${created.data.id}`, 200, "single");
    await call(account, "PATCH", `/webhooks/${created.data.id}`, 200, "single", {
      data: { attributes: { active: true } },
    });
    await call(account, "GET", "/webhooks/ips", 200, { schema: "webhook_ips" });
    // `{data: webhook_event_category[]}` (docs/webhooks.md §Webhook endpoints): a list without pagination, and no R
    // schema for the category.
    await call(account, "GET", "/webhooks/events", 200, "none");
    await call(account, "GET", "/webhook_notifications?include=webhook,reference_object", 200, "list");
    for (const event of ["tracking_request.succeeded", "container.transport.vessel_arrived", "container.updated"]) {
      await call(account, "GET", `/webhook_notifications/examples?event=${event}`, 200, "single");
    }
    await call(account, "DELETE", `/webhooks/${created.data.id}`, 200, "none");
  });

  it("shipping lines, terminals, ports, metro areas, parties (docs/api.md §Reference data endpoints, §Route resource)", async () => {
    await call(account, "GET", "/shipping_lines", 200, "list");
    await call(account, "GET", "/shipping_lines/TEST", 200, "single");
    const container = await call(account, "GET", `/containers/${containerId}`, 200, "single");
    const terminal = toOne(container.data, "pod_terminal");
    await call(account, "GET", `/terminals/${terminal?.id}`, 200, "single");
    await call(account, "GET", "/ports/USLAX?include=terminals", 200, "single");
    const party = await call(account, "POST", "/parties", 201, "single", {
      data: { attributes: { company_name: `Contract ${Date.now()}` } },
    });
    await call(account, "GET", "/parties", 200, "list");
    await call(account, "GET", `/parties/${party.data.id}`, 200, "single");
    await call(account, "PATCH", `/parties/${party.data.id}`, 200, "single", {
      data: { attributes: { company_name: `Contract renamed ${Date.now()}` } },
    });
    await call(account, "GET", "/metro_areas/USEWI", 200, "single");
  });

  it("vessels and search (docs/api.md §Vessel resource, §Search)", async () => {
    // The sandbox journey's vessel, known from the carrier feed rows written above.
    await call(account, "GET", "/vessels/9811000", 200, "single");
    await call(account, "GET", "/vessels/9811000?show_positions=true", 200, "single");
    const container = await call(account, "GET", `/containers/${containerId}`, 200, "single");
    const number = String(container.data.attributes?.number);
    const found = await call(account, "GET", `/search?query=${number}`, 200, "none");
    expect(found.data.map((r) => r.type)).toContain("search_result");
    await call(account, "GET", "/search", 400, "error");
  });

  it("custom fields (docs/api.md §Custom fields)", async () => {
    const definitionBody = (api_slug: string, entity_type: string, data_type: string) => ({
      data: {
        type: "custom_field_definition",
        attributes: { api_slug, entity_type, data_type, display_name: api_slug },
      },
    });
    const incoterm = await call(
      account,
      "POST",
      "/custom_field_definitions",
      201,
      "single",
      definitionBody("incoterm", "Shipment", "enum"),
    );
    const base = `/custom_field_definitions/${incoterm.data.id}`;
    const option = await call(account, "POST", `${base}/options`, 201, "single", {
      data: { type: "custom_field_option", attributes: { label: "Ex Works", value: "EXW", position: 1 } },
    });
    await call(account, "GET", `${base}/options`, 200, "list");
    await call(account, "GET", `${base}/options/${option.data.id}`, 200, "single");
    await call(account, "PATCH", `${base}/options/${option.data.id}`, 200, "single", {
      data: { type: "custom_field_option", attributes: { label: "EXW" } },
    });
    await call(account, "GET", "/custom_field_definitions?filter[entity_type]=Shipment", 200, "list");
    await call(account, "GET", base, 200, "single");
    await call(account, "PATCH", base, 200, "single", {
      data: { type: "custom_field_definition", attributes: { description: "Incoterm 2020" } },
    });
    await call(
      account,
      "POST",
      "/custom_field_definitions",
      201,
      "single",
      definitionBody("hazmat", "Cargo", "boolean"),
    );
    const value = await call(account, "POST", "/custom_fields", 201, "single", {
      data: {
        type: "custom_field",
        attributes: { api_slug: "incoterm", value: "EXW" },
        relationships: { entity: { data: { type: "shipment", id: shipmentId } } },
      },
    });
    await call(account, "GET", "/custom_fields", 200, "list");
    await call(account, "GET", `/custom_fields/${value.data.id}`, 200, "single");
    await call(account, "PATCH", `/custom_fields/${value.data.id}`, 200, "single", {
      data: { type: "custom_field", attributes: { value: "EXW" } },
    });
    const upsert = { data: { type: "custom_field", attributes: { api_slug: "hazmat", value: true } } };
    await call(account, "POST", `/containers/${containerId}/custom_fields`, 201, "single", upsert);
    await call(account, "GET", `/containers/${containerId}/custom_fields`, 200, "list");
    await call(account, "PATCH", `/containers/${containerId}/custom_fields/hazmat`, 200, "single", {
      data: { type: "custom_field", attributes: { value: false } },
    });
    await call(account, "POST", `/tracking_requests/${requestId}/custom_fields`, 201, "single", upsert);
    await call(account, "GET", `/tracking_requests/${requestId}/custom_fields`, 200, "list");
    await call(account, "GET", `/shipments/${shipmentId}/custom_fields`, 200, "list");
    await call(account, "DELETE", `/containers/${containerId}/custom_fields/hazmat`, 204, "none");
    await call(account, "DELETE", `/custom_fields/${value.data.id}`, 200, "none");
    await call(account, "DELETE", `${base}/options/${option.data.id}`, 200, "none");
    await call(other, "GET", base, 404, "error");
    await call(
      account,
      "POST",
      "/custom_field_definitions",
      422,
      "error",
      definitionBody("Bad Slug", "Shipment", "enum"),
    );
    await call(account, "DELETE", base, 200, "none");
  });

  it("documents (docs/api.md §Documents)", async () => {
    const uploaded = await uploadDocument(account, await billOfLadingPdf(), "contract bl.pdf");
    const path = `/documents/${uploaded.id}?include=last_document_representation`;
    // Extraction runs on the document-extractions queue: wait for its representation.
    await until(async () => {
      const { json } = await apiJson<{ included?: unknown[] }>(path, { key: account.key });
      return (json.included?.length ?? 0) > 0;
    });
    const doc = await call(account, "GET", path, 200, "single");
    expect((doc.included as Resource[] | undefined)?.map((r) => r.type)).toEqual(["document_representation"]);
    await call(account, "GET", "/documents", 200, "list");
    await call(account, "PATCH", `/documents/${uploaded.id}`, 200, "single", {
      data: { type: "document", attributes: { document_type_manual: "bill_of_lading" } },
    });
    await call(account, "GET", "/email_submissions", 200, "list");
    await call(other, "GET", `/documents/${uploaded.id}`, 404, "error");

    // A document linked to the sandbox shipment (by a manual BL number) and its boxes (named in the text): the
    // `shipments` / `cargos` linkage and their includes checked against the reference's schema. An account of its
    // own, so its calls leave the shared account's rate bucket to the other checks.
    const linker = await createAccount("Linker");
    await trackSandboxShipment(linker);
    const lines = ["ARRIVAL NOTICE", ...SANDBOX_CONTAINER_NUMBERS.map((n) => `Container: ${n}`)];
    const linked = await uploadDocument(
      linker,
      await pdfWithText([lines.map((text, i) => ({ text, x: 50, y: 800 - i * 18 }))]),
      "contract notice.pdf",
    );
    // Polled in D1, not through the API (a rate-limited bucket).
    const links = (type: string) => async () => {
      const row = await env.DB.prepare(
        "SELECT COUNT(*) AS n FROM document_links WHERE document_id = ?1 AND target_type = ?2",
      )
        .bind(linked.id, type)
        .first<{ n: number }>();
      return row?.n;
    };
    await until(async () => (await links("container")()) === 2, 20_000);
    await call(linker, "PATCH", `/documents/${linked.id}`, 200, "single", {
      data: { type: "document", attributes: { extracted_data_manual: { bill_of_lading_number: "TEST-TR-SUCCEEDED" } } },
    });
    await call(linker, "POST", `/documents/${linked.id}/relink`, 202, "none");
    const linkedPath = `/documents/${linked.id}?include=shipments,cargos`;
    await until(async () => (await links("shipment")()) === 1, 20_000);
    const withLinks = await call(linker, "GET", linkedPath, 200, "single");
    expect((withLinks.included as Resource[]).map((r) => r.type).sort()).toEqual([
      "container",
      "container",
      "shipment",
    ]);
    await call(
      linker,
      "GET",
      `/documents?filter[reference]=${SANDBOX_CONTAINER_NUMBERS[0]}&include=cargos`,
      200,
      "list",
    );
  });

  it("tariffs and charges (docs/api.md §Tariffs, §Charges; extensions, checked as JSON:API documents)", async () => {
    // An account of its own: the shared one's rate bucket is spent by the other cases of this file.
    const mine = await createAccount("Charges");
    const boxId = (await trackSandboxShipment(mine)).containerIds[0] ?? "";
    const tariff = await call(mine, "POST", "/tariffs", 201, "single", {
      data: {
        type: "tariff",
        attributes: {
          kind: "demurrage",
          free_days: 4,
          clock_starts_at: "discharged",
          tiers: [{ from_day: 1, to_day: null, rate_per_day: "100.00", currency_code: "USD" }],
        },
      },
    });
    await call(mine, "GET", "/tariffs", 200, "list");
    await call(mine, "GET", `/tariffs/${tariff.data.id}`, 200, "single");
    await call(mine, "PATCH", `/tariffs/${tariff.data.id}`, 200, "single", {
      data: { type: "tariff", attributes: { free_days: 5 } },
    });
    await call(mine, "GET", `/containers/${boxId}/charges?as_of=2026-11-29`, 200, "single");
    await call(mine, "GET", "/charges?filter[status]=any", 200, "list");
    await call(other, "GET", `/tariffs/${tariff.data.id}`, 404, "error");
    await call(other, "GET", `/containers/${boxId}/charges`, 404, "error");
    await call(mine, "POST", "/tariffs", 422, "error", { data: { type: "tariff", attributes: { kind: "x" } } });
  });

  it("team, invitations and API keys (docs/api.md §Team and API keys; extensions, checked as JSON:API documents)", async () => {
    const mine = await createAccount("Team");
    setInvitationTransport({ smtp: null, linksToConsole: true, log: () => undefined });
    try {
      const invitation = await call(mine, "POST", "/invitations", 201, "single", {
        data: { type: "invitation", attributes: { email: "contract@example.test", role: "member" } },
      });
      await call(mine, "GET", "/invitations?filter[status]=pending", 200, "list");
      await call(mine, "GET", `/invitations/${invitation.data.id}`, 200, "single");
      await call(other, "GET", `/invitations/${invitation.data.id}`, 404, "error");
      await call(mine, "DELETE", `/invitations/${invitation.data.id}`, 200, "none");
    } finally {
      setInvitationTransport(null);
    }
    const users = await call(mine, "GET", "/users", 200, "list");
    expect(users.data).toEqual([]);
    await call(mine, "POST", "/invitations", 422, "error", {
      data: { type: "invitation", attributes: { email: "nope", role: "member" } },
    });
    const key = await call(mine, "POST", "/api_keys", 201, "single", {
      data: { type: "api_key", attributes: { name: "contract" } },
    });
    await call(mine, "GET", "/api_keys", 200, "list");
    await call(mine, "GET", `/api_keys/${key.data.id}`, 200, "single");
    await call(other, "DELETE", `/api_keys/${key.data.id}`, 404, "error");
    await call(mine, "DELETE", `/api_keys/${key.data.id}`, 200, "none");
  });

  it("errors (docs/api.md §Errors): 400, 401, 404 (another account's id too), 422", async () => {
    await call(null, "GET", "/containers", 401, "error");
    await call(account, "GET", "/containers?include=nope", 400, "error");
    await call(other, "GET", `/containers/${containerId}`, 404, "error");
    await call(account, "GET", `/shipments/${crypto.randomUUID()}`, 404, "error");
    await call(account, "POST", "/tracking_requests", 422, "error", trackingRequestBody({ request_number: "" }));
    await call(account, "GET", "/webhook_notifications/examples", 400, "error");
  });

  it("no schema finding outside the allow-list, and every allow-list entry still matches", () => {
    const allowed = (f: { where: string; kind: string }) =>
      DEPARTURES.some((d) => d.where === f.where && d.kind === f.kind);
    const unexpected = findings.filter((f) => !allowed(f));
    const unique = [...new Map(unexpected.map((f) => [`${f.where} ${f.kind}`, f])).values()];
    expect(unique.map((f) => `${f.where} [${f.kind}] ${f.message} (${f.request})`)).toEqual([]);
    const stale = DEPARTURES.filter(
      (d) => d.kind !== "missing-name" && !findings.some((f) => f.where === d.where && f.kind === d.kind),
    );
    expect(stale.map((d) => d.where)).toEqual([]);
  });

  it("every attribute and relationship name of every captured sample is served, or listed as a departure", () => {
    const missing: string[] = [];
    const names = (
      samples as {
        names: Record<string, { attributes: Record<string, string[]>; relationships: Record<string, string[]> }>;
      }
    ).names;
    for (const [type, sampled] of Object.entries(names)) {
      const ours = seen[type];
      for (const kind of ["attributes", "relationships"] as const) {
        for (const name of Object.keys(sampled[kind])) {
          if (ours?.[kind].has(name)) continue;
          const where = `${type}/${kind}/${name}`;
          if (!DEPARTURES.some((d) => d.kind === "missing-name" && d.where === where)) missing.push(where);
        }
      }
    }
    // Every sampled type was served at least once, so the diff above compared something for each.
    expect(Object.keys(names).filter((type) => !seen[type])).toEqual([]);
    expect(missing).toEqual([]);
    const stale = DEPARTURES.filter((d) => {
      if (d.kind !== "missing-name") return false;
      const [type = "", kind = "", ...rest] = d.where.split("/");
      return seen[type]?.[kind as "attributes" | "relationships"]?.has(rest.join("/")) ?? false;
    });
    expect(stale.map((d) => d.where)).toEqual([]);
  });

  it("the validators refuse what the reference would not send (so the checks above can fail)", async () => {
    const { json } = await apiJson<{ data: Resource }>(`/containers/${containerId}`, { key: account.key });
    const validate = schemas.container as Validate;
    expect(validate(json.data)).toBe(true);
    const { ssl_lfd: _dropped, ...attributes } = json.data.attributes;
    expect(validate({ ...json.data, attributes })).toBe(false);
    expect(validate({ ...json.data, attributes: { ...json.data.attributes, created_at: "yesterday" } })).toBe(false);
    expect(validate({ ...json.data, attributes: { ...json.data.attributes, current_status: "lost" } })).toBe(false);
    expect(
      (schemas.raw_event as Validate)({ id: "r", type: "raw_event", attributes: { event: "vessel_berthed" } }),
    ).toBe(false);
  });
});
