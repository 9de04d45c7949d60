import { env } from "cloudflare:test";
import { exports } from "cloudflare:workers";
import type { UserRole } from "../../src/db/schema/users";
import { newId } from "../../src/lib/ids";
import { createSession, SESSION_COOKIE } from "../../src/sessions/session";
import { createAccount, type TestAccount } from "./api";

/** Origin the dashboard tests send requests to (never contacted: requests go straight to the Worker). */
export const WEB_ORIGIN = "https://api.test";

/** A dashboard user with a live session, and the `Cookie` header value that carries it. */
export interface TestWebUser {
  userId: string;
  accountId: string;
  email: string;
  role: UserRole;
  sessionId: string;
  /** `__Host-session=<token>`, for the `Cookie` request header. */
  cookie: string;
}

/** Creates a user of `accountId` directly in D1 with `role`, and a session for them (as a sign-in link would). */
export async function createWebUser(accountId: string, role: UserRole = "admin", email?: string): Promise<TestWebUser> {
  const userId = newId();
  const address = (email ?? `${role}-${userId.slice(-12)}@example.test`).toLowerCase();
  await env.DB.prepare(
    "INSERT INTO users (id, account_id, email, name, role, created_at) VALUES (?1, ?2, ?3, NULL, ?4, ?5)",
  )
    .bind(userId, accountId, address, role, new Date().toISOString().replace(/\.\d{3}Z$/, "Z"))
    .run();
  const session = await createSession(env.DB, { userId, accountId }, Date.now(), "vitest");
  return {
    userId,
    accountId,
    email: address,
    role,
    sessionId: session.sessionId,
    cookie: `${SESSION_COOKIE}=${session.token}`,
  };
}

/** A new account (with an API key) and a signed-in user of it. */
export async function createAccountWithWebUser(role: UserRole = "admin"): Promise<TestAccount & { user: TestWebUser }> {
  const account = await createAccount();
  return { ...account, user: await createWebUser(account.accountId, role) };
}

/** Options of {@link web}. */
export interface WebOptions {
  method?: string;
  /** The signed-in user whose cookie is sent; omitted: no cookie. */
  user?: TestWebUser | null;
  headers?: Record<string, string>;
  /** A form (sent as application/x-www-form-urlencoded) or a raw body. */
  form?: Record<string, string>;
  body?: BodyInit;
}

/**
 * A browser-like request to the Worker at `path` (under {@link WEB_ORIGIN}): the user's cookie, `Origin` and
 * `Sec-Fetch-Site: same-origin` on state-changing requests, and no redirect following.
 */
export async function web(path: string, options: WebOptions = {}): Promise<Response> {
  const method = options.method ?? (options.form || options.body ? "POST" : "GET");
  const headers = new Headers(options.headers);
  if (options.user) headers.set("Cookie", options.user.cookie);
  if (method !== "GET" && method !== "HEAD") {
    if (!headers.has("Origin")) headers.set("Origin", WEB_ORIGIN);
    if (!headers.has("Sec-Fetch-Site")) headers.set("Sec-Fetch-Site", "same-origin");
  }
  let body: BodyInit | undefined = options.body;
  if (options.form) {
    body = new URLSearchParams(options.form).toString();
    headers.set("Content-Type", "application/x-www-form-urlencoded");
  }
  return exports.default.fetch(new Request(`${WEB_ORIGIN}${path}`, { method, headers, body, redirect: "manual" }));
}
