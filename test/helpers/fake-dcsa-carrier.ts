// A fake DCSA Track & Trace 2.2 carrier with an OAuth 2.0 client-credentials token endpoint (RFC 6749 §4.4), served
// through an injected fetch, as Maersk's API portal works: POST the token endpoint with client id (= Consumer-Key) and
// secret as form fields, then GET /v2/events with `Authorization: Bearer` and `Consumer-Key`. Every request is
// recorded; the carrier can be made to time out, fail, answer garbage, page forever, or forget its tokens.

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

  /** @param clientSecret the secret the token endpoint accepts; change it to play a rotation at the carrier. */
  constructor(public clientSecret: string = FAKE_CLIENT_SECRET) {}

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
    return json({ statusCode: 404 }, 404);
  };

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

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", "API-Version": "2.2.0", ...headers },
  });
}

/** `DCSA_SOURCES` for SCAC `scac` served by the fake through OAuth client credentials. */
export function oauthSourcesJson(scac: string, clientSecret: string = FAKE_CLIENT_SECRET): string {
  return JSON.stringify({
    [scac]: {
      baseUrl: FAKE_CARRIER_BASE,
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
