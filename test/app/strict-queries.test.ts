import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { ROUTING_ENTITLEMENT } from "../../src/containers/shipping-route";
import { api, apiJson, createAccount, type TestAccount, trackingRequestBody } from "../helpers/api";

// Issue 11 §2: strict, predictable queries and methods (docs/decisions.md §Wire format, changed 2026-11-25).

const JSON_API = "application/vnd.api+json";

interface ErrorBody {
  errors: { status: string; title: string; detail?: string | null; code?: string; source?: Record<string, string> }[];
}

/** Sends the request and asserts a JSON:API error document with `status`; returns its errors. */
async function expectError(res: Response, status: number, label = ""): Promise<ErrorBody["errors"]> {
  expect(res.status, label).toBe(status);
  expect(res.headers.get("content-type"), label).toBe(JSON_API);
  const body = (await res.json()) as ErrorBody;
  expect(Object.keys(body), label).toEqual(["errors"]);
  for (const e of body.errors) {
    expect(e.status, label).toBe(String(status));
    expect(typeof e.title, label).toBe("string");
  }
  return body.errors;
}

let sequence = 0;
function uniqueNumber(): string {
  sequence += 1;
  return `SQ${crypto.randomUUID().slice(0, 8).toUpperCase()}${sequence}`;
}

async function createTrackingRequest(key: string): Promise<string> {
  const { res, json } = await apiJson<{ data: { id: string } }>("/tracking_requests", {
    key,
    body: trackingRequestBody({ request_number: uniqueNumber(), scac: "TEST" }),
  });
  expect(res.status).toBe(201);
  return json.data.id;
}

/** The operations of the OpenAPI document: every route the API declares, new ones included automatically. */
async function operations(): Promise<{ method: string; path: string; parameters: QueryParameter[] }[]> {
  const doc = (await (await api("/openapi.json")).json()) as {
    paths: Record<string, Record<string, { parameters?: (QueryParameter & { in: string })[] }>>;
  };
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({
      method: method.toUpperCase(),
      path,
      parameters: (op.parameters ?? []).filter((p) => p.in === "query"),
    })),
  );
}

/** A query parameter of the OpenAPI document. */
interface QueryParameter {
  name: string;
  schema?: { enum?: string[] };
}

describe("unknown query parameters → 400 naming them", () => {
  it("every operation of the OpenAPI document refuses an undeclared parameter before doing anything", async () => {
    const ops = await operations();
    expect(ops.length).toBeGreaterThan(20);
    let key = "";
    for (const [i, op] of ops.entries()) {
      // A fresh account every 50 operations: a key's default budget is 100 requests a minute.
      if (i % 50 === 0) key = (await createAccount()).key;
      const path = op.path.replaceAll(/\{[^}]+\}/g, crypto.randomUUID());
      const res = await api(`${path}?bogus=1`, { key, method: op.method });
      const errors = await expectError(res, 400, `${op.method} ${op.path}`);
      expect(
        errors.map((e) => e.source?.parameter),
        `${op.method} ${op.path}`,
      ).toEqual(["bogus"]);
      expect(errors[0]?.code, `${op.method} ${op.path}`).toBe("unknown_parameter");
    }
  });

  it("the cases of the issue: filters a list does not have, sort, sparse fieldsets, include[], operators", async () => {
    const { key } = await createAccount();
    const cases: [path: string, parameter: string][] = [
      ["/parties?filter[company_name]=Acme", "filter[company_name]"],
      ["/shipments?filter[number]=X", "filter[number]"],
      // GET /containers has had `sort` since issue 28 (an extension): its other strict parameters still are.
      ["/shipments?sort=-created_at", "sort"],
      ["/tracking_requests?sort=created_at", "sort"],
      ["/containers?fields[container]=number", "fields[container]"],
      ["/containers?include[]=shipment", "include[]"],
      ["/containers?filter[number][eq]=MSCU1234566", "filter[number][eq]"],
      ["/containers?filter%5Bnumber%5D%5Beq%5D=MSCU1234566", "filter[number][eq]"],
      ["/webhooks?filter[active]=true", "filter[active]"],
      ["/webhook_notifications?sort=created_at", "sort"],
      ["/parties?include=customer", "include"],
      ["/shipping_lines?filter[scac]=MSCU", "filter[scac]"],
    ];
    for (const [path, parameter] of cases) {
      const errors = await expectError(await api(path, { key }), 400, path);
      expect(
        errors.map((e) => e.source?.parameter),
        path,
      ).toEqual([parameter]);
      expect(errors[0]?.detail, path).toContain(parameter);
    }
  });

  it("every unknown parameter is reported, each with its own error", async () => {
    const { key } = await createAccount();
    const errors = await expectError(await api("/shipments?foo=1&filter[number]=X&sort=a&bar=2", { key }), 400);
    expect(errors.map((e) => e.source?.parameter)).toEqual(["foo", "filter[number]", "sort", "bar"]);
  });

  it("a parameter given twice → 400 naming it (which one would count is not guessed)", async () => {
    const { key } = await createAccount();
    const errors = await expectError(await api("/containers?page[size]=1&page[size]=2", { key }), 400);
    expect(errors.map((e) => e.source?.parameter)).toEqual(["page[size]"]);
    expect(errors[0]?.code).toBe("duplicate_parameter");
  });

  it("every parameter an endpoint declares is still accepted", async () => {
    const { key } = await createAccount();
    const ops = (await operations()).filter((o) => o.method === "GET" && !o.path.includes("{"));
    const values: Record<string, string> = {
      "page[number]": "1",
      "page[size]": "5",
      "filter[event]": "container.transport.vessel_arrived",
      event: "container.transport.vessel_arrived",
      "filter[document_types]": "bill_of_lading",
      include: "",
      // At least 3 characters (docs/api.md §Documents).
      "filter[reference]": "MSKU123",
      // GET /charges (issue 27): a date and a number of days.
      as_of: "2026-01-01",
      "filter[within_days]": "3",
    };
    // Parameters whose valid values differ between endpoints.
    const byPath: Record<string, Record<string, string>> = {
      "/documents": { sort: "-created_at" },
      "/charges": { sort: "-amount" },
      "/containers": { sort: "-pickup_lfd", "filter[search]": "MSCU" },
    };
    let checked = 0;
    for (const op of ops) {
      if (op.parameters.length === 0) continue;
      const query = new URLSearchParams();
      for (const { name, schema } of op.parameters) {
        const value =
          byPath[op.path]?.[name] ??
          values[name] ??
          schema?.enum?.[0] ??
          (name.endsWith("[start]") || name.endsWith("[end]") ? "2026-01-01" : "x");
        query.set(name, value);
      }
      checked += 1;
      const res = await api(`${op.path}?${query}`, { key });
      expect(res.status, `${op.path}?${query}: ${await res.clone().text()}`).toBe(200);
    }
    expect(checked).toBeGreaterThan(5);
  });

  it("public paths are strict too, and the check comes after authentication", async () => {
    const errors = await expectError(await api("/health?x=1"), 400);
    expect(errors[0]?.source?.parameter).toBe("x");
    expect((await api("/containers?bogus=1")).status).toBe(401);
  });
});

describe("methods a path does not have → 405 with Allow", () => {
  it("a known path with another method answers 405, an Allow header and a JSON:API body; nothing changes", async () => {
    const account = await createAccount();
    const trId = await createTrackingRequest(account.key);
    const cases: [method: string, path: string, allow: string][] = [
      ["DELETE", "/containers", "GET, HEAD, OPTIONS"],
      ["PUT", "/containers", "GET, HEAD, OPTIONS"],
      ["POST", `/containers/${crypto.randomUUID()}`, "GET, HEAD, PATCH, OPTIONS"],
      ["DELETE", `/tracking_requests/${trId}`, "GET, HEAD, PATCH, OPTIONS"],
      ["PUT", "/tracking_requests", "GET, HEAD, POST, OPTIONS"],
      ["GET", `/containers/${crypto.randomUUID()}/refresh`, "PATCH, OPTIONS"],
      ["PUT", `/webhooks/${crypto.randomUUID()}`, "GET, HEAD, PATCH, DELETE, OPTIONS"],
    ];
    for (const [method, path, allow] of cases) {
      const res = await api(path, { key: account.key, method });
      expect(res.headers.get("allow"), `${method} ${path}`).toBe(allow);
      const errors = await expectError(res, 405, `${method} ${path}`);
      expect(errors[0]?.title).toBe("Method Not Allowed");
      expect(errors[0]?.detail, `${method} ${path}`).toContain(method);
    }
    const row = await env.DB.prepare("SELECT id FROM tracking_requests WHERE id = ?1").bind(trId).first();
    expect(row).not.toBeNull();
  });

  it("outside /v2 too, and without a key where the path needs none", async () => {
    for (const [url, allow] of [
      ["https://api.test/health", "GET, HEAD, OPTIONS"],
      ["https://api.test/v2/health", "GET, HEAD, OPTIONS"],
    ] as const) {
      const res = await exports.default.fetch(new Request(url, { method: "POST" }));
      expect(res.headers.get("allow"), url).toBe(allow);
      await expectError(res, 405, url);
    }
  });

  it("OPTIONS on a known path → 204 with Allow; HEAD works wherever GET does", async () => {
    const { key } = await createAccount();
    const options = await api("/tracking_requests", { key, method: "OPTIONS" });
    expect(options.status).toBe(204);
    expect(options.headers.get("allow")).toBe("GET, HEAD, POST, OPTIONS");
    expect(await options.text()).toBe("");
    const head = await api("/containers", { key, method: "HEAD" });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe("");
  });

  it("unknown paths stay 404 whatever the method", async () => {
    const { key } = await createAccount();
    for (const method of ["GET", "POST", "DELETE", "OPTIONS"]) {
      const res = await api("/nope", { key, method });
      expect(res.headers.get("allow"), method).toBeNull();
      await expectError(res, 404, method);
    }
  });
});

describe("over-long ids answer the 404 of an unknown id", () => {
  it("every GET /…/{id} of the OpenAPI document: 65 and 5000 characters read like an unknown id", async () => {
    const ops = (await operations()).filter((o) => o.method === "GET" && /\{\w+\}/.test(o.path));
    expect(ops.length).toBeGreaterThan(8);
    const withId = (path: string, id: string) => path.replace(/\{\w+\}/, id);
    for (const op of ops) {
      // One account per operation: three requests each, and a key's default budget is 100 a minute.
      const { key, accountId } = await createAccount();
      // With the entitlement, /containers/{id}/route reads the id too (without it every id answers the same 403).
      await env.DB.prepare("UPDATE accounts SET entitlements = ?1 WHERE id = ?2")
        .bind(JSON.stringify([ROUTING_ENTITLEMENT]), accountId)
        .run();
      // Six characters an id never has (not a UUID, a SCAC, a UN/LOCODE): unknown wherever it goes.
      const unknown = await api(withId(op.path, "ZZZZZZ"), { key });
      expect(unknown.status, op.path).toBe(404);
      const expected = await unknown.json();
      for (const length of [65, 5000]) {
        const res = await api(withId(op.path, "Z".repeat(length)), { key });
        expect(res.status, `${op.path} ${length}`).toBe(404);
        expect(await res.json(), `${op.path} ${length}`).toEqual(expected);
      }
    }
  });
});

/** Values with a C0 control character or DEL: all refused in free text. */
const CONTROLS: [label: string, value: string][] = [
  ["NUL", "PO\u0000123"],
  ["BEL", "PO\u0007123"],
  ["TAB", "PO\t123"],
  ["LF", "PO\n123"],
  ["CR LF", "PO\r\nX-Injected: 1"],
  ["ESC", "\u001b[31mred"],
  ["US", "PO\u001f"],
  ["DEL", "PO\u007f"],
];

/** Each free-text field: where to write it, the body carrying a value, and the pointer of the value. */
interface FreeTextField {
  name: string;
  setup: (account: TestAccount) => Promise<{ method: "POST" | "PATCH"; path: string }>;
  body: (value: string) => unknown;
  pointer: string;
  /** A value the field accepts (default: printable text with unicode). */
  ok?: string;
}

const FIELDS: FreeTextField[] = [
  {
    name: "POST /tracking_requests ref_numbers",
    setup: async () => ({ method: "POST", path: "/tracking_requests" }),
    body: (v) => trackingRequestBody({ request_number: uniqueNumber(), scac: "TEST", ref_numbers: ["ok", v] }),
    pointer: "/data/attributes/ref_numbers/1",
  },
  {
    name: "POST /tracking_requests shipment_tags",
    setup: async () => ({ method: "POST", path: "/tracking_requests" }),
    body: (v) => trackingRequestBody({ request_number: uniqueNumber(), scac: "TEST", shipment_tags: [v] }),
    pointer: "/data/attributes/shipment_tags/0",
  },
  {
    name: "PATCH /tracking_requests/{id} ref_number",
    setup: async ({ key }) => ({ method: "PATCH", path: `/tracking_requests/${await createTrackingRequest(key)}` }),
    body: (v) => ({ data: { type: "tracking_request", attributes: { ref_number: v } } }),
    pointer: "/data/attributes/ref_number",
  },
  {
    name: "PATCH /tracking_requests/{id} ref_numbers",
    setup: async ({ key }) => ({ method: "PATCH", path: `/tracking_requests/${await createTrackingRequest(key)}` }),
    body: (v) => ({ data: { type: "tracking_request", attributes: { ref_numbers: [v] } } }),
    pointer: "/data/attributes/ref_numbers/0",
  },
  {
    name: "POST /parties company_name",
    setup: async () => ({ method: "POST", path: "/parties" }),
    body: (v) => ({ data: { type: "party", attributes: { company_name: `${v} ${uniqueNumber()}` } } }),
    pointer: "/data/attributes/company_name",
  },
  {
    name: "POST /webhooks header value",
    setup: async () => ({ method: "POST", path: "/webhooks" }),
    body: (v) => ({
      data: {
        type: "webhook",
        attributes: {
          url: "https://hooks.example.com/receive",
          events: ["container.transport.vessel_arrived"],
          headers: [{ name: "x-secret-sauce", value: v }],
        },
      },
    }),
    pointer: "/data/attributes/headers/0/value",
    ok: "sriracha PO-123",
  },
];

/** Everything the writes above could change for an account. */
async function snapshot(accountId: string): Promise<string> {
  const rows = await env.DB.batch([
    env.DB.prepare(
      "SELECT id, ref_numbers, shipment_tags FROM tracking_requests WHERE account_id = ?1 ORDER BY id",
    ).bind(accountId),
    env.DB.prepare("SELECT id, company_name FROM parties WHERE account_id = ?1 ORDER BY id").bind(accountId),
    env.DB.prepare("SELECT id, url, headers FROM webhooks WHERE account_id = ?1 ORDER BY id").bind(accountId),
    env.DB.prepare("SELECT id, ref_numbers, tags FROM shipments WHERE account_id = ?1 ORDER BY id").bind(accountId),
  ]);
  return JSON.stringify(rows.map((r) => r.results));
}

/** A shipment row of `accountId` written straight to D1 (for the PATCH /shipments/{id} cases); its id. */
async function insertShipment(accountId: string): Promise<string> {
  const shipmentId = crypto.randomUUID();
  await env.DB.prepare(
    `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?3, 'TEST', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
  )
    .bind(shipmentId, accountId, uniqueNumber())
    .run();
  return shipmentId;
}

describe("free text refuses C0 control characters and DEL", () => {
  it.each(FIELDS.map((f) => [f.name, f] as const))("%s → 422 control_character, nothing written", async (_n, f) => {
    const account = await createAccount();
    const { method, path } = await f.setup(account);
    const before = await snapshot(account.accountId);
    for (const [label, value] of CONTROLS) {
      const res = await api(path, { key: account.key, method, body: f.body(value) });
      const errors = await expectError(res, 422, label);
      expect(
        errors.map((e) => [e.source?.pointer, e.code]),
        label,
      ).toEqual([[f.pointer, "control_character"]]);
    }
    expect(await snapshot(account.accountId)).toBe(before);
    // Printable text, unicode included where the field takes it, still passes.
    const ok = await api(path, { key: account.key, method, body: f.body(f.ok ?? "PO-123 é 🚢") });
    expect(ok.status, await ok.clone().text()).toBeLessThan(300);
  });

  it("PATCH /shipments/{id} ref_numbers and tags", async () => {
    const account = await createAccount();
    const shipmentId = await insertShipment(account.accountId);
    const before = await snapshot(account.accountId);
    for (const attribute of ["ref_numbers", "tags"]) {
      for (const [label, value] of CONTROLS) {
        const res = await api(`/shipments/${shipmentId}`, {
          key: account.key,
          method: "PATCH",
          body: { data: { type: "shipment", attributes: { [attribute]: [value] } } },
        });
        const errors = await expectError(res, 422, `${attribute} ${label}`);
        expect(errors.map((e) => [e.source?.pointer, e.code])).toEqual([
          [`/data/attributes/${attribute}/0`, "control_character"],
        ]);
      }
    }
    expect(await snapshot(account.accountId)).toBe(before);
  });
});

/**
 * Strings a JSON body can spell with `\uXXXX` escapes that are no Unicode text: a surrogate without its pair
 * (`JSON.stringify` writes each as an escape, as a hostile client would). D1 cannot store them (issue 23 §6).
 */
const UNPAIRED: [label: string, value: string][] = [
  ["lone high surrogate", "x\uD800y"],
  ["lone low surrogate", "x\uDC00y"],
  ["pair reversed", "x\uDFFF\uD800y"],
  ["high surrogate at the end", "PO-1\uD83D"],
];

/** Strings of the write bodies that are not free text, with the pointer of each. */
const OTHER_STRINGS: FreeTextField[] = [
  {
    name: "POST /tracking_requests request_number",
    setup: async () => ({ method: "POST", path: "/tracking_requests" }),
    body: (v) => trackingRequestBody({ request_number: v, scac: "TEST" }),
    pointer: "/data/attributes/request_number",
  },
  {
    name: "POST /tracking_requests scac",
    setup: async () => ({ method: "POST", path: "/tracking_requests" }),
    body: (v) => trackingRequestBody({ request_number: uniqueNumber(), scac: v }),
    pointer: "/data/attributes/scac",
  },
  {
    name: "POST /tracking_requests initial_custom_fields value",
    setup: async () => ({ method: "POST", path: "/tracking_requests" }),
    body: (v) =>
      trackingRequestBody({ request_number: uniqueNumber(), scac: "TEST", initial_custom_fields: { po: v } }),
    pointer: "/data/attributes/initial_custom_fields/po",
  },
  {
    name: "POST /webhooks url",
    setup: async () => ({ method: "POST", path: "/webhooks" }),
    body: (v) => ({
      data: {
        type: "webhook",
        attributes: { url: `https://hooks.example.com/${v}`, events: ["container.transport.vessel_arrived"] },
      },
    }),
    pointer: "/data/attributes/url",
  },
  {
    name: "POST /webhooks events",
    setup: async () => ({ method: "POST", path: "/webhooks" }),
    body: (v) => ({
      data: {
        type: "webhook",
        attributes: { url: "https://hooks.example.com/receive", events: ["container.transport.vessel_arrived", v] },
      },
    }),
    pointer: "/data/attributes/events/1",
  },
];

describe("body strings refuse unpaired UTF-16 surrogates (issue 23 §6)", () => {
  it.each([...FIELDS, ...OTHER_STRINGS].map((f) => [f.name, f] as const))(
    "%s → 422 unpaired_surrogate at its pointer, nothing written",
    async (_n, f) => {
      const account = await createAccount();
      const { method, path } = await f.setup(account);
      const before = await snapshot(account.accountId);
      for (const [label, value] of UNPAIRED) {
        const res = await api(path, { key: account.key, method, body: f.body(value) });
        const errors = await expectError(res, 422, label);
        expect(
          errors.map((e) => [e.source?.pointer, e.code]),
          label,
        ).toEqual([[f.pointer, "unpaired_surrogate"]]);
      }
      expect(await snapshot(account.accountId)).toBe(before);
    },
  );

  it("POST /parties: the party is not created, so no list or read shows it", async () => {
    const account = await createAccount();
    const res = await api("/parties", {
      key: account.key,
      body: { data: { type: "party", attributes: { company_name: "x\uD800y" } } },
    });
    const errors = await expectError(res, 422);
    expect(errors).toEqual([
      expect.objectContaining({
        source: { pointer: "/data/attributes/company_name" },
        code: "unpaired_surrogate",
        detail: expect.stringContaining("Company name"),
      }),
    ]);
    const { json } = await apiJson<{ data: unknown[]; meta: { total: number } }>("/parties", { key: account.key });
    expect(json.data).toEqual([]);
    expect(json.meta.total).toBe(0);
    // A surrogate pair (an astral character) is well-formed and round-trips.
    const ship = await apiJson<{ data: { id: string; attributes: { company_name: string } } }>("/parties", {
      key: account.key,
      body: { data: { type: "party", attributes: { company_name: "x\uD83D\uDEA2y" } } },
    });
    expect(ship.res.status).toBe(201);
    const read = await apiJson<{ data: { attributes: { company_name: string } } }>(`/parties/${ship.json.data.id}`, {
      key: account.key,
    });
    expect(read.json.data.attributes.company_name).toBe("x🚢y");
  });

  it("a member name is checked too: its pointer names it", async () => {
    const account = await createAccount();
    const before = await snapshot(account.accountId);
    const res = await api("/tracking_requests", {
      key: account.key,
      body: trackingRequestBody({
        request_number: uniqueNumber(),
        scac: "TEST",
        initial_custom_fields: { "a\uD800": 1 },
      }),
    });
    const errors = await expectError(res, 422);
    expect(errors.map((e) => [e.source?.pointer, e.code])).toEqual([
      ["/data/attributes/initial_custom_fields/a\uD800", "unpaired_surrogate"],
    ]);
    expect(await snapshot(account.accountId)).toBe(before);
  });

  it("PATCH /shipments/{id} ref_numbers and tags", async () => {
    const account = await createAccount();
    const shipmentId = await insertShipment(account.accountId);
    const before = await snapshot(account.accountId);
    for (const attribute of ["ref_numbers", "tags"]) {
      for (const [label, value] of UNPAIRED) {
        const res = await api(`/shipments/${shipmentId}`, {
          key: account.key,
          method: "PATCH",
          body: { data: { type: "shipment", attributes: { [attribute]: ["PO-1", value] } } },
        });
        const errors = await expectError(res, 422, `${attribute} ${label}`);
        expect(errors.map((e) => [e.source?.pointer, e.code])).toEqual([
          [`/data/attributes/${attribute}/1`, "unpaired_surrogate"],
        ]);
      }
    }
    expect(await snapshot(account.accountId)).toBe(before);
  });
});

describe("the reference's other list parameters are implemented, not ignored", () => {
  /** Two shipments of one account, the first with a customer, a reference number and a container. */
  async function seeded() {
    const account = await createAccount();
    const party = await apiJson<{ data: { id: string } }>("/parties", {
      key: account.key,
      body: { data: { type: "party", attributes: { company_name: `Acme Corp ${uniqueNumber()}` } } },
    });
    const partyId = party.json.data.id;
    const companyName = (
      await env.DB.prepare("SELECT company_name FROM parties WHERE id = ?1")
        .bind(partyId)
        .first<{ company_name: string }>()
    )?.company_name;
    const [withCustomer, other] = [crypto.randomUUID(), crypto.randomUUID()];
    const insertShipment = (id: string, bl: string, customerId: string | null, refNumbers: string[]) =>
      env.DB.prepare(
        `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, customer_id, ref_numbers, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?3, 'TEST', ?4, ?5, '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
      ).bind(id, account.accountId, bl, customerId, JSON.stringify(refNumbers));
    const insertContainer = (shipmentId: string, number: string) =>
      env.DB.prepare(
        `INSERT INTO containers (id, account_id, shipment_id, number, current_status, scac, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, 'new', 'TEST', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z')`,
      ).bind(crypto.randomUUID(), account.accountId, shipmentId, number);
    await env.DB.batch([
      insertShipment(withCustomer, "BLWITHCUSTOMER1", partyId, ["PO-77"]),
      insertShipment(other, "BLOTHER2", null, ["PO-88"]),
      insertContainer(withCustomer, "MSCU1234566"),
      insertContainer(other, "MSCU7654321"),
    ]);
    return { account, partyId, companyName: companyName ?? "", withCustomer, other };
  }

  async function ids(key: string, path: string): Promise<string[]> {
    const { res, json } = await apiJson<{ data: { id: string }[] }>(path, { key });
    expect(res.status, path).toBe(200);
    return json.data.map((d) => d.id);
  }

  it("GET /shipments: filter[customer_id] and the deprecated q (tracked number, reference number, container number)", async () => {
    const { account, partyId, withCustomer } = await seeded();
    const key = account.key;
    expect(await ids(key, `/shipments?filter[customer_id]=${partyId}`)).toEqual([withCustomer]);
    expect(await ids(key, `/shipments?filter[customer_id]=${crypto.randomUUID()}`)).toEqual([]);
    for (const q of ["blwithcustomer1", "po-77", "PO-77", "MSCU 123456-6", "mscu1234566"]) {
      expect(await ids(key, `/shipments?${new URLSearchParams({ q })}`), q).toEqual([withCustomer]);
    }
    for (const q of ["PO", "%", "_", "MSCU"]) {
      expect(await ids(key, `/shipments?${new URLSearchParams({ q })}`), q).toEqual([]);
    }
  });

  it("GET /containers: filter[customer_id] and filter[customer_name]", async () => {
    const { account, partyId, companyName, withCustomer } = await seeded();
    const key = account.key;
    const ofCustomer = await ids(key, `/containers?filter[shipment_id]=${withCustomer}`);
    expect(ofCustomer).toHaveLength(1);
    expect(await ids(key, `/containers?filter[customer_id]=${partyId}`)).toEqual(ofCustomer);
    const byName = new URLSearchParams({ "filter[customer_name]": companyName.toUpperCase() });
    expect(await ids(key, `/containers?${byName}`)).toEqual(ofCustomer);
    expect(await ids(key, "/containers?filter[customer_name]=Nobody")).toEqual([]);
    expect(await ids(key, `/containers?filter[customer_id]=${crypto.randomUUID()}`)).toEqual([]);
  });

  it("GET /tracking_requests: the deprecated q (request number or reference number)", async () => {
    const { key } = await createAccount();
    const number = uniqueNumber();
    const { json } = await apiJson<{ data: { id: string } }>("/tracking_requests", {
      key,
      body: trackingRequestBody({ request_number: number, scac: "TEST", ref_numbers: ["Order-5"] }),
    });
    await createTrackingRequest(key);
    for (const q of [number, number.toLowerCase(), "order-5", "ORDER-5"]) {
      expect(await ids(key, `/tracking_requests?${new URLSearchParams({ q })}`), q).toEqual([json.data.id]);
    }
    expect(await ids(key, "/tracking_requests?q=Order")).toEqual([]);
  });
});
