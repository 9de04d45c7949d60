import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { generateApiKey, sha256Hex } from "../../src/lib/crypto";
import { BUCKET_MESSAGES, bucketFor, limitFor } from "../../src/ratelimit/buckets";
import { api, apiJson, BASE, createAccount, trackingRequestBody } from "../helpers/api";

// docs/api.md §Rate limits and docs/decisions.md §Rate limits: exact rolling 60 s window per account and bucket; over
// the limit → 429 with Retry-After (whole seconds, ≥ 1) as the only rate-limit header; a refused request has no effect.

const JSON_API = "application/vnd.api+json";

/** Asserts the 429 shape of docs/api.md §Errors, §Rate limits and returns its Retry-After in seconds. */
async function expectTooManyRequests(res: Response, detail: string): Promise<number> {
  expect(res.status).toBe(429);
  expect(res.headers.get("content-type")).toBe(JSON_API);
  const retryAfter = res.headers.get("retry-after") ?? "";
  expect(retryAfter).toMatch(/^\d+$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  expectNoRateLimitHeadersBesidesRetryAfter(res);
  const body = (await res.json()) as { errors: { status: string; title: string; detail: string }[] };
  expect(body).toEqual({ errors: [{ status: "429", title: "Too Many Requests", detail }] });
  return seconds;
}

function expectNoRateLimitHeadersBesidesRetryAfter(res: Response): void {
  const names = [...res.headers.keys()];
  expect(names.filter((n) => /rate.?limit|quota|remaining/i.test(n))).toEqual([]);
}

async function countRows(table: "tracking_requests" | "parties", accountId: string): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?1`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("default bucket under concurrency", () => {
  it("admits exactly 100 of 150 concurrent requests; the other 50 get a bare 429 with Retry-After", async () => {
    const { key } = await createAccount();
    const responses = await Promise.all(
      Array.from({ length: 150 }, () => api("/shipping_lines?page[size]=1", { key })),
    );
    const ok = responses.filter((r) => r.status === 200);
    const limited = responses.filter((r) => r.status === 429);
    expect(ok).toHaveLength(100);
    expect(limited).toHaveLength(50);
    for (const res of ok) {
      expectNoRateLimitHeadersBesidesRetryAfter(res);
      expect(res.headers.get("retry-after")).toBeNull();
      await res.body?.cancel();
    }
    const waits = await Promise.all(limited.map((r) => expectTooManyRequests(r, BUCKET_MESSAGES.default)));
    // The admitted requests are moments old, so the oldest leaves in nearly a full window (slack for a slow host).
    for (const s of waits) expect(s).toBeGreaterThanOrEqual(45);
    // Still refused afterwards: the refusals did not reset or extend anything, and the window is full.
    await expectTooManyRequests(await api("/parties", { key }), BUCKET_MESSAGES.default);
  });
});

describe("buckets are independent", () => {
  it("a full create bucket refuses POST /tracking_requests without writing, while GETs still work", async () => {
    const { key, accountId } = await createAccount();
    const suffix = crypto.randomUUID().slice(0, 8).toUpperCase();
    const created = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        api("/tracking_requests", {
          key,
          body: trackingRequestBody({ request_number: `RL${suffix}${i}`, scac: "TEST" }),
        }),
      ),
    );
    expect(created.map((r) => r.status)).toEqual(Array(100).fill(201));
    expect(await countRows("tracking_requests", accountId)).toBe(100);

    const refusedNumber = `RL${suffix}X`;
    const refused = await api("/tracking_requests", {
      key,
      body: trackingRequestBody({ request_number: refusedNumber, scac: "TEST" }),
    });
    await expectTooManyRequests(refused, BUCKET_MESSAGES.create_tracking_request);
    // Even an invalid body is refused by the bucket before validation.
    await expectTooManyRequests(
      await api("/tracking_requests", { key, body: "{not json" }),
      BUCKET_MESSAGES.create_tracking_request,
    );

    // Nothing was written: no row, no count bump, no such number.
    expect(await countRows("tracking_requests", accountId)).toBe(100);
    const found = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests WHERE request_number = ?1")
      .bind(refusedNumber)
      .first<{ n: number }>();
    expect(found?.n).toBe(0);

    // The default bucket is untouched by the create bucket.
    const { res, json } = await apiJson<{ meta: { total: number } }>("/tracking_requests?page[size]=1", { key });
    expect(res.status).toBe(200);
    expect(json.meta.total).toBe(100);
    expect((await api("/shipping_lines?page[size]=1", { key })).status).toBe(200);
    // PATCH /tracking_requests/{id} draws from default, not from create.
    const { json: list } = await apiJson<{ data: { id: string }[] }>("/tracking_requests?page[size]=1", { key });
    const id = list.data[0]?.id ?? "";
    const patched = await api(`/tracking_requests/${id}`, {
      key,
      method: "PATCH",
      body: { data: { type: "tracking_request", id, attributes: { ref_numbers: ["PO-1"] } } },
    });
    expect(patched.status).toBe(200);
  });

  it("a full default bucket still lets POST /tracking_requests, infer_number and refresh through their own buckets", async () => {
    const { key, accountId } = await createAccount();
    const gets = await Promise.all(Array.from({ length: 100 }, () => api("/shipping_lines?page[size]=1", { key })));
    expect(gets.every((r) => r.status === 200)).toBe(true);
    await expectTooManyRequests(await api("/containers", { key }), BUCKET_MESSAGES.default);
    // A refused POST /parties (default bucket) writes nothing either.
    await expectTooManyRequests(
      await api("/parties", { key, body: { data: { type: "party", attributes: { company_name: "Refused Inc" } } } }),
      BUCKET_MESSAGES.default,
    );
    expect(await countRows("parties", accountId)).toBe(0);

    const create = await api("/tracking_requests", {
      key,
      body: trackingRequestBody({ request_number: "TEST-TR-SUCCEEDED", scac: "TEST" }),
    });
    expect(create.status).toBe(201);
    // Whatever these routes answer (they may not exist yet), it is not the default bucket's 429.
    const infer = await api("/tracking_requests/infer_number", { key, body: { number: "CSQU3054383" } });
    expect(infer.status).not.toBe(429);
    expect(infer.status).toBeLessThan(500);
    const refresh = await api(`/containers/${crypto.randomUUID()}/refresh`, { key, method: "PATCH" });
    expect(refresh.status).not.toBe(429);
    expect(refresh.status).toBeLessThan(500);
  });

  it("the refresh bucket allows 10 per minute per account", async () => {
    const { key } = await createAccount();
    const id = crypto.randomUUID();
    const first = await Promise.all(
      Array.from({ length: 10 }, () => api(`/containers/${id}/refresh`, { key, method: "PATCH" })),
    );
    for (const res of first) {
      expect(res.status).not.toBe(429);
      expect(res.status).toBeLessThan(500);
    }
    await expectTooManyRequests(
      await api(`/containers/${id}/refresh`, { key, method: "PATCH" }),
      BUCKET_MESSAGES.refresh_container,
    );
    // The default bucket is still fresh.
    expect((await api(`/containers/${id}`, { key })).status).toBe(404);
  });

  it("bucketFor maps method and path to the docs/api.md §Rate limits buckets", () => {
    expect(bucketFor("POST", "/v2/tracking_requests")).toBe("create_tracking_request");
    expect(bucketFor("POST", "/v2/tracking_requests/")).toBe("create_tracking_request");
    expect(bucketFor("GET", "/v2/tracking_requests")).toBe("default");
    expect(bucketFor("PATCH", "/v2/tracking_requests/0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60")).toBe("default");
    expect(bucketFor("POST", "/v2/tracking_requests/infer_number")).toBe("infer_number");
    expect(bucketFor("POST", "/v2/tracking_requests/infer_number/")).toBe("infer_number");
    expect(bucketFor("GET", "/v2/tracking_requests/infer_number")).toBe("default");
    expect(bucketFor("PATCH", "/v2/containers/0190f5c2-7f1e-7c3a-9a8e-3b2d1c4e5f60/refresh")).toBe("refresh_container");
    expect(bucketFor("PATCH", "/v2/containers/abc/refresh/")).toBe("refresh_container");
    expect(bucketFor("POST", "/v2/containers/abc/refresh")).toBe("default");
    expect(bucketFor("PATCH", "/v2/containers/abc")).toBe("default");
    expect(bucketFor("PATCH", "/v2/containers/a/b/refresh")).toBe("default");
    expect(bucketFor("PATCH", "/v2/containers//refresh")).toBe("default");
    expect(bucketFor("PATCH", "/v2/shipments/abc/stop_tracking")).toBe("default");
    expect(bucketFor("POST", "/v2/parties")).toBe("default");
    expect(bucketFor("POST", "/mcp")).toBe("default");
    expect(bucketFor("GET", "/v2/containers")).toBe("default");
  });
});

describe("accounts are independent", () => {
  it("one account's exhausted bucket does not affect another account", async () => {
    const a = await createAccount("A");
    const b = await createAccount("B");
    const burst = await Promise.all(
      Array.from({ length: 101 }, () => api("/shipping_lines?page[size]=1", { key: a.key })),
    );
    expect(burst.filter((r) => r.status === 200)).toHaveLength(100);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(1);
    expect((await api("/shipping_lines?page[size]=1", { key: a.key })).status).toBe(429);
    expect((await api("/shipping_lines?page[size]=1", { key: b.key })).status).toBe(200);
    expect((await api("/containers", { key: b.key })).status).toBe(200);
  });

  it("two keys of one account share the account's bucket", async () => {
    const a = await createAccount("Shared");
    const key2 = generateApiKey("test");
    await env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?1, ?2, 'second', ?3, ?4, ?5)",
    )
      .bind(crypto.randomUUID(), a.accountId, await sha256Hex(key2), key2.slice(0, 13), "2026-01-01T00:00:00Z")
      .run();
    const burst = await Promise.all(
      Array.from({ length: 100 }, (_, i) => api("/shipping_lines?page[size]=1", { key: i % 2 === 0 ? a.key : key2 })),
    );
    expect(burst.every((r) => r.status === 200)).toBe(true);
    expect((await api("/shipping_lines?page[size]=1", { key: a.key })).status).toBe(429);
    expect((await api("/shipping_lines?page[size]=1", { key: key2 })).status).toBe(429);
  });
});

describe("RateLimiter Durable Object with an explicit clock", () => {
  const T0 = 1_800_000_000_000;
  const stubFor = (name: string) => env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(name));

  it("rolls the window and reports Retry-After from the oldest counted request", async () => {
    const stub = stubFor(`clock-${crypto.randomUUID()}`);
    expect(await stub.hit("default", 3, T0)).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
    expect(await stub.hit("default", 3, T0 + 10_000)).toEqual({ allowed: true, count: 2, retryAfterSeconds: 0 });
    expect(await stub.hit("default", 3, T0 + 20_000)).toEqual({ allowed: true, count: 3, retryAfterSeconds: 0 });
    expect(await stub.hit("default", 3, T0 + 20_000)).toEqual({ allowed: false, count: 3, retryAfterSeconds: 40 });
    expect(await stub.hit("default", 3, T0 + 45_500)).toEqual({ allowed: false, count: 3, retryAfterSeconds: 15 });
    expect(await stub.hit("default", 3, T0 + 59_999)).toEqual({ allowed: false, count: 3, retryAfterSeconds: 1 });
    // T0 leaves at exactly T0 + 60 s; the refusals above were not counted.
    expect(await stub.hit("default", 3, T0 + 60_000)).toEqual({ allowed: true, count: 3, retryAfterSeconds: 0 });
    expect(await stub.hit("default", 3, T0 + 60_000)).toEqual({ allowed: false, count: 3, retryAfterSeconds: 10 });
    expect(await stub.hit("default", 3, T0 + 70_000)).toEqual({ allowed: true, count: 3, retryAfterSeconds: 0 });
    // Long after, the window is empty again.
    expect(await stub.hit("default", 3, T0 + 600_000)).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
  });

  it("keeps one log per bucket inside an account's object, and one object per account", async () => {
    const name = `clock-${crypto.randomUUID()}`;
    const stub = stubFor(name);
    expect((await stub.hit("refresh_container", 1, T0)).allowed).toBe(true);
    expect(await stub.hit("refresh_container", 1, T0 + 1)).toEqual({ allowed: false, count: 1, retryAfterSeconds: 60 });
    expect(await stub.hit("default", 1, T0 + 1)).toEqual({ allowed: true, count: 1, retryAfterSeconds: 0 });
    expect((await stubFor(`clock-${crypto.randomUUID()}`).hit("refresh_container", 1, T0 + 1)).allowed).toBe(true);
    // The same name reaches the same object.
    expect((await stubFor(name).hit("refresh_container", 1, T0 + 2)).allowed).toBe(false);
  });

  it("decides concurrent calls in a strict order: exactly `limit` admitted", async () => {
    const stub = stubFor(`clock-${crypto.randomUUID()}`);
    const decisions = await Promise.all(Array.from({ length: 40 }, () => stub.hit("default", 25, T0)));
    expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
    expect(
      decisions
        .filter((d) => d.allowed)
        .map((d) => d.count)
        .sort((x, y) => x - y),
    ).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
    expect(decisions.filter((d) => !d.allowed).every((d) => d.retryAfterSeconds === 60)).toBe(true);
  });

  it("applies a lowered limit to the requests already counted", async () => {
    const stub = stubFor(`clock-${crypto.randomUUID()}`);
    for (let i = 0; i < 4; i++) expect((await stub.hit("default", 4, T0 + i * 10_000)).allowed).toBe(true);
    // Limit 2: three must leave; the third (T0 + 20 s) leaves at T0 + 80 s.
    expect(await stub.hit("default", 2, T0 + 40_000)).toEqual({ allowed: false, count: 4, retryAfterSeconds: 40 });
  });
});

describe("limits come from the environment", () => {
  const fakeEnv = (vars: Partial<Record<keyof Env, string>>) => vars as unknown as Env;

  it("defaults to docs/api.md §Rate limits when unset", () => {
    const e = fakeEnv({});
    expect(limitFor(e, "default")).toBe(100);
    expect(limitFor(e, "create_tracking_request")).toBe(100);
    expect(limitFor(e, "infer_number")).toBe(200);
    expect(limitFor(e, "refresh_container")).toBe(10);
  });

  it("reads each bucket's own variable", () => {
    const e = fakeEnv({
      RATE_LIMIT_DEFAULT: "7",
      RATE_LIMIT_CREATE_TRACKING_REQUEST: "8",
      RATE_LIMIT_INFER_NUMBER: "9",
      RATE_LIMIT_REFRESH_CONTAINER: "3",
    });
    expect(limitFor(e, "default")).toBe(7);
    expect(limitFor(e, "create_tracking_request")).toBe(8);
    expect(limitFor(e, "infer_number")).toBe(9);
    expect(limitFor(e, "refresh_container")).toBe(3);
    expect(limitFor(fakeEnv({ RATE_LIMIT_DEFAULT: "007" }), "default")).toBe(7);
    expect(limitFor(fakeEnv({ RATE_LIMIT_DEFAULT: "100000" }), "default")).toBe(100_000);
  });

  it.each(["0", "-5", "abc", "1.5", "", " 7", "7 ", "1e3", "0x10"])(
    "ignores a non-positive-integer value %j",
    (value) => {
      expect(limitFor(fakeEnv({ RATE_LIMIT_DEFAULT: value }), "default")).toBe(100);
      expect(limitFor(fakeEnv({ RATE_LIMIT_REFRESH_CONTAINER: value }), "refresh_container")).toBe(10);
    },
  );

  it("the configured Worker uses the wrangler.toml values", () => {
    expect(limitFor(env, "default")).toBe(100);
    expect(limitFor(env, "create_tracking_request")).toBe(100);
    expect(limitFor(env, "infer_number")).toBe(200);
    expect(limitFor(env, "refresh_container")).toBe(10);
  });

  it("the app enforces the limit the environment sets", async () => {
    const { key } = await createAccount();
    const app = createApp();
    const smallEnv = { ...env, RATE_LIMIT_DEFAULT: "2" };
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i++) {
      const ctx = createExecutionContext();
      last = await app.fetch(
        new Request(`${BASE}/shipping_lines?page[size]=1`, { headers: { Authorization: `Token ${key}` } }),
        smallEnv,
        ctx,
      );
      await waitOnExecutionContext(ctx);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    if (last) await expectTooManyRequests(last, BUCKET_MESSAGES.default);
    // The same account through the Worker's own configuration (limit 100) is still admitted.
    expect((await api("/shipping_lines?page[size]=1", { key })).status).toBe(200);
  });
});
