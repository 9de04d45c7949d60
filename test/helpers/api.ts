import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import { generateApiKey, sha256Hex } from "../../src/lib/crypto";
import { newId } from "../../src/lib/ids";

/** Base URL tests send requests to (the host is never contacted: requests go straight to the Worker). */
export const BASE = "https://api.test/v2";

/** A test account with one API key. */
export interface TestAccount {
  accountId: string;
  apiKeyId: string;
  key: string;
}

/** Creates an account and an API key for it directly in D1 (as `npm run keys -- create` does). */
export async function createAccount(name = "Acme"): Promise<TestAccount> {
  const accountId = newId();
  const apiKeyId = newId();
  const key = generateApiKey("test");
  const now = new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
  await env.DB.batch([
    env.DB.prepare("INSERT INTO accounts (id, name, entitlements, created_at) VALUES (?1, ?2, '[]', ?3)").bind(
      accountId,
      name,
      now,
    ),
    env.DB.prepare(
      "INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES (?1, ?2, 'test', ?3, ?4, ?5)",
    ).bind(apiKeyId, accountId, await sha256Hex(key), key.slice(0, 13), now),
  ]);
  return { accountId, apiKeyId, key };
}

/** Options of `api()`. */
export interface ApiOptions {
  method?: string;
  key?: string | null;
  /** JSON-serialised unless a string. */
  body?: unknown;
  headers?: Record<string, string>;
}

/** Sends a request to the Worker under test (through its real fetch handler) and returns the response. */
export async function api(path: string, options: ApiOptions = {}): Promise<Response> {
  const headers = new Headers(options.headers);
  if (options.key) headers.set("Authorization", `Token ${options.key}`);
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === "string" ? options.body : JSON.stringify(options.body);
    if (!headers.has("Content-Type")) headers.set("Content-Type", "application/json");
  }
  const url = path.startsWith("http") ? path : `${BASE}${path}`;
  return exports.default.fetch(new Request(url, { method: options.method ?? (body ? "POST" : "GET"), headers, body }));
}

/** `api()` and the parsed JSON body. */
export async function apiJson<T = Record<string, unknown>>(
  path: string,
  options: ApiOptions = {},
): Promise<{ res: Response; json: T }> {
  const res = await api(path, options);
  const text = await res.text();
  return { res, json: (text ? JSON.parse(text) : null) as T };
}

/** The body of a tracking request create. */
export function trackingRequestBody(attributes: Record<string, unknown>, relationships?: Record<string, unknown>) {
  return {
    data: {
      type: "tracking_request",
      attributes: { request_type: "bill_of_lading", ...attributes },
      ...(relationships ? { relationships } : {}),
    },
  };
}
