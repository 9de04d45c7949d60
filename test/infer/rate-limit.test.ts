import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { withCheckDigit } from "../../src/infer/iso6346";
import { BUCKET_MESSAGES, limitFor } from "../../src/ratelimit/buckets";
import { api, BASE, createAccount } from "../helpers/api";

// The 429 path of POST /tracking_requests/infer_number (issue 5; docs/api.md §Rate limits,
// docs/decisions.md §Rate limits): its own bucket of 200 per rolling minute (RATE_LIMIT_INFER_NUMBER), and over it a
// JSON:API 429 with Retry-After as the only rate-limit header, the handler not run, the refusal not counted and no
// other bucket touched.

const PATH = "/tracking_requests/infer_number";
const JSON_API = "application/vnd.api+json";
const NUMBER = withCheckDigit("MSKU123456");

/** Asserts the infer bucket's 429 and returns Retry-After in seconds. */
async function expectInferTooManyRequests(res: Response): Promise<number> {
  expect(res.status).toBe(429);
  expect(res.headers.get("content-type")).toBe(JSON_API);
  expect(res.headers.get("x-request-id")).toMatch(/.+/);
  const retryAfter = res.headers.get("retry-after") ?? "";
  expect(retryAfter).toMatch(/^\d+$/);
  const seconds = Number(retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(60);
  const other = [...res.headers.keys()].filter((n) => /rate.?limit|quota|remaining/i.test(n));
  expect(other).toEqual([]);
  expect(await res.json()).toEqual({
    errors: [{ status: "429", title: "Too Many Requests", detail: BUCKET_MESSAGES.infer_number }],
  });
  return seconds;
}

/** Sends one request through a fresh instance of the app with `vars` over the test environment. */
async function viaApp(
  vars: Record<string, string>,
  key: string,
  path: string,
  init: { method?: string; body?: unknown } = {},
): Promise<Response> {
  const ctx = createExecutionContext();
  const headers: Record<string, string> = { Authorization: `Token ${key}` };
  if (init.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await createApp().fetch(
    new Request(`${BASE}${path}`, {
      method: init.method ?? (init.body !== undefined ? "POST" : "GET"),
      headers,
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    }),
    { ...env, ...vars },
    ctx,
  );
  await waitOnExecutionContext(ctx);
  return res;
}

describe("infer_number rate limit", () => {
  it("the configured Worker allows 200 per minute: the 201st request gets the 429", async () => {
    expect(limitFor(env, "infer_number")).toBe(200);
    const { key } = await createAccount();
    const statuses: number[] = [];
    // Four waves of 50 concurrent requests: the whole bucket, without 200 requests in flight at once.
    for (let wave = 0; wave < 4; wave++) {
      const responses = await Promise.all(
        Array.from({ length: 50 }, () => api(PATH, { key, body: { number: NUMBER } })),
      );
      for (const res of responses) {
        statuses.push(res.status);
        await res.body?.cancel();
      }
    }
    expect(statuses).toEqual(Array(200).fill(200));
    await expectInferTooManyRequests(await api(PATH, { key, body: { number: NUMBER } }));
    // Other buckets are untouched: reads (default) and tracking-request creation still go through.
    expect((await api("/shipping_lines?page[size]=1", { key })).status).toBe(200);
    const create = await api("/tracking_requests", {
      key,
      body: {
        data: {
          type: "tracking_request",
          attributes: { request_type: "bill_of_lading", request_number: "", scac: "" },
        },
      },
    });
    // Not a 429: the create bucket answered (with its own validation error for the empty body).
    expect(create.status).toBe(422);
  });

  it("over a lowered limit: 429 before validation, the handler not run, refusals not counted", async () => {
    const { key, accountId } = await createAccount();
    const vars = { RATE_LIMIT_INFER_NUMBER: "3" };
    const admitted = [];
    for (let i = 0; i < 3; i++) admitted.push(await viaApp(vars, key, PATH, { body: { number: NUMBER } }));
    for (const res of admitted) {
      expect(res.status).toBe(200);
      expect(res.headers.get("retry-after")).toBeNull();
      const doc = (await res.json()) as { data: { type: string } };
      expect(doc.data.type).toBe("infer_number_results");
    }

    const refused = await viaApp(vars, key, PATH, { body: { number: NUMBER } });
    const wait = await expectInferTooManyRequests(refused);
    // The three admitted requests are moments old: the oldest leaves in nearly a full window.
    expect(wait).toBeGreaterThanOrEqual(45);
    // Garbage that would be a 422 is refused by the bucket first: the route's validation never ran.
    await expectInferTooManyRequests(await viaApp(vars, key, PATH, { body: { number: "!!!" } }));
    await expectInferTooManyRequests(await viaApp(vars, key, PATH, { body: "not an object" }));

    // The refusals were not counted: the account's log for the bucket still holds exactly the three admitted.
    const limiter = env.RATE_LIMITER.get(env.RATE_LIMITER.idFromName(accountId));
    const probe = await limiter.hit("infer_number", 3, Date.now());
    expect(probe).toMatchObject({ allowed: false, count: 3 });

    // No other bucket was charged and nothing was written for the account.
    expect((await viaApp(vars, key, "/shipping_lines?page[size]=1")).status).toBe(200);
    const written = await env.DB.prepare(
      `SELECT (SELECT COUNT(*) FROM tracking_requests WHERE account_id = ?1)
            + (SELECT COUNT(*) FROM containers WHERE account_id = ?1)
            + (SELECT COUNT(*) FROM shipments WHERE account_id = ?1) AS n`,
    )
      .bind(accountId)
      .first<{ n: number }>();
    expect(written?.n).toBe(0);
  });

  it("another account's full infer bucket does not limit this one", async () => {
    const a = await createAccount("A");
    const b = await createAccount("B");
    const vars = { RATE_LIMIT_INFER_NUMBER: "1" };
    expect((await viaApp(vars, a.key, PATH, { body: { number: NUMBER } })).status).toBe(200);
    await expectInferTooManyRequests(await viaApp(vars, a.key, PATH, { body: { number: NUMBER } }));
    expect((await viaApp(vars, b.key, PATH, { body: { number: NUMBER } })).status).toBe(200);
  });
});
