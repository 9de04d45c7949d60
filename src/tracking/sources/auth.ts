/**
 * Credentials of an upstream (carrier or terminal source), one shape for every source
 * (docs/architecture.md §Credentials, one place): static headers, an API key, or the OAuth 2.0 client-credentials grant
 * (RFC 6749 §4.4), and the one client that applies them ({@link authorizedFetch}). Secrets come from Worker secrets
 * (`DCSA_SOURCES`, later `TERMINAL_SOURCES`) and are never logged: messages name the SCAC or provider, the token
 * endpoint's origin and the HTTP status, never a header value, a client secret, a token or a response body.
 */
import { z } from "zod";
import { sha256Hex } from "../../lib/crypto";

/** RFC 9110 token: a header name `Headers` accepts. */
export const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const headerValue = z.string().refine((v) => !/[\r\n\0]/.test(v), "header values cannot contain line breaks");

/** A record of extra request headers: valid names, values without line breaks. */
export const headerRecordSchema = z.record(z.string().regex(HEADER_NAME, "not a valid header name"), headerValue);

/**
 * Whether `value` may be called with credentials: https, or http on localhost / 127.0.0.1 only (local fakes), with no
 * user info and no fragment. A query string is allowed only when `allowQuery` (some token endpoints carry
 * `?grant_type=client_credentials` in their documented URL, docs/terminals.md §APMT authentication).
 */
export function isCredentialUrl(value: string, allowQuery = false): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.username || url.password || url.hash || (url.search && !allowQuery)) return false;
  if (url.protocol === "https:") return true;
  return url.protocol === "http:" && (url.hostname === "localhost" || url.hostname === "127.0.0.1");
}

/** Static headers sent with every request (e.g. `{"Consumer-Key": "…"}`); today's DCSA form. */
export interface HeadersAuth {
  type: "headers";
  headers: Record<string, string>;
}

/** An API key sent in one header (default `X-API-KEY`, the header the terminal APIs of docs/terminals.md use). */
export interface ApiKeyAuth {
  type: "api_key";
  apiKey: string;
  header: string;
}

/**
 * OAuth 2.0 client credentials (RFC 6749 §4.4): a token is POSTed for at `tokenUrl` with `grant_type=client_credentials`
 * (and `scope` when given), the client authenticating with `client_id` / `client_secret` form fields (`clientAuth:
 * "body"`, the default, as Maersk's portal documents) or HTTP Basic (`"basic"`, RFC 6749 §2.3.1). Each API call then
 * carries `Authorization: Bearer <access_token>` plus `extraHeaders` (Maersk: `Consumer-Key` = the client id), which
 * the token request carries too.
 */
export interface OAuth2ClientCredentialsAuth {
  type: "oauth2_client_credentials";
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  scope?: string;
  extraHeaders: Record<string, string>;
  clientAuth: "body" | "basic";
}

/** Credentials of one upstream. */
export type SourceAuth = HeadersAuth | ApiKeyAuth | OAuth2ClientCredentialsAuth;

const secretText = z
  .string()
  .min(1, "must not be empty")
  .refine((v) => !/[\r\n\0]/.test(v), "cannot contain line breaks");

/**
 * The `auth` object of a source's configuration, `type` first. Unknown keys are refused (a misspelt `client_secret`
 * must not silently configure a client without a secret). Zod's messages name fields and expectations, never values.
 */
export const sourceAuthSchema: z.ZodType<SourceAuth> = z.discriminatedUnion("type", [
  z.strictObject({ type: z.literal("headers"), headers: headerRecordSchema }),
  z.strictObject({
    type: z.literal("api_key"),
    apiKey: secretText,
    header: z.string().regex(HEADER_NAME, "not a valid header name").default("X-API-KEY"),
  }),
  z.strictObject({
    type: z.literal("oauth2_client_credentials"),
    tokenUrl: z
      .string()
      .refine(
        (v) => isCredentialUrl(v, true),
        "must be an https URL without credentials or fragment (http only for localhost)",
      ),
    clientId: secretText,
    clientSecret: secretText,
    scope: z.string().min(1).optional(),
    extraHeaders: headerRecordSchema.default({}),
    clientAuth: z.enum(["body", "basic"]).default("body"),
  }),
]);

// ---------------------------------------------------------------------------------------------------------------
// Tokens

/** An OAuth access token and when it stops being valid (ms since the Unix epoch, by the caller's clock). */
export interface AccessToken {
  value: string;
  /** When it was obtained (ms). */
  obtainedAtMs: number;
  /** `obtainedAtMs + expires_in × 1000`. */
  expiresAtMs: number;
}

/** Lifetime assumed when the token response has no `expires_in` (RFC 6749 §5.1 only recommends it), seconds. */
export const DEFAULT_TOKEN_LIFETIME_S = 300;
/** A token is renewed this long before it expires (or at 90 % of its life when that is shorter), ms. */
export const TOKEN_RENEW_MARGIN_MS = 60_000;
/** Timeout of a token request, ms. */
export const TOKEN_TIMEOUT_MS = 15_000;
/**
 * How long a refusal of the client credentials is remembered, ms: polls of many boxes within it share one refusal
 * instead of each asking the token endpoint again (a carrier may lock out a client that keeps failing). A changed
 * secret is another credential ({@link credentialKey}) and is tried at once.
 */
export const TOKEN_REFUSAL_MEMORY_MS = 60_000;

/** Whether `token` can still be handed out at `nowMs` (not within the renewal margin of its expiry). */
export function isTokenFresh(token: AccessToken, nowMs: number): boolean {
  const margin = Math.min(TOKEN_RENEW_MARGIN_MS, (token.expiresAtMs - token.obtainedAtMs) / 10);
  return nowMs < token.expiresAtMs - margin;
}

/**
 * Outcome of getting a token: a token; `rejected` — the token endpoint refused our client (RFC 6749 §5.2
 * `invalid_client`, `unauthorized_client`, `invalid_grant`, `invalid_scope`, or HTTP 401/403): a configuration
 * error; `unreachable` (network, timeout, 5xx, 408, 429); `unrecognized` (any other answer, or a 200 without a bearer
 * `access_token`).
 */
export type TokenOutcome =
  | { kind: "token"; token: AccessToken }
  | { kind: "rejected"; status: number }
  | { kind: "unreachable" }
  | { kind: "unrecognized" };

/** What a token request needs: the (injected) network and the time. */
export interface TokenContext {
  fetch: typeof fetch;
  nowMs: number;
}

const tokenResponseSchema = z.object({
  /** Printable ASCII without spaces (RFC 6750 §2.1 b64token, JWTs): it goes into a header as it is. */
  access_token: z.string().regex(/^[\x21-\x7E]+$/),
  /**
   * `Bearer` (RFC 6750), or `BearerToken`: Apigee Edge's `/oauth/client_credential/accesstoken` (APM Terminals,
   * docs/terminals.md §APMT authentication) answers that spelling for the same bearer token.
   */
  token_type: z
    .string()
    .refine((t) => ["bearer", "bearertoken"].includes(t.toLowerCase()), "only bearer tokens are supported"),
  expires_in: z.union([z.number(), z.string().regex(/^\d+$/).transform(Number)]).optional(),
});

const REJECTING_ERRORS = new Set(["invalid_client", "unauthorized_client", "invalid_grant", "invalid_scope"]);

/** `application/x-www-form-urlencoded` encoding of RFC 6749 Appendix B (also used for the Basic credentials). */
const formEncode = (value: string) => encodeURIComponent(value).replace(/%20/g, "+");

/**
 * Requests a token from `auth.tokenUrl` (RFC 6749 §4.4.2): `POST` with `Content-Type:
 * application/x-www-form-urlencoded`, body `grant_type=client_credentials[&scope=…]` plus `client_id` and
 * `client_secret` (`clientAuth: "body"`) or an `Authorization: Basic` header (`"basic"`), `auth.extraHeaders`, through
 * `ctx.fetch` only. Never throws; logs the outcome with `label` and the endpoint's origin, never a secret or body.
 */
export async function requestClientCredentialsToken(
  auth: OAuth2ClientCredentialsAuth,
  ctx: TokenContext,
  label: string,
  timeoutMs: number = TOKEN_TIMEOUT_MS,
): Promise<TokenOutcome> {
  let origin: string;
  try {
    origin = new URL(auth.tokenUrl).origin;
  } catch {
    console.error(`${label}: the token URL is not a URL`);
    return { kind: "unrecognized" };
  }
  const headers = new Headers(auth.extraHeaders);
  headers.set("Content-Type", "application/x-www-form-urlencoded");
  headers.set("Accept", "application/json");
  const form = [["grant_type", "client_credentials"]];
  if (auth.scope) form.push(["scope", auth.scope]);
  if (auth.clientAuth === "basic") {
    headers.set("Authorization", `Basic ${btoa(`${formEncode(auth.clientId)}:${formEncode(auth.clientSecret)}`)}`);
  } else {
    form.push(["client_id", auth.clientId], ["client_secret", auth.clientSecret]);
  }
  const body = form.map(([k, v]) => `${k}=${formEncode(v ?? "")}`).join("&");
  let response: Response;
  let text: string;
  try {
    response = await ctx.fetch(auth.tokenUrl, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
    text = await response.text();
  } catch (error) {
    const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
    console.warn(`${label}: token endpoint ${origin} ${timedOut ? "timed out" : "unreachable"}`);
    return { kind: "unreachable" };
  }
  if (response.status === 200) {
    let parsed: z.infer<typeof tokenResponseSchema> | null = null;
    try {
      const result = tokenResponseSchema.safeParse(JSON.parse(text));
      parsed = result.success ? result.data : null;
    } catch {
      parsed = null;
    }
    if (!parsed) {
      console.error(`${label}: token endpoint ${origin} answered 200 without a bearer access_token`);
      return { kind: "unrecognized" };
    }
    const lifetimeS = parsed.expires_in && parsed.expires_in > 0 ? parsed.expires_in : DEFAULT_TOKEN_LIFETIME_S;
    return {
      kind: "token",
      token: { value: parsed.access_token, obtainedAtMs: ctx.nowMs, expiresAtMs: ctx.nowMs + lifetimeS * 1000 },
    };
  }
  if (response.status >= 500 || response.status === 408 || response.status === 429) {
    console.warn(`${label}: token endpoint ${origin} answered ${response.status}`);
    return { kind: "unreachable" };
  }
  let error: unknown;
  try {
    error = (JSON.parse(text) as { error?: unknown }).error;
  } catch {
    error = undefined;
  }
  if (
    response.status === 401 ||
    response.status === 403 ||
    (typeof error === "string" && REJECTING_ERRORS.has(error))
  ) {
    // The RFC 6749 error code is a fixed vocabulary, safe to log; the description and the rest of the body are not.
    const code = typeof error === "string" && /^[a-z_]{1,40}$/.test(error) ? ` (${error})` : "";
    console.error(
      `${label}: token endpoint ${origin} refused the client credentials: ${response.status}${code}; check the configured clientId and clientSecret`,
    );
    return { kind: "rejected", status: response.status };
  }
  console.error(`${label}: token endpoint ${origin} answered ${response.status}`);
  return { kind: "unrecognized" };
}

/**
 * Hands out OAuth tokens: cached until shortly before expiry ({@link isTokenFresh}), one request per credential at a
 * time, dropped on a 401. `label` names the upstream in log lines (e.g. `DCSA MAEU`).
 */
export interface TokenBroker {
  token(auth: OAuth2ClientCredentialsAuth, ctx: TokenContext, label: string): Promise<TokenOutcome>;
  /** The upstream answered 401 to `value`: forget it (only if it is still the cached one), so the next call renews. */
  invalidate(auth: OAuth2ClientCredentialsAuth, value: string): Promise<void>;
}

/**
 * What a lease-granting coordinator answers (the `Credentials` Durable Object): a token still fresh; a lease (the
 * caller fetches the token and publishes or abandons it); or the failure of the lease another caller held.
 */
export type TokenGrant =
  | { kind: "token"; token: AccessToken }
  | { kind: "lease"; leaseId: string }
  | { kind: "failed"; outcome: Exclude<TokenOutcome, { kind: "token" }> };

/** One credential's coordinator across isolates (`Credentials` DO, named by {@link credentialKey}). */
export interface TokenCoordinator {
  acquire(nowMs: number): Promise<TokenGrant>;
  publish(leaseId: string, token: AccessToken): Promise<void>;
  abandon(leaseId: string, outcome: Exclude<TokenOutcome, { kind: "token" }>): Promise<void>;
  invalidate(value: string): Promise<void>;
}

/**
 * Stable, non-secret name of a credential: SHA-256 hex of token URL, client id, scope and client secret (so a rotated
 * secret starts afresh). Safe to use as a Durable Object name or map key; reveals nothing.
 */
export function credentialKey(auth: OAuth2ClientCredentialsAuth): Promise<string> {
  return sha256Hex(JSON.stringify([auth.tokenUrl, auth.clientId, auth.scope ?? null, auth.clientSecret]));
}

/**
 * A token broker for one isolate: tokens cached in memory per credential, concurrent callers of the same credential
 * share one request, a refusal is remembered for {@link TOKEN_REFUSAL_MEMORY_MS}. With `coordinator`, a miss goes through it (the `Credentials` Durable Object of the credential,
 * docs/architecture.md §Connecting to the real world), so all isolates together make one token request at a time;
 * without, the isolate asks the token endpoint itself (tests, tools).
 */
export function createTokenBroker(
  coordinator?: (key: string) => TokenCoordinator,
  timeoutMs: number = TOKEN_TIMEOUT_MS,
): TokenBroker {
  const cache = new Map<string, AccessToken>();
  const inflight = new Map<string, Promise<TokenOutcome>>();
  const refused = new Map<string, { outcome: TokenOutcome; untilMs: number }>();

  const viaCoordinator = async (
    auth: OAuth2ClientCredentialsAuth,
    ctx: TokenContext,
    label: string,
    coord: TokenCoordinator,
  ): Promise<TokenOutcome> => {
    const grant = await coord.acquire(ctx.nowMs);
    if (grant.kind === "token") return grant;
    if (grant.kind === "failed") return grant.outcome;
    const outcome = await requestClientCredentialsToken(auth, ctx, label, timeoutMs);
    if (outcome.kind === "token") await coord.publish(grant.leaseId, outcome.token);
    else await coord.abandon(grant.leaseId, outcome);
    return outcome;
  };

  return {
    async token(auth, ctx, label) {
      const key = await credentialKey(auth);
      const cached = cache.get(key);
      if (cached && isTokenFresh(cached, ctx.nowMs)) return { kind: "token", token: cached };
      const refusal = refused.get(key);
      if (refusal && ctx.nowMs < refusal.untilMs) return refusal.outcome;
      let pending = inflight.get(key);
      if (!pending) {
        pending = (
          coordinator
            ? viaCoordinator(auth, ctx, label, coordinator(key))
            : requestClientCredentialsToken(auth, ctx, label, timeoutMs)
        ).finally(() => inflight.delete(key));
        inflight.set(key, pending);
      }
      const outcome = await pending;
      if (outcome.kind === "token") {
        cache.set(key, outcome.token);
        refused.delete(key);
      } else if (outcome.kind === "rejected") {
        refused.set(key, { outcome, untilMs: ctx.nowMs + TOKEN_REFUSAL_MEMORY_MS });
      }
      return outcome;
    },
    async invalidate(auth, value) {
      const key = await credentialKey(auth);
      if (cache.get(key)?.value === value) cache.delete(key);
      if (coordinator) await coordinator(key).invalidate(value);
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Authorised requests

/** What {@link authorizedFetch} needs: the network, the time and (for OAuth) the token broker. */
export interface AuthorizedFetchContext extends TokenContext {
  tokens: TokenBroker;
  /** Names the upstream in log lines (e.g. `DCSA MAEU`). */
  label: string;
}

/**
 * The upstream's answer, or why no request could be authorised: the token endpoint refused the credentials
 * (`rejected`, a configuration error), was unreachable, or answered what we do not understand.
 */
export type AuthorizedResponse = { kind: "response"; response: Response } | Exclude<TokenOutcome, { kind: "token" }>;

/**
 * Sends one request with `auth` applied: `headers` and `api_key` add their headers; OAuth adds `Authorization: Bearer`
 * (from `ctx.tokens`) and `extraHeaders`, and on a 401 drops the token and tries once more with a new one (RFC 6750
 * §3.1 `invalid_token`: an expired or revoked token). `body` (a string, so a retry can send it again) goes with every
 * attempt, e.g. a JSON bulk request (Port of Virginia `POST /import-availability`). Every attempt gets its own
 * `timeoutMs` signal. Network errors and timeouts of the request itself are thrown, as `fetch` does; token problems
 * are returned.
 */
export async function authorizedFetch(
  auth: SourceAuth,
  url: string,
  init: { method: string; headers: Headers; timeoutMs: number; body?: string },
  ctx: AuthorizedFetchContext,
): Promise<AuthorizedResponse> {
  const send = (headers: Headers) =>
    ctx.fetch(url, { method: init.method, headers, body: init.body, signal: AbortSignal.timeout(init.timeoutMs) });
  const headers = new Headers(init.headers);
  if (auth.type === "headers") {
    for (const [name, value] of Object.entries(auth.headers)) headers.set(name, value);
    return { kind: "response", response: await send(headers) };
  }
  if (auth.type === "api_key") {
    headers.set(auth.header, auth.apiKey);
    return { kind: "response", response: await send(headers) };
  }
  for (const [name, value] of Object.entries(auth.extraHeaders)) headers.set(name, value);
  for (let attempt = 0; ; attempt++) {
    const got = await ctx.tokens.token(auth, ctx, ctx.label);
    if (got.kind !== "token") return got;
    headers.set("Authorization", `Bearer ${got.token.value}`);
    const response = await send(headers);
    if (response.status !== 401 || attempt > 0) return { kind: "response", response };
    await response.body?.cancel();
    await ctx.tokens.invalidate(auth, got.token.value);
  }
}
