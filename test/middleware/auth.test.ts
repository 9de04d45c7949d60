import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { generateApiKey, sha256Hex } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";
import { api, apiJson, BASE, createAccount, trackingRequestBody } from "../helpers/api";

const UNAUTHORIZED_BODY = {
  errors: [{ status: "401", title: "Unauthorized", detail: "Invalid or missing API key." }],
};

/** Endpoints that need a key, one per family of routes. */
const PROTECTED: { method: string; path: string; body?: unknown }[] = [
  { method: "GET", path: "/tracking_requests" },
  {
    method: "POST",
    path: "/tracking_requests",
    body: trackingRequestBody({ request_number: "TEST-TR-SUCCEEDED", scac: "TEST" }),
  },
  { method: "GET", path: "/shipments" },
  { method: "GET", path: "/containers" },
  { method: "GET", path: "/containers/0190a000-0000-7000-8000-000000000000" },
  { method: "GET", path: "/shipping_lines" },
  { method: "GET", path: "/ports/USLAX" },
  { method: "GET", path: "/parties" },
];

async function expectUnauthorized(res: Response): Promise<void> {
  expect(res.status).toBe(401);
  expect(res.headers.get("WWW-Authenticate")).toBe('Token realm="api"');
  expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
  expect(res.headers.get("X-Request-Id")).toBeTruthy();
  expect(await res.json()).toEqual(UNAUTHORIZED_BODY);
}

describe("missing or bad credentials → 401", () => {
  const cases: [string, Record<string, string>][] = [
    ["no Authorization header", {}],
    ["empty header", { Authorization: "" }],
    ["scheme without key", { Authorization: "Token" }],
    ["wrong scheme", { Authorization: `Basic ${btoa("user:pass")}` }],
    ["key without scheme", { Authorization: generateApiKey("test") }],
    ["malformed key", { Authorization: "Token not-a-real-key" }],
    ["two keys", { Authorization: `Token ${generateApiKey("test")} ${generateApiKey("test")}` }],
    ["unknown key of valid shape", { Authorization: `Token ${generateApiKey("test")}` }],
    ["unknown live key of valid shape", { Authorization: `Bearer ${generateApiKey("live")}` }],
  ];
  for (const [name, headers] of cases) {
    it(`${name}`, async () => {
      for (const endpoint of PROTECTED) {
        const res = await api(endpoint.path, { method: endpoint.method, body: endpoint.body, headers });
        await expectUnauthorized(res);
      }
    });
  }

  it("nothing is written when a create is refused for want of a key", async () => {
    const before = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests").first<{ n: number }>();
    const res = await api("/tracking_requests", {
      body: trackingRequestBody({ request_number: "TEST-TR-SUCCEEDED", scac: "TEST" }),
      headers: { Authorization: `Token ${generateApiKey("test")}` },
    });
    await expectUnauthorized(res);
    const after = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests").first<{ n: number }>();
    expect(after?.n).toBe(before?.n);
  });
});

describe("valid keys", () => {
  it("accepts Token and Bearer, scheme words in any case", async () => {
    const account = await createAccount();
    for (const scheme of ["Token", "Bearer", "token", "bearer", "TOKEN", "BeArEr"]) {
      const res = await api("/tracking_requests", { headers: { Authorization: `${scheme} ${account.key}` } });
      expect(res.status, scheme).toBe(200);
      expect(res.headers.get("X-Request-Id")).toBeTruthy();
    }
  });

  it("tolerates surrounding whitespace", async () => {
    const account = await createAccount();
    const res = await api("/shipments", { headers: { Authorization: `  Token   ${account.key}  ` } });
    expect(res.status).toBe(200);
  });

  it("is case-sensitive in the key itself", async () => {
    const account = await createAccount();
    const body = account.key.slice("svc_test_".length);
    const i = body.search(/[A-Za-z]/);
    const ch = body.charAt(i);
    const swapped = ch === ch.toUpperCase() ? ch.toLowerCase() : ch.toUpperCase();
    const other = `svc_test_${body.slice(0, i)}${swapped}${body.slice(i + 1)}`;
    expect(other).not.toBe(account.key);
    await expectUnauthorized(await api("/shipments", { headers: { Authorization: `Token ${other}` } }));
  });

  it("a revoked key fails on the very next request", async () => {
    const account = await createAccount();
    expect((await api("/containers", { key: account.key })).status).toBe(200);
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ?1 WHERE id = ?2")
      .bind(new Date().toISOString(), account.apiKeyId)
      .run();
    await expectUnauthorized(await api("/containers", { key: account.key }));
    await expectUnauthorized(await api("/tracking_requests", { key: account.key, headers: {} }));
  });

  it("revoking one key leaves the account's other keys working", async () => {
    const account = await createAccount();
    const secondKey = generateApiKey("test");
    await env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?1, ?2, 'second', ?3, ?4, ?5)",
    )
      .bind(newId(), account.accountId, await sha256Hex(secondKey), secondKey.slice(0, 13), "2025-01-01T00:00:00Z")
      .run();
    await env.DB.prepare("UPDATE api_keys SET revoked_at = ?1 WHERE id = ?2")
      .bind(new Date().toISOString(), account.apiKeyId)
      .run();
    await expectUnauthorized(await api("/containers", { key: account.key }));
    expect((await api("/containers", { key: secondKey })).status).toBe(200);
  });

  it("records last_used_at for the key", async () => {
    const account = await createAccount();
    expect((await api("/shipments", { key: account.key })).status).toBe(200);
    const row = await env.DB.prepare("SELECT last_used_at FROM api_keys WHERE id = ?1")
      .bind(account.apiKeyId)
      .first<{ last_used_at: string | null }>();
    expect(row?.last_used_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
  });
});

describe("public endpoints and request ids", () => {
  it("GET /health and /v2/health need no key", async () => {
    for (const url of ["https://api.test/health", `${BASE}/health`]) {
      const res = await api(url);
      expect(res.status, url).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
      expect(res.headers.get("X-Request-Id")).toBeTruthy();
      expect(res.headers.get("WWW-Authenticate")).toBeNull();
    }
  });

  it("GET /v2/openapi.json needs no key, and a bad key does not get in its way", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    const withBadKey = await api("/openapi.json", { headers: { Authorization: "Token nope" } });
    expect(withBadKey.status).toBe(200);
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("every response carries X-Request-Id: success, 401, 404, 422", async () => {
    const account = await createAccount();
    const responses = [
      await api("/shipments", { key: account.key }),
      await api("/shipments"),
      await api("/shipments/0190a000-0000-7000-8000-000000000000", { key: account.key }),
      await api("/no_such_route", { key: account.key }),
      await api("/tracking_requests", {
        key: account.key,
        body: trackingRequestBody({ request_number: "", scac: "" }),
      }),
    ];
    expect(responses.map((r) => r.status)).toEqual([200, 401, 404, 404, 422]);
    const ids = responses.map((r) => r.headers.get("X-Request-Id"));
    for (const id of ids) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("echoes a sane caller X-Request-Id and replaces an insane one", async () => {
    const account = await createAccount();
    const sane = await api("/shipments", { key: account.key, headers: { "X-Request-Id": "trace-abc.123" } });
    expect(sane.headers.get("X-Request-Id")).toBe("trace-abc.123");
    const unauthorized = await api("/shipments", { headers: { "X-Request-Id": "trace-401" } });
    expect(unauthorized.status).toBe(401);
    expect(unauthorized.headers.get("X-Request-Id")).toBe("trace-401");
    const insane = await api("/shipments", {
      key: account.key,
      headers: { "X-Request-Id": "bad id with spaces <script>" },
    });
    expect(insane.headers.get("X-Request-Id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("a valid key answers with the JSON:API media type", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<{ data: unknown[] }>("/tracking_requests", { key: account.key });
    expect(res.headers.get("Content-Type")).toContain("application/vnd.api+json");
    expect(json.data).toEqual([]);
  });
});
