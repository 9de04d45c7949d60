// A fake DCSA Track & Trace 2.2 carrier with an OAuth 2.0 client-credentials token endpoint (RFC 6749 §4.4), served
// through an injected fetch, as Maersk's API portal works: POST the token endpoint with client id (= Consumer-Key) and
// secret as form fields, then GET /v2/events with `Authorization: Bearer` and `Consumer-Key`. Every request is
// recorded; the carrier can be made to time out, fail, answer garbage, page forever, or forget its tokens.
// It also plays TNT 2.2 event subscriptions (issue 13 §4): `POST /v2/event-subscriptions` (after a HEAD of the
// callback URL, as DCSA implementations check it), `DELETE /v2/event-subscriptions/{id}`, and `push()` to POST signed
// callbacks (`Notification-Signature: sha256=<hex HMAC-SHA256 of the body keyed with the base64-decoded secret>`).

/** Where the fake lives (never resolved: requests go to the injected fetch). */
export const FAKE_CARRIER_BASE = "https://dcsa.carrier.test/track-and-trace";
export const FAKE_TOKEN_URL = "https://auth.carrier.test/oauth2/access_token";
export const FAKE_CLIENT_ID = "consumer-key-7c1d";
export const FAKE_CLIENT_SECRET = "client-secret-9e4b-DO-NOT-LOG";

/** How the events endpoint behaves on the next requests. */
export type CarrierMode = "ok" | "timeout" | "error_500" | "unauthorized" | "malformed_json" | "page_loop";

/** One recorded request. */
export interface CarrierRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/** A subscription the fake carrier holds: the create body as received, and its id. */
export interface FakeSubscription {
  subscriptionID: string;
  callbackUrl: string;
  secret: string;
  body: Record<string, unknown>;
  deleted: boolean;
}

/** How the carrier reaches our Worker (the test passes the app's fetch with its env). */
export type CallbackDeliverer = (request: Request) => Promise<Response>;

/** The fake carrier: its fetch, what it was asked, and knobs. */
export class FakeDcsaCarrier {
  readonly requests: CarrierRequest[] = [];
  /** Events served by `GET /v2/events` (one page unless `mode` is `page_loop`). */
  events: unknown[] = [];
  mode: CarrierMode = "ok";
  /** `expires_in` of issued tokens, seconds. */
  tokenLifetimeS = 3600;
  /** Tokens the events endpoint accepts; `forgetTokens()` empties it (a restart of the carrier's auth server). */
  private readonly valid = new Set<string>();
  private issued = 0;
  /** Subscriptions created, by `subscriptionID`. */
  readonly subscriptions = new Map<string, FakeSubscription>();
  /** How `POST /v2/event-subscriptions` answers: created (201), or refused with this status. */
  subscriptionStatus = 201;
  /** Reaches our callback endpoint (HEAD check before a create, and `push()`); unset: no check. */
  deliver: CallbackDeliverer | null = null;

  /** The secret the token endpoint accepts; change it to play a rotation at the carrier. */
  clientSecret: string;

  // A plain field, not a parameter property: Node's type stripping (scripts/check-sources.mjs serves this fake over
  // HTTP) does not support parameter properties.
  /** @param clientSecret the secret the token endpoint accepts. */
  constructor(clientSecret: string = FAKE_CLIENT_SECRET) {
    this.clientSecret = clientSecret;
  }

  /** Token requests received. */
  get tokenRequests(): CarrierRequest[] {
    return this.requests.filter((r) => r.url.href.startsWith(FAKE_TOKEN_URL));
  }

  /** Event requests received. */
  get eventRequests(): CarrierRequest[] {
    return this.requests.filter((r) => r.url.href.startsWith(FAKE_CARRIER_BASE));
  }

  /** Invalidates every token issued so far: the next API call answers 401. */
  forgetTokens(): void {
    this.valid.clear();
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? init.body : "";
    this.requests.push({ method: init?.method ?? "GET", url, headers, body });
    if (url.href.startsWith(FAKE_TOKEN_URL)) return this.token(init?.method ?? "GET", headers, body);
    if (url.origin + url.pathname === `${FAKE_CARRIER_BASE}/v2/events`) return this.events_(url, headers, init);
    if (url.pathname.startsWith(new URL(`${FAKE_CARRIER_BASE}/v2/event-subscriptions`).pathname)) {
      return this.subscriptions_(init?.method ?? "GET", url, headers, body);
    }
    return json({ statusCode: 404 }, 404);
  };

  /** The one live subscription (tests create one per carrier); throws when there is none or several. */
  get subscription(): FakeSubscription {
    const live = [...this.subscriptions.values()].filter((s) => !s.deleted);
    if (live.length !== 1) throw new Error(`expected one live subscription, found ${live.length}`);
    return live[0] as FakeSubscription;
  }

  /**
   * POSTs `events` to the subscription's callback as the carrier would: the JSON body, `Notification-Signature`
   * (overridable: `signature: null` leaves it out), `Subscription-ID`, `API-Version`. `body` replaces the serialised
   * events (to replay an exact body). Returns our Worker's answer.
   */
  async push(
    events: unknown[],
    options: { signature?: string | null; body?: string; subscription?: FakeSubscription } = {},
  ): Promise<Response> {
    if (!this.deliver) throw new Error("no deliverer: set carrier.deliver");
    const sub = options.subscription ?? this.subscription;
    const body = options.body ?? JSON.stringify(events);
    const headers = new Headers({ "Content-Type": "application/json", "API-Version": "2.2.0" });
    headers.set("Subscription-ID", sub.subscriptionID);
    const signature = options.signature === undefined ? await dcsaSignature(sub.secret, body) : options.signature;
    if (signature !== null) headers.set("Notification-Signature", signature);
    return this.deliver(new Request(sub.callbackUrl, { method: "POST", headers, body }));
  }

  private async subscriptions_(method: string, url: URL, headers: Headers, body: string): Promise<Response> {
    const bearer = headers.get("Authorization")?.replace(/^Bearer /, "") ?? "";
    if (!this.valid.has(bearer) || headers.get("Consumer-Key") !== FAKE_CLIENT_ID) {
      return json({ statusCode: 401, statusCodeText: "Unauthorized" }, 401);
    }
    const collection = url.pathname.endsWith("/v2/event-subscriptions");
    if (method === "POST" && collection) {
      if (this.subscriptionStatus !== 201)
        return json({ statusCode: this.subscriptionStatus }, this.subscriptionStatus);
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return json({ statusCode: 400 }, 400);
      }
      const { callbackUrl, secret } = parsed;
      if (typeof callbackUrl !== "string" || typeof secret !== "string") return json({ statusCode: 400 }, 400);
      if (this.deliver) {
        const check = await this.deliver(new Request(callbackUrl, { method: "HEAD" }));
        if (!check.ok) return json({ statusCode: 400, statusCodeText: "callbackUrl does not answer" }, 400);
      }
      const subscriptionID = `5f0ad1c2-0000-4000-8000-${String(this.subscriptions.size + 1).padStart(12, "0")}`;
      this.subscriptions.set(subscriptionID, { subscriptionID, callbackUrl, secret, body: parsed, deleted: false });
      const { secret: _omitted, ...echoed } = parsed;
      return json({ subscriptionID, ...echoed }, 201);
    }
    const id = decodeURIComponent(url.pathname.split("/").at(-1) ?? "");
    const sub = this.subscriptions.get(id);
    if (method === "DELETE" && !collection) {
      if (!sub || sub.deleted) return json({ statusCode: 404 }, 404);
      sub.deleted = true;
      return new Response(null, { status: 204, headers: { "API-Version": "2.2.0" } });
    }
    return json({ statusCode: 405 }, 405);
  }

  private token(method: string, headers: Headers, body: string): Response {
    const form = new URLSearchParams(body);
    if (method !== "POST" || headers.get("Content-Type") !== "application/x-www-form-urlencoded") {
      return json({ error: "invalid_request" }, 400);
    }
    if (form.get("grant_type") !== "client_credentials") return json({ error: "unsupported_grant_type" }, 400);
    let id = form.get("client_id");
    let secret = form.get("client_secret");
    const basic = headers.get("Authorization");
    if (basic?.startsWith("Basic ")) {
      const [u, p] = atob(basic.slice(6)).split(":");
      id = decodeURIComponent((u ?? "").replace(/\+/g, " "));
      secret = decodeURIComponent((p ?? "").replace(/\+/g, " "));
    }
    if (id !== FAKE_CLIENT_ID || secret !== this.clientSecret) {
      return json({ error: "invalid_client", error_description: `Client authentication failed for ${secret}` }, 401);
    }
    this.issued += 1;
    const value = `token-${this.issued}`;
    this.valid.add(value);
    return json({ access_token: value, token_type: "Bearer", expires_in: this.tokenLifetimeS });
  }

  private events_(url: URL, headers: Headers, init: RequestInit | undefined): Response | Promise<Response> {
    const bearer = headers.get("Authorization")?.replace(/^Bearer /, "") ?? "";
    if (this.mode === "unauthorized" || !this.valid.has(bearer) || headers.get("Consumer-Key") !== FAKE_CLIENT_ID) {
      return json({ statusCode: 401, statusCodeText: "Unauthorized" }, 401);
    }
    switch (this.mode) {
      case "timeout":
        return new Promise((_resolve, reject) => {
          const signal = init?.signal;
          signal?.addEventListener("abort", () => reject(signal.reason));
        });
      case "error_500":
        return json({ statusCode: 500 }, 500);
      case "malformed_json":
        return new Response('[{"eventID": "truncated', {
          status: 200,
          headers: { "Content-Type": "application/json" },
        });
      case "page_loop":
        return json(this.events, 200, { "Next-Page": url.searchParams.get("cursor") === "a" ? "b" : "a" });
      default:
        return json(this.events);
    }
  }
}

/** Subscription requests received (create and delete). */
export function subscriptionRequests(carrier: FakeDcsaCarrier): CarrierRequest[] {
  return carrier.requests.filter((r) => r.url.pathname.includes("/v2/event-subscriptions"));
}

/** Lowercase hex HMAC-SHA256 of `body` keyed with the bytes of base64 `secret` (DCSA 2.2 Notification-Signature). */
export async function dcsaSignature(secret: string, body: string): Promise<string> {
  const key = Uint8Array.from(atob(secret), (c) => c.charCodeAt(0));
  const cryptoKey = await crypto.subtle.importKey("raw", key, { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  const mac = new Uint8Array(await crypto.subtle.sign("HMAC", cryptoKey, new TextEncoder().encode(body)));
  return `sha256=${[...mac].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "API-Version": "2.2.0", ...headers },
  });
}

/** `DCSA_SOURCES` for SCAC `scac` served by the fake through OAuth client credentials. */
export function oauthSourcesJson(
  scac: string,
  clientSecret: string = FAKE_CLIENT_SECRET,
  options: { subscriptions?: boolean } = {},
): string {
  return JSON.stringify({
    [scac]: {
      baseUrl: FAKE_CARRIER_BASE,
      ...(options.subscriptions ? { subscriptions: true } : {}),
      auth: {
        type: "oauth2_client_credentials",
        tokenUrl: FAKE_TOKEN_URL,
        clientId: FAKE_CLIENT_ID,
        clientSecret,
        extraHeaders: { "Consumer-Key": FAKE_CLIENT_ID },
      },
    },
  });
}
