import { exports } from "cloudflare:workers";
import { beforeAll, describe, expect, it } from "vitest";
import { EXTRACTION_SCHEMA_VERSION } from "../../src/documents/extraction";
import { billOfLadingPdf } from "../fixtures/documents";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { putBytes, reserve } from "../helpers/document-uploads";
import { createMailbox, deliverEmail, mimeMessage } from "../helpers/email-submissions";
import { trackSandboxShipment } from "../helpers/tracking";
import { until } from "../helpers/vessels";
import generated from "./contract/postman-requests.generated.json";

// Issue 26: "The reference's Postman collection: the custom-field and document requests pass." Every request of the
// collection's custom-field and document folders (test/app/contract/postman-requests.generated.json, the interface
// facts scripts/contract/postman-requests.mjs extracts from Terminal49/API's collection; the collection itself is not
// committed) is sent to the Worker as the collection sends it: its method, path template, query keys, body shape and
// Accept / Content-Type headers, with `Authorization: Token <key>` (the collection's apikey auth). Each placeholder is
// filled with a real value of its kind from the steps before (a tracked sandbox shipment, definitions, an uploaded
// document, an e-mail submission). Each request must get the collection's documented success status and a body of
// the documented shape: the same top-level keys (`included` only when the request asks for an include: JSON:API
// leaves it out when nothing is included) and the same `data.type`.

interface DocumentedResponse {
  status: number;
  top_level_keys: string[] | null;
  data?: "array" | "object";
  data_type?: string;
}

interface CollectionRequest {
  folder: string;
  name: string;
  method: string;
  path: string;
  path_variables: string[];
  query: { key: string; placeholder?: string; example?: string | null; disabled?: boolean }[];
  headers: Record<string, string>;
  body: unknown;
  responses: DocumentedResponse[];
}

const REQUESTS = (generated as { requests: CollectionRequest[] }).requests;

/** `METHOD /path` of a collection request. */
const keyOf = (r: Pick<CollectionRequest, "method" | "path">) => `${r.method} ${r.path}`;

/**
 * The order the requests are sent in: what a request needs is made by the ones before it (a definition before its
 * options and values, values before their updates, deletes last).
 */
const ORDER = [
  "POST /custom_field_definitions",
  "GET /custom_field_definitions",
  "GET /custom_field_definitions/:id",
  "PATCH /custom_field_definitions/:id",
  "POST /custom_field_definitions/:definition_id/options",
  "GET /custom_field_definitions/:definition_id/options",
  "GET /custom_field_definitions/:definition_id/options/:option_id",
  "PATCH /custom_field_definitions/:definition_id/options/:option_id",
  "POST /custom_fields",
  "GET /custom_fields",
  "GET /custom_fields/:id",
  "PATCH /custom_fields/:id",
  "POST /shipments/:shipment_id/custom_fields",
  "GET /shipments/:shipment_id/custom_fields",
  "PATCH /shipments/:shipment_id/custom_fields/:api_slug",
  "DELETE /shipments/:shipment_id/custom_fields/:api_slug",
  "POST /containers/:container_id/custom_fields",
  "GET /containers/:container_id/custom_fields",
  "PATCH /containers/:container_id/custom_fields/:api_slug",
  "DELETE /containers/:container_id/custom_fields/:api_slug",
  "POST /tracking_requests/:tracking_request_id/custom_fields",
  "GET /tracking_requests/:tracking_request_id/custom_fields",
  "PATCH /tracking_requests/:tracking_request_id/custom_fields/:api_slug",
  "DELETE /tracking_requests/:tracking_request_id/custom_fields/:api_slug",
  "DELETE /custom_fields/:id",
  "DELETE /custom_field_definitions/:definition_id/options/:option_id",
  "DELETE /custom_field_definitions/:id",
  "POST /documents",
  "GET /documents",
  "GET /documents/types",
  "GET /documents/:id",
  "PATCH /documents/:id",
  "GET /documents/:id/download_url",
  "POST /documents/:id/reextract",
  "POST /documents/:id/reclassify",
  "POST /documents/:id/relink",
  "POST /documents/:id/rotate",
  "GET /email_submissions",
  "GET /email_submissions/:id",
  "GET /document_schemas/:id",
  "DELETE /documents/:id",
];

/** A 1×1 PNG (the rotate request applies to images). */
const PNG = Uint8Array.from(
  atob("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII="),
  (c) => c.charCodeAt(0),
);

/** Ids and values made before and during the walk, by name. */
const state: Record<string, string> = {};
let account: TestAccount;

async function define(api_slug: string, entity_type: string, data_type: string): Promise<string> {
  const { res, json } = await apiJson<{ data: { id: string } }>("/custom_field_definitions", {
    key: account.key,
    body: {
      data: {
        type: "custom_field_definition",
        attributes: { api_slug, entity_type, data_type, display_name: api_slug },
      },
    },
  });
  expect(res.status).toBe(201);
  return json.data.id;
}

/** Reserves and uploads a blob (steps 1–2 of the direct upload); returns its signed_id for `POST /documents`. */
async function uploadedBlob(bytes: Uint8Array, filename: string, content_type: string): Promise<string> {
  const reserved = await reserve(account, bytes, { filename, content_type });
  expect(reserved.res.status).toBe(200);
  expect((await putBytes(reserved.json, bytes)).status).toBe(204);
  return reserved.json.signed_id;
}

beforeAll(async () => {
  account = await createAccount();
  const tracked = await trackSandboxShipment(account);
  state.shipment_id = tracked.shipment.id;
  state.container_id = tracked.containerIds[0] ?? "";
  state.tracking_request_id = tracked.request.id;
  // Definitions the collection's value requests write to: one per entity type, and an enum one for the options.
  state.enum_definition_id = await define("incoterm", "Shipment", "enum");
  state.shipment_definition_id = await define("po_number", "Shipment", "short_text");
  await define("customer_ref", "Shipment", "short_text");
  await define("seal_note", "Container", "short_text");
  await define("broker_ref", "TrackingRequest", "short_text");
  state.bl_signed_id = await uploadedBlob(
    await billOfLadingPdf(),
    "bill of lading MAEU241234567.pdf",
    "application/pdf",
  );
  // A PNG document for rotate (images only), and an e-mailed one for /email_submissions.
  const png = await apiJson<{ data: { id: string } }>("/documents", {
    key: account.key,
    body: {
      data: {
        type: "document",
        attributes: { name: "photo", attached_document: await uploadedBlob(PNG, "photo.png", "image/png") },
      },
    },
  });
  expect(png.res.status).toBe(201);
  state.image_document_id = png.json.data.id;
  const address = await createMailbox(account, ["desk@carrier.example"]);
  // The same bytes as the BL uploaded above would be a duplicate: the e-mail carries a one-byte-longer copy.
  const bytes = new Uint8Array([...(await billOfLadingPdf()), 10]);
  expect(
    await deliverEmail(
      "desk@carrier.example",
      address,
      mimeMessage({
        from: "desk@carrier.example",
        to: address,
        subject: "Delivery order",
        attachments: [{ filename: "scan.pdf", contentType: "application/pdf", bytes }],
      }),
    ),
  ).toEqual([]);
  const submissions = await apiJson<{ data: { id: string }[] }>("/email_submissions", { key: account.key });
  state.email_submission_id = submissions.json.data[0]?.id ?? "";
  expect(state.email_submission_id).not.toBe("");
});

/** The value of a path variable of `request`. */
function pathValue(request: CollectionRequest, name: string): string {
  const p = request.path;
  if (name === "id") {
    if (p.startsWith("/custom_field_definitions")) return state.definition_id ?? "";
    if (p.startsWith("/custom_fields")) return state.custom_field_id ?? "";
    if (p === "/documents/:id/rotate") return state.image_document_id ?? "";
    if (p.startsWith("/documents")) return state.document_id ?? "";
    if (p.startsWith("/email_submissions")) return state.email_submission_id ?? "";
    if (p.startsWith("/document_schemas")) return `bill_of_lading@${EXTRACTION_SCHEMA_VERSION}`;
  }
  if (name === "definition_id") return state.enum_definition_id ?? "";
  if (name === "option_id") return state.option_id ?? "";
  if (name === "api_slug") return slugFor(p);
  const value = state[name];
  if (value === undefined) throw new Error(`no value for :${name} of ${keyOf(request)}`);
  return value;
}

/** The definition a value request of `path` writes (one per entity type, see beforeAll). */
function slugFor(path: string): string {
  if (path.startsWith("/shipments")) return "customer_ref";
  if (path.startsWith("/containers")) return "seal_note";
  if (path.startsWith("/tracking_requests")) return "broker_ref";
  return "po_number";
}

/** A query placeholder's value: one that matches what the steps before made (so a list answers a row). */
function queryValue(request: CollectionRequest, key: string): string {
  const p = request.path;
  const values: Record<string, string> = {
    "page[number]": "1",
    "page[size]": "25",
    sort: "-created_at",
    "filter[filename]": "maeu2412",
    "filter[reference]": "MAEU241234567",
    "filter[document_types]": "bill_of_lading",
  };
  if (key === "include") {
    if (p.startsWith("/email_submissions")) return "documents";
    return "last_document_representation";
  }
  if (p === "/custom_field_definitions") {
    const defs: Record<string, string> = {
      "filter[entity_type]": "Container",
      "filter[data_type]": "number",
      "filter[display_name]": "Gross",
    };
    if (defs[key]) return defs[key];
  }
  if (p === "/custom_fields") {
    const fields: Record<string, string> = {
      "filter[entity_type]": "Shipment",
      "filter[entity_id]": state.shipment_id ?? "",
      "filter[definition_id]": state.shipment_definition_id ?? "",
    };
    if (fields[key]) return fields[key];
  }
  const value = values[key];
  if (value === undefined) throw new Error(`no value for ?${key} of ${keyOf(request)}`);
  return value;
}

/**
 * A body placeholder's value, by the attribute it fills (`at` is its key path). Values are of the kind the reference
 * documents for the attribute; `reference_type` of a number field is null (it applies to reference fields only), and
 * `default_value` a number.
 */
function bodyValue(request: CollectionRequest, at: string[], placeholder: string): unknown {
  const key = at[at.length - 1] ?? "";
  const p = request.path;
  if (p === "/custom_field_definitions" || p === "/custom_field_definitions/:id") {
    const definition: Record<string, unknown> = {
      api_slug: "gross_weight_kg",
      display_name: request.method === "POST" ? "Gross weight (kg)" : "Gross weight in kg",
      description: "Gross weight of the box as declared on the BL.",
      reference_type: null,
      validation: { required: false },
      default_format: "0.0",
      // A custom field value of the definition's type (REFERENCE-SERVICE-MORE.md §6: `default_value` is a value,
      // `false` for a boolean definition); the collection writes every such value as `<string>`.
      default_value: 0,
    };
    if (key in definition) return definition[key];
  }
  if (p.includes("/options")) {
    const option: Record<string, unknown> = {
      label: request.method === "POST" ? "Ex Works" : "Ex Works (named place)",
      value: "EXW",
      position: request.method === "POST" ? 1 : 2,
    };
    if (key in option) return option[key];
  }
  if (key === "api_slug") return slugFor(p);
  if (key === "value") return request.method === "POST" ? "REF-1001" : "REF-1002";
  if (at.join(".") === "data.relationships.entity.data.id") return state.shipment_id;
  if (p.startsWith("/documents")) {
    const document: Record<string, unknown> = {
      name: "Master BL MAEU241234567",
      attached_document: state.bl_signed_id,
      document_type_manual: "bill_of_lading",
      extracted_data_manual: { bill_of_lading_number: "MAEU241234567" },
    };
    if (key in document) return document[key];
  }
  throw new Error(`no value for ${placeholder} at ${at.join(".")} of ${keyOf(request)}`);
}

/** The collection's body shape with every placeholder filled (non-placeholder values are sent as documented). */
function filledBody(request: CollectionRequest, node: unknown, at: string[] = []): unknown {
  if (typeof node === "string" && /^<[a-z-]+>$/.test(node)) return bodyValue(request, at, node);
  if (Array.isArray(node)) return node.map((n, i) => filledBody(request, n, [...at, String(i)]));
  if (node && typeof node === "object") {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, filledBody(request, v, [...at, k])]));
  }
  return node;
}

/** The request as the collection sends it, placeholders filled, to the Worker's fetch handler. */
async function send(request: CollectionRequest): Promise<{ res: Response; text: string; url: string }> {
  let path = request.path;
  for (const name of request.path_variables)
    path = path.replace(`:${name}`, encodeURIComponent(pathValue(request, name)));
  const url = new URL(`https://api.test/v2${path}`);
  for (const q of request.query) {
    if (q.disabled) continue;
    url.searchParams.set(q.key, q.placeholder ? queryValue(request, q.key) : String(q.example ?? ""));
  }
  const headers = new Headers(request.headers);
  headers.set("Authorization", `Token ${account.key}`);
  const body = request.body === null ? undefined : JSON.stringify(filledBody(request, request.body));
  const res = await exports.default.fetch(new Request(url, { method: request.method, headers, body }));
  return { res, text: await res.text(), url: `${request.method} ${url.pathname}${url.search}` };
}

/** Keeps what later requests need from a response. */
function remember(request: CollectionRequest, json: { data?: { id?: string } } | null): void {
  const id = json?.data?.id;
  if (request.method !== "POST" || !id) return;
  if (request.path === "/custom_field_definitions") state.definition_id = id;
  if (request.path.endsWith("/options")) state.option_id = id;
  if (request.path === "/custom_fields") state.custom_field_id = id;
  if (request.path === "/documents") state.document_id = id;
}

describe("the reference's Postman collection: custom field and document requests (issue 26)", () => {
  it("names its source, and the walk covers every generated request once", () => {
    expect((generated as { source: Record<string, string> }).source).toEqual({
      repo: "Terminal49/API",
      path: "Terminal49-API.postman_collection.json",
      commit: "8796ede839275872f58e10b859d8c1f9d50aa12a",
    });
    expect([...REQUESTS.map(keyOf)].sort()).toEqual([...ORDER].sort());
  });

  for (const key of ORDER) {
    const request = REQUESTS.find((r) => keyOf(r) === key);
    it(`${request?.folder ?? "?"}: ${request?.name ?? key} (${key})`, async () => {
      if (!request) throw new Error(`${key} is not in the generated requests`);
      const documented = request.responses.find((r) => r.status >= 200 && r.status < 300);
      if (!documented) throw new Error(`${key} documents no success status`);
      if (key === "GET /documents") {
        // The list reads what extraction found: wait for the uploaded BL's representation first.
        await until(async () => {
          const { json } = await apiJson<{ data: { relationships: Record<string, { data: unknown }> } }>(
            `/documents/${state.document_id}`,
            { key: account.key },
          );
          return json.data.relationships.last_document_representation?.data != null;
        });
      }
      const { res, text, url } = await send(request);
      expect(res.status, `${url}: ${text.slice(0, 300)}`).toBe(documented.status);
      const json = text === "" ? null : (JSON.parse(text) as Record<string, unknown> & { data?: unknown });
      remember(request, json as { data?: { id?: string } } | null);
      if (documented.top_level_keys === null) {
        // No documented body: nothing but an empty body or a bare JSON value.
        if (documented.status === 204) expect(text, url).toBe("");
        else expect(json && typeof json === "object" && "errors" in json, url).toBeFalsy();
        return;
      }
      const asksInclude = request.query.some((q) => q.key === "include" && !q.disabled);
      const expected = documented.top_level_keys.filter((k) => k !== "included" || asksInclude);
      expect(Object.keys(json ?? {}).sort(), url).toEqual([...expected].sort());
      if (documented.data === "array") {
        expect(Array.isArray(json?.data), url).toBe(true);
        const items = json?.data as { type: string }[];
        expect(items.length, `${url}: the steps before made a matching row`).toBeGreaterThan(0);
        if (documented.data_type) expect([...new Set(items.map((d) => d.type))], url).toEqual([documented.data_type]);
      } else if (documented.data === "object") {
        expect((json?.data as { type?: string } | undefined)?.type, url).toBe(documented.data_type);
      }
    });
  }
});
