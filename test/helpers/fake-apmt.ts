// A fake of APM Terminals' "APMT Track and Trace - Import Availability" API (docs/terminals.md §APM Terminals),
// served through an injected fetch. It speaks what the documentation says, not what the adapter expects:
// - OAuth 2.0 client credentials on Apigee (§APMT authentication): POST
//   {base}/oauth/client_credential/accesstoken?grant_type= client_credentials, client id and secret as form fields or
//   HTTP Basic; the answer is Apigee Edge's (string `expires_in`, `token_type: "BearerToken"`, `api_product_list_json`,
//   …); tokens live 30 minutes by the fake's clock.
// - GET {base}/import-availability?assetId=<ids, comma-separated>&facilityCode=<one UN/LOCODE> with `Authorization:
//   Bearer` (§APMT request): both parameters required, exactly one facility, container ids or B/L numbers, at most
//   `maxAssets` ids (APMT states no maximum; the fake enforces Envase's 50 so a client that ignores a limit fails).
// - 200: a list with one entry per asset found (§APMT response fields names), unknown assets left out;
//   400/401/403/404/500 as §APMT responses and errors, with an assumed ApiError body `{code, message}` (its fields are
//   undocumented), Apigee's fault body on a bad token.
// Every request is recorded; the API can be made to fail, throttle, time out or answer garbage.

/** Where the fake lives (never resolved: requests go to the injected fetch). */
export const FAKE_APMT_BASE = "https://api.apmterminals.test";
export const FAKE_APMT_TOKEN_URL = `${FAKE_APMT_BASE}/oauth/client_credential/accesstoken?grant_type=client_credentials`;
export const FAKE_APMT_CLIENT_ID = "apmt-consumer-key-51f0";
export const FAKE_APMT_CLIENT_SECRET = "apmt-consumer-secret-DO-NOT-LOG-77aa";
/** Token lifetime APMT documents: 30 minutes (§APMT authentication). Apigee answers one second less. */
export const FAKE_APMT_TOKEN_LIFETIME_S = 1799;

/** The facility codes of the Import Availability spec's `facilityCode` list (§APMT facility codes). */
export const APMT_FACILITY_CODES = [
  "USLAX",
  "USNWK",
  "USMOB",
  "USMIA",
  "SEGOT",
  "ITVDL",
  "NGAPP",
  "BHKBS",
  "ARBUE",
  "ESALG",
  "NLRTM",
  "MAPTM",
  "INNSA",
  "INPAV",
  "JOAQB",
  "DKAAR",
  "GTPRQ",
  "ESBCN",
] as const;

/** One Import Availability entry as the API returns it (§APMT response fields property names; all optional). */
export interface ApmtAvailabilityEntry {
  containerId: string;
  billOfLading?: string | null;
  readyForDelivery?: string | null;
  containerState?: "Advised" | "Inbound" | "Yard" | "Loaded" | "Departed" | "Retired" | null;
  dischargeDateTimeLocal?: string | null;
  yardLocation?: string | null;
  containerHolds?: string | null;
  storagePaidThroughDate?: string | null;
  demurrageOwed?: string | null;
  sizeTypeHeight?: string | null;
  containerIsoCode?: string | null;
  containerGrossWeightKilos?: number | null;
  containerGrossWeightPounds?: number | null;
  hazardous?: string | null;
  facilityOutDateTimeLocal?: string | null;
  vesselName?: string | null;
  vesselEtaDateTimeLocal?: string | null;
  shippingLine?: string | null;
  appointment?: string | null;
  appointmentDateTimeLocal?: string | null;
}

/** One Empty Container Returns entry (§APMT empty returns, its documented fields). */
export interface ApmtEmptyReturnEntry {
  containerId: string;
  shippingLine?: string | null;
  containerIsoCode?: string | null;
  sizeTypeHeight?: string | null;
  isContainerReturned?: string | null;
  gateInDateTimeLocal?: string | null;
}

/** How the API behaves on the next requests. */
export type ApmtMode =
  | "ok"
  | "timeout"
  | "error_500"
  | "rate_limited"
  | "forbidden"
  | "malformed_json"
  | "html_gateway"
  | "single_object";

/** One recorded request. */
export interface ApmtRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/** The fake APMT API: its fetch, what it was asked, its data and knobs. */
export class FakeApmt {
  readonly requests: ApmtRequest[] = [];
  mode: ApmtMode = "ok";
  /** Most asset ids one request may carry; more → 400. */
  maxAssets = 50;
  /** The fake's clock (ms), for token expiry. Tests move it with their own clock. */
  nowMs = 0;
  /** `Retry-After` (seconds) sent with a 429. */
  retryAfterS = 30;
  /**
   * Whether our app subscribes to Empty Container Returns; false → 403 there (another API product,
   * §APMT authentication).
   */
  emptyReturnsProduct = true;
  /** Entries by facility code, then container id. */
  private readonly data = new Map<string, Map<string, ApmtAvailabilityEntry>>();
  /** Empty Container Returns entries by facility code, then container id. */
  private readonly returns = new Map<string, Map<string, ApmtEmptyReturnEntry>>();
  /** Tokens the API accepts, with their expiry (ms by the fake's clock). */
  private readonly valid = new Map<string, number>();
  private issued = 0;

  /** The secret the token endpoint accepts; change it to play a rotation at APMT. */
  clientSecret: string;

  // A plain field, not a parameter property: Node's type stripping (scripts/check-sources.mjs serves this fake over
  // HTTP) does not support parameter properties.
  /** @param clientSecret the secret the token endpoint accepts. */
  constructor(clientSecret: string = FAKE_APMT_CLIENT_SECRET) {
    this.clientSecret = clientSecret;
  }

  /** Sets (replaces) what the terminal `facility` reports for a container. */
  put(facility: string, entry: ApmtAvailabilityEntry): void {
    let boxes = this.data.get(facility);
    if (!boxes) {
      boxes = new Map();
      this.data.set(facility, boxes);
    }
    boxes.set(entry.containerId, entry);
  }

  /** Sets what Empty Container Returns reports for a container at `facility`. */
  putReturn(facility: string, entry: ApmtEmptyReturnEntry): void {
    let boxes = this.returns.get(facility);
    if (!boxes) {
      boxes = new Map();
      this.returns.set(facility, boxes);
    }
    boxes.set(entry.containerId, entry);
  }

  /** Changes some fields of a container's entry (the terminal's data moving on). */
  update(facility: string, containerId: string, change: Partial<ApmtAvailabilityEntry>): void {
    const current = this.data.get(facility)?.get(containerId);
    if (!current) throw new Error(`fake APMT: no ${containerId} at ${facility}`);
    this.put(facility, { ...current, ...change });
  }

  /** Token requests received. */
  get tokenRequests(): ApmtRequest[] {
    return this.requests.filter((r) => r.url.pathname === "/oauth/client_credential/accesstoken");
  }

  /** Import Availability requests received. */
  get availabilityRequests(): ApmtRequest[] {
    return this.requests.filter((r) => r.url.pathname === "/import-availability");
  }

  /** Empty Container Returns requests received. */
  get emptyReturnRequests(): ApmtRequest[] {
    return this.requests.filter((r) => r.url.pathname === "/empty-container-returns");
  }

  /** Revokes every token issued so far: the next API call answers 401. */
  forgetTokens(): void {
    this.valid.clear();
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? init.body : "";
    const method = init?.method ?? "GET";
    this.requests.push({ method, url, headers, body });
    if (url.origin !== FAKE_APMT_BASE) throw new TypeError(`fake APMT: no route to ${url.origin}`);
    if (url.pathname === "/oauth/client_credential/accesstoken") return this.token(method, url, headers, body);
    if (url.pathname === "/import-availability" && method === "GET") {
      return this.assets(url, headers, init, this.data);
    }
    if (url.pathname === "/empty-container-returns" && method === "GET") {
      if (!this.emptyReturnsProduct && this.isValid(headers)) {
        return apiError(403, "The user does not have permission to access this endpoint");
      }
      return this.assets(url, headers, init, this.returns);
    }
    return apiError(404, "Bad URL");
  };

  private token(method: string, url: URL, headers: Headers, body: string): Response {
    if (method !== "POST") return apiError(405, "Method not allowed");
    const form = new URLSearchParams(body);
    const grant = url.searchParams.get("grant_type") ?? form.get("grant_type");
    if (grant !== "client_credentials") {
      return json({ ErrorCode: "invalid_request", Error: "Unsupported grant type : " }, 400);
    }
    let id = form.get("client_id");
    let secret = form.get("client_secret");
    const basic = headers.get("Authorization");
    if (basic?.startsWith("Basic ")) {
      const [u, p] = atob(basic.slice(6)).split(":");
      id = decodeURIComponent((u ?? "").replace(/\+/g, " "));
      secret = decodeURIComponent((p ?? "").replace(/\+/g, " "));
    }
    if (id !== FAKE_APMT_CLIENT_ID || secret !== this.clientSecret) {
      // Apigee Edge's refusal; the secret is echoed on purpose: a client that logs bodies leaks it.
      return json({ ErrorCode: "invalid_client", Error: `ClientId is Invalid (secret ${secret})` }, 401);
    }
    this.issued += 1;
    const value = `apmt-token-${this.issued}`;
    this.valid.set(value, this.nowMs + FAKE_APMT_TOKEN_LIFETIME_S * 1000);
    return json({
      refresh_token_expires_in: "0",
      api_product_list: "[Import Availability]",
      api_product_list_json: ["Import Availability"],
      organization_name: "apmt",
      "developer.email": "ops@example.test",
      token_type: "BearerToken",
      issued_at: String(this.nowMs),
      client_id: FAKE_APMT_CLIENT_ID,
      access_token: value,
      application_name: "6f1c2b8e-tracking",
      scope: "",
      expires_in: String(FAKE_APMT_TOKEN_LIFETIME_S),
      refresh_count: "0",
      status: "approved",
    });
  }

  private isValid(headers: Headers): boolean {
    const bearer = /^Bearer (\S+)$/.exec(headers.get("Authorization") ?? "")?.[1] ?? "";
    const expiresAt = this.valid.get(bearer);
    return expiresAt !== undefined && this.nowMs < expiresAt;
  }

  /** An `assetId` + `facilityCode` operation over `store` (both APIs share the parameters, §APMT empty returns). */
  private assets(
    url: URL,
    headers: Headers,
    init: RequestInit | undefined,
    store: Map<string, Map<string, ApmtAvailabilityEntry | ApmtEmptyReturnEntry>>,
  ): Response | Promise<Response> {
    if (!this.isValid(headers)) {
      return json(
        { fault: { faultstring: "Invalid access token", detail: { errorcode: "oauth.v2.InvalidAccessToken" } } },
        401,
      );
    }
    if (this.mode === "forbidden") return apiError(403, "The user does not have permission to access this endpoint");
    const assetParam = url.searchParams.getAll("assetId");
    const facilityParam = url.searchParams.getAll("facilityCode");
    if (assetParam.length !== 1 || facilityParam.length !== 1) {
      return apiError(400, "assetId and facilityCode are required, once each");
    }
    const facility = (facilityParam[0] ?? "").trim().toUpperCase();
    if (!(APMT_FACILITY_CODES as readonly string[]).includes(facility)) {
      return apiError(400, "facilityCode must be one of the listed terminals");
    }
    const assets = (assetParam[0] ?? "")
      .split(",")
      .map((a) => a.trim().toUpperCase())
      .filter((a) => a !== "");
    if (assets.length === 0) return apiError(400, "assetId is required");
    if (assets.length > this.maxAssets) {
      return apiError(400, `Too many assets: at most ${this.maxAssets} per request`);
    }
    switch (this.mode) {
      case "timeout":
        return new Promise((_resolve, reject) => {
          const signal = init?.signal;
          signal?.addEventListener("abort", () => reject(signal.reason));
        });
      case "error_500":
        return apiError(500, "Internal server error");
      case "rate_limited":
        return json({ fault: { faultstring: "Rate limit quota violation" } }, 429, {
          "Retry-After": String(this.retryAfterS),
        });
      case "malformed_json":
        return new Response('[{"containerId": "MSKU', { status: 200, headers: { "Content-Type": "application/json" } });
      case "html_gateway":
        return new Response("<html><body>Service Unavailable</body></html>", {
          status: 200,
          headers: { "Content-Type": "text/html" },
        });
      default: {
        const boxes = store.get(facility) ?? new Map<string, ApmtAvailabilityEntry | ApmtEmptyReturnEntry>();
        const found: (ApmtAvailabilityEntry | ApmtEmptyReturnEntry)[] = [];
        for (const asset of assets) {
          for (const entry of boxes.values()) {
            const bl = "billOfLading" in entry ? entry.billOfLading : null;
            if ((entry.containerId === asset || bl === asset) && !found.includes(entry)) {
              found.push(entry);
            }
          }
        }
        if (this.mode === "single_object" && found.length === 1) return json(found[0]);
        return json(found);
      }
    }
  }
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "Content-Type": "application/json", ...headers },
  });
}

/** APMT's ApiError (fields undocumented, §APMT responses and errors: assumed `{code, message}`). */
function apiError(status: number, message: string): Response {
  return json({ code: String(status), message }, status);
}

/** A `TERMINAL_SOURCES` `apmt` entry (parsed form) for the fake: OAuth client credentials, `facilities` as given. */
export function fakeApmtConfig(facilities: Record<string, string>, clientSecret: string = FAKE_APMT_CLIENT_SECRET) {
  return {
    baseUrl: FAKE_APMT_BASE,
    auth: {
      type: "oauth2_client_credentials" as const,
      tokenUrl: FAKE_APMT_TOKEN_URL,
      clientId: FAKE_APMT_CLIENT_ID,
      clientSecret,
      extraHeaders: {},
      clientAuth: "body" as const,
    },
    facilities,
  };
}
