import { errorObjectsFromBody, parseRetryAfter, TrackingClientError } from "./errors";
import { items, paginate } from "./pagination";
import {
  buildQuery,
  type ContainerFilters,
  type ContainerInclude,
  type FilterValues,
  type ListOptions,
  type RawEventInclude,
  type RouteInclude,
  type ShipmentFilters,
  type ShipmentInclude,
  type TrackingRequestFilters,
  type TrackingRequestInclude,
  type TransportEventInclude,
} from "./query";
import type {
  CollectionDocument,
  Container,
  InferNumberDocument,
  ListDocument,
  Party,
  Port,
  RawEvent,
  RefreshResult,
  RequestType,
  Route,
  Shipment,
  ShippingLine,
  SingleDocument,
  Terminal,
  TrackingRequest,
  TransportEvent,
} from "./types";

/**
 * How the client sends a request: any function from a `Request` to a `Response`. The global `fetch` (Node ≥ 18,
 * browsers, Workers), a Worker's service binding or `exports.default.fetch` in tests all fit.
 */
export type FetchLike = (request: Request) => Promise<Response>;

/** Default time to wait for an answer before failing with code `timeout` (ms). */
export const DEFAULT_TIMEOUT_MS = 30_000;
/** Default longest `Retry-After` the client waits out when 429 retries are on (seconds). */
export const DEFAULT_MAX_RETRY_WAIT_SECONDS = 60;
/** `User-Agent` sent unless told otherwise. */
export const DEFAULT_USER_AGENT = "container-tracking-client/0.1";
const JSON_API_MEDIA_TYPE = "application/vnd.api+json";
/** What `containers.route` includes unless told otherwise: the reference SDK's `include=port,vessel,route_location`. */
export const DEFAULT_ROUTE_INCLUDE: readonly RouteInclude[] = ["port", "vessel", "route_location"];

/** Options of {@link TrackingClient}. */
export interface TrackingClientOptions {
  /** The API key (`svc_live_…`); sent as `Authorization: <authScheme> <apiKey>` on every request. */
  apiKey: string;
  /**
   * Base URL of the REST API, ending in the version segment, e.g. `https://api.example.com/v2`
   * (docs/api.md §Base address and media types). A bare origin (`http://127.0.0.1:8787`) gets `/v2` appended; trailing
   * slashes are ignored.
   */
  baseUrl: string;
  /**
   * `Token` (default, docs/api.md §Authentication) or `Bearer` (accepted for API keys until OAuth exists,
   * docs/api.md §Authentication).
   */
  authScheme?: "Token" | "Bearer";
  /** Sends the requests; default the global `fetch`. */
  fetch?: FetchLike;
  /** Milliseconds to wait for each answer (default {@link DEFAULT_TIMEOUT_MS}); 0 disables the timeout. */
  timeoutMs?: number;
  /**
   * How many times a call answered 429 is retried after waiting `Retry-After` seconds (default 0: the
   * {@link TrackingClientError} is thrown at once, carrying `retryAfterSeconds`). A 429 request had no effect
   * (docs/decisions.md §Rate limits), so retrying is safe for every method.
   */
  maxRetries?: number;
  /** A 429 whose `Retry-After` is longer than this (seconds) is not waited out but thrown (default 60). */
  maxRetryWaitSeconds?: number;
  /** Waits `ms` milliseconds before a retry (default a timer); injectable so tests need not sleep. */
  sleep?: (ms: number) => Promise<void>;
  /** `User-Agent` header (default {@link DEFAULT_USER_AGENT}). */
  userAgent?: string;
}

/** Per-call options: a signal to abort the call (an abort is rethrown as is, not wrapped). */
export interface RequestOptions {
  signal?: AbortSignal;
}

/** Options of `get` calls: relationships to include (dotted paths allowed). */
export interface GetOptions<Include extends string = string> extends RequestOptions {
  include?: readonly (Include | (string & {}))[];
}

/** Options of the raw generic {@link TrackingClient.request}. */
export interface RawRequestOptions extends RequestOptions {
  query?: URLSearchParams | Record<string, string>;
  /** JSON-serialised and sent as `application/json`. */
  body?: unknown;
}

/**
 * Attributes of `POST /tracking_requests` (docs/api.md §Tracking request endpoints,
 * docs/decisions.md §Tracking requests).
 */
export interface CreateTrackingRequestInput {
  request_type: RequestType;
  /** The BL, booking or container number. */
  request_number: string;
  /** SCAC of the shipping line; may be omitted with `auto_detect_vocc_scac: true`. */
  scac?: string | null;
  ref_numbers?: string[];
  shipment_tags?: string[];
  /** Let the service infer the carrier (docs/decisions.md §Infer number). */
  auto_detect_vocc_scac?: boolean;
}

/** Options of `trackingRequests.create`: the customer (a party id) the request is for. */
export interface CreateTrackingRequestOptions extends RequestOptions {
  customerId?: string;
}

/** `tracking_requests` calls (docs/api.md §Tracking request endpoints, §Shipment endpoints, §Infer number). */
export interface TrackingRequestsApi {
  /** `POST /tracking_requests` → 201, status `pending`. 422 on validation (all failing fields at once). */
  create(
    input: CreateTrackingRequestInput,
    options?: CreateTrackingRequestOptions,
  ): Promise<SingleDocument<TrackingRequest>>;
  /** `GET /tracking_requests`, newest first; `tracked_object` included unless `include` says otherwise. */
  list(
    options?: ListOptions<TrackingRequestInclude> & { filter?: TrackingRequestFilters } & RequestOptions,
  ): Promise<ListDocument<TrackingRequest>>;
  /** Every tracking request matching `options`, page by page (lazy). */
  iterate(
    options?: ListOptions<TrackingRequestInclude> & { filter?: TrackingRequestFilters } & RequestOptions,
  ): AsyncGenerator<TrackingRequest, void, undefined>;
  /** `GET /tracking_requests/{id}`. */
  get(id: string, options?: GetOptions<TrackingRequestInclude>): Promise<SingleDocument<TrackingRequest>>;
  /** `PATCH /tracking_requests/{id}`: replaces `ref_numbers` and/or `shipment_tags`. */
  update(
    id: string,
    attributes: { ref_numbers?: string[]; shipment_tags?: string[] },
    options?: RequestOptions,
  ): Promise<SingleDocument<TrackingRequest>>;
  /** `POST /tracking_requests/infer_number` (beta): number type, validity and shipping line prediction. */
  inferNumber(number: string, options?: RequestOptions): Promise<InferNumberDocument>;
}

/** `shipments` calls (docs/api.md §Shipment endpoints). */
export interface ShipmentsApi {
  /** `GET /shipments`, newest first. */
  list(
    options?: ListOptions<ShipmentInclude> & { filter?: ShipmentFilters } & RequestOptions,
  ): Promise<ListDocument<Shipment>>;
  /** Every shipment matching `options`, page by page (lazy). */
  iterate(
    options?: ListOptions<ShipmentInclude> & { filter?: ShipmentFilters } & RequestOptions,
  ): AsyncGenerator<Shipment, void, undefined>;
  /** `GET /shipments/{id}`. */
  get(id: string, options?: GetOptions<ShipmentInclude>): Promise<SingleDocument<Shipment>>;
  /** `PATCH /shipments/{id}`: replaces `ref_numbers` and/or `tags`. */
  update(
    id: string,
    attributes: { ref_numbers?: string[]; tags?: string[] },
    options?: RequestOptions,
  ): Promise<SingleDocument<Shipment>>;
  /** `PATCH /shipments/{id}/stop_tracking` (idempotent). */
  stopTracking(id: string, options?: RequestOptions): Promise<SingleDocument<Shipment>>;
  /** `PATCH /shipments/{id}/resume_tracking` (idempotent). */
  resumeTracking(id: string, options?: RequestOptions): Promise<SingleDocument<Shipment>>;
}

/** `containers` calls (docs/api.md §Container endpoints). */
export interface ContainersApi {
  /** `GET /containers`, newest first. */
  list(
    options?: ListOptions<ContainerInclude> & { filter?: ContainerFilters } & RequestOptions,
  ): Promise<ListDocument<Container>>;
  /** Every container matching `options`, page by page (lazy). */
  iterate(
    options?: ListOptions<ContainerInclude> & { filter?: ContainerFilters } & RequestOptions,
  ): AsyncGenerator<Container, void, undefined>;
  /** `GET /containers/{id}`. */
  get(id: string, options?: GetOptions<ContainerInclude>): Promise<SingleDocument<Container>>;
  /** `GET /containers/{id}/transport_events`: past milestones, oldest first, paginated. */
  transportEvents(
    id: string,
    options?: ListOptions<TransportEventInclude> & RequestOptions,
  ): Promise<ListDocument<TransportEvent>>;
  /** Every transport event of the container, oldest first, page by page (lazy). */
  iterateTransportEvents(
    id: string,
    options?: ListOptions<TransportEventInclude> & RequestOptions,
  ): AsyncGenerator<TransportEvent, void, undefined>;
  /** `GET /containers/{id}/raw_events` (deprecated by the API): every carrier row, not paginated. */
  rawEvents(id: string, options?: GetOptions<RawEventInclude>): Promise<CollectionDocument<RawEvent>>;
  /** `PATCH /containers/{id}/refresh`: queues a poll now; own bucket of 10 per minute (docs/api.md §Rate limits). */
  refresh(id: string, options?: RequestOptions): Promise<RefreshResult>;
  /**
   * `GET /containers/{id}/route` (paid feature `routing`): the route's stops (`route_location`s, journey order)
   * with their legs, ports and vessels. `include` defaults to {@link DEFAULT_ROUTE_INCLUDE} (as the reference SDK
   * sends); `include: []` sends `include=` (no `included`). Rejects with a 403 `TrackingClientError` (detail
   * `Routing data feature is not enabled for this account`) when the account lacks the feature.
   */
  route(id: string, options?: GetOptions<RouteInclude>): Promise<SingleDocument<Route>>;
}

/** `shipping_lines` calls. */
export interface ShippingLinesApi {
  /** `GET /shipping_lines`, sorted by SCAC; `search` matches SCAC, alternative SCACs and names. */
  list(options?: ListOptions & { search?: string } & RequestOptions): Promise<ListDocument<ShippingLine>>;
  /** Every shipping line matching `options`, page by page (lazy). */
  iterate(options?: ListOptions & { search?: string } & RequestOptions): AsyncGenerator<ShippingLine, void, undefined>;
  /** `GET /shipping_lines/{scac}` (an alternative SCAC or the line's id works too). */
  get(scac: string, options?: RequestOptions): Promise<SingleDocument<ShippingLine>>;
}

/** `parties` calls (customers of the account). */
export interface PartiesApi {
  /** `POST /parties` → 201. */
  create(attributes: { company_name: string }, options?: RequestOptions): Promise<SingleDocument<Party>>;
  /** `GET /parties`, newest first. */
  list(options?: ListOptions & RequestOptions): Promise<ListDocument<Party>>;
  /** `GET /parties/{id}`. */
  get(id: string, options?: RequestOptions): Promise<SingleDocument<Party>>;
}

/**
 * Typed client of the container tracking REST API (`/v2`, JSON:API documents). Runs wherever `fetch` and
 * `Request` exist (Node ≥ 18, browsers, Workers): no Node-only APIs.
 *
 * Every method resolves with the API's document, typed, and rejects with a {@link TrackingClientError} for any
 * 4xx/5xx answer or when no answer came (status 0). List calls resolve with one page (`page: {number, size}`);
 * the `iterate…` methods walk every page lazily.
 *
 * @example
 * const client = new TrackingClient({ apiKey: process.env.SVC_API_KEY, baseUrl: "https://api.example.com/v2" });
 * const { data } = await client.containers.list({ filter: { status: "available" }, include: ["shipment"] });
 */
export class TrackingClient {
  /** Normalised base URL, ending in the version segment and without a trailing slash. */
  readonly baseUrl: string;
  readonly trackingRequests: TrackingRequestsApi;
  readonly shipments: ShipmentsApi;
  readonly containers: ContainersApi;
  readonly shippingLines: ShippingLinesApi;
  readonly parties: PartiesApi;
  readonly #authorization: string;
  readonly #fetch: FetchLike;
  readonly #timeoutMs: number;
  readonly #maxRetries: number;
  readonly #maxRetryWaitSeconds: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #userAgent: string;

  /** @throws TypeError when the key is empty or holds whitespace, or the base URL is not an http(s) URL. */
  constructor(options: TrackingClientOptions) {
    const key = options.apiKey?.trim() ?? "";
    if (key === "" || /\s/.test(key))
      throw new TypeError("TrackingClient: apiKey must be a non-empty key without spaces");
    this.baseUrl = normaliseBaseUrl(options.baseUrl);
    this.#authorization = `${options.authScheme ?? "Token"} ${key}`;
    this.#fetch = options.fetch ?? ((request) => fetch(request));
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    this.#maxRetries = Math.max(0, options.maxRetries ?? 0);
    this.#maxRetryWaitSeconds = options.maxRetryWaitSeconds ?? DEFAULT_MAX_RETRY_WAIT_SECONDS;
    this.#sleep = options.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.#userAgent = options.userAgent ?? DEFAULT_USER_AGENT;

    const get = <T>(path: string, query?: URLSearchParams, signal?: AbortSignal) =>
      this.request<T>("GET", path, { query, signal });
    const id = encodeURIComponent;

    this.trackingRequests = {
      create: (input, opts = {}) =>
        this.request("POST", "/tracking_requests", {
          signal: opts.signal,
          body: {
            data: {
              type: "tracking_request",
              attributes: input,
              ...(opts.customerId
                ? { relationships: { customer: { data: { id: opts.customerId, type: "party" } } } }
                : {}),
            },
          },
        }),
      list: (opts = {}) => get("/tracking_requests", buildQuery(filtered(opts)), opts.signal),
      iterate: (opts = {}) =>
        items(
          paginate((n) => this.trackingRequests.list({ ...opts, page: { ...opts.page, number: n } }), startOf(opts)),
        ),
      get: (trId, opts = {}) => get(`/tracking_requests/${id(trId)}`, buildQuery(opts), opts.signal),
      update: (trId, attributes, opts = {}) =>
        this.request("PATCH", `/tracking_requests/${id(trId)}`, {
          signal: opts.signal,
          body: { data: { type: "tracking_request", id: trId, attributes } },
        }),
      inferNumber: (number, opts = {}) =>
        this.request("POST", "/tracking_requests/infer_number", { signal: opts.signal, body: { number } }),
    };

    this.shipments = {
      list: (opts = {}) => get("/shipments", buildQuery(filtered(opts), ["number"]), opts.signal),
      iterate: (opts = {}) =>
        items(paginate((n) => this.shipments.list({ ...opts, page: { ...opts.page, number: n } }), startOf(opts))),
      get: (shipmentId, opts = {}) => get(`/shipments/${id(shipmentId)}`, buildQuery(opts), opts.signal),
      update: (shipmentId, attributes, opts = {}) =>
        this.request("PATCH", `/shipments/${id(shipmentId)}`, {
          signal: opts.signal,
          body: { data: { type: "shipment", id: shipmentId, attributes } },
        }),
      stopTracking: (shipmentId, opts = {}) =>
        this.request("PATCH", `/shipments/${id(shipmentId)}/stop_tracking`, { signal: opts.signal }),
      resumeTracking: (shipmentId, opts = {}) =>
        this.request("PATCH", `/shipments/${id(shipmentId)}/resume_tracking`, { signal: opts.signal }),
    };

    this.containers = {
      list: (opts = {}) => get("/containers", buildQuery(filtered(opts)), opts.signal),
      iterate: (opts = {}) =>
        items(paginate((n) => this.containers.list({ ...opts, page: { ...opts.page, number: n } }), startOf(opts))),
      get: (containerId, opts = {}) => get(`/containers/${id(containerId)}`, buildQuery(opts), opts.signal),
      transportEvents: (containerId, opts = {}) =>
        get(`/containers/${id(containerId)}/transport_events`, buildQuery(opts), opts.signal),
      iterateTransportEvents: (containerId, opts = {}) =>
        items(
          paginate(
            (n) => this.containers.transportEvents(containerId, { ...opts, page: { ...opts.page, number: n } }),
            startOf(opts),
          ),
        ),
      rawEvents: (containerId, opts = {}) =>
        get(`/containers/${id(containerId)}/raw_events`, buildQuery(opts), opts.signal),
      refresh: (containerId, opts = {}) =>
        this.request("PATCH", `/containers/${id(containerId)}/refresh`, { signal: opts.signal }),
      route: (containerId, opts = {}) =>
        get(
          `/containers/${id(containerId)}/route`,
          buildQuery({ include: opts.include ?? DEFAULT_ROUTE_INCLUDE }),
          opts.signal,
        ),
    };

    this.shippingLines = {
      list: (opts = {}) => {
        const query = buildQuery(opts);
        if (opts.search !== undefined) query.set("search", opts.search);
        return get("/shipping_lines", query, opts.signal);
      },
      iterate: (opts = {}) =>
        items(paginate((n) => this.shippingLines.list({ ...opts, page: { ...opts.page, number: n } }), startOf(opts))),
      get: (scac, opts = {}) => get(`/shipping_lines/${id(scac)}`, undefined, opts.signal),
    };

    this.parties = {
      create: (attributes, opts = {}) =>
        this.request("POST", "/parties", { signal: opts.signal, body: { data: { type: "party", attributes } } }),
      list: (opts = {}) => get("/parties", buildQuery(opts), opts.signal),
      get: (partyId, opts = {}) => get(`/parties/${id(partyId)}`, undefined, opts.signal),
    };
  }

  /**
   * The container's route (paid feature `routing`), with its locations, ports and vessels included: the reference
   * SDK's `getContainerRoute(id)`, the same call as `containers.route(id)`.
   * @throws TrackingClientError 403 without the `routing` feature, 404 for an unknown or another account's id
   */
  getContainerRoute(containerId: string, options: RequestOptions = {}): Promise<SingleDocument<Route>> {
    return this.containers.route(containerId, options);
  }

  /** `GET /terminals/{id}` (include `port`). */
  getTerminal(terminalId: string, options: GetOptions<"port"> = {}): Promise<SingleDocument<Terminal>> {
    return this.request("GET", `/terminals/${encodeURIComponent(terminalId)}`, {
      query: buildQuery(options),
      signal: options.signal,
    });
  }

  /** `GET /ports/{id}`: a port by UN/LOCODE (e.g. `USLAX`) or id (include `terminals`). */
  getPort(idOrLocode: string, options: GetOptions<"terminals"> = {}): Promise<SingleDocument<Port>> {
    return this.request("GET", `/ports/${encodeURIComponent(idOrLocode)}`, {
      query: buildQuery(options),
      signal: options.signal,
    });
  }

  /** `GET /health` under the base URL: `{status: "ok"}` (no key needed, no rate limit). */
  health(options: RequestOptions = {}): Promise<{ status: "ok" }> {
    return this.request("GET", "/health", { signal: options.signal });
  }

  /**
   * Sends one request to `path` (below the base URL, starting with `/`) with the key, `Accept: JSON:API` and, when
   * `body` is given, the JSON body; parses the answer. The typed methods are built on it; use it for endpoints
   * they do not cover yet.
   * @returns the parsed JSON body (undefined for 204 or an empty body)
   * @throws TrackingClientError on a 4xx/5xx answer, a timeout, a network failure or an unreadable body
   */
  async request<T>(method: string, path: string, options: RawRequestOptions = {}): Promise<T> {
    const query = options.query instanceof URLSearchParams ? options.query : new URLSearchParams(options.query);
    const search = query.toString();
    const pathWithQuery = search === "" ? path : `${path}?${search}`;
    for (let attempt = 0; ; attempt++) {
      const response = await this.#send(method, pathWithQuery, options);
      if (response.ok) return (await readJson(response, method, pathWithQuery)) as T;
      const error = await toClientError(response, method, pathWithQuery);
      const wait = error.retryAfterSeconds ?? 1;
      if (error.status !== 429 || attempt >= this.#maxRetries || wait > this.#maxRetryWaitSeconds) throw error;
      await this.#sleep(wait * 1000);
    }
  }

  async #send(method: string, pathWithQuery: string, options: RawRequestOptions): Promise<Response> {
    const headers = new Headers({
      Authorization: this.#authorization,
      Accept: `${JSON_API_MEDIA_TYPE}, application/json`,
      "User-Agent": this.#userAgent,
    });
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    if (body !== undefined) headers.set("Content-Type", "application/json");
    const timeout = this.#timeoutMs > 0 ? new AbortController() : null;
    const timer = timeout ? setTimeout(() => timeout.abort(), this.#timeoutMs) : undefined;
    const signal = combineSignals(options.signal, timeout?.signal);
    try {
      const request = new Request(`${this.baseUrl}${pathWithQuery}`, { method, headers, body, signal });
      return await this.#fetch(request);
    } catch (err) {
      if (options.signal?.aborted) throw err;
      const timedOut = timeout?.signal.aborted === true;
      throw new TrackingClientError({
        status: 0,
        method,
        path: pathWithQuery,
        code: timedOut ? "timeout" : "network_error",
        errors: [
          {
            status: "0",
            title: timedOut ? "Timeout" : "Network error",
            detail: timedOut
              ? `No answer from ${new URL(this.baseUrl).origin} within ${this.#timeoutMs} ms.`
              : `Could not reach ${new URL(this.baseUrl).origin}.`,
          },
        ],
        cause: err,
      });
    } finally {
      if (timer !== undefined) clearTimeout(timer);
    }
  }
}

/** Moves the typed `filter` of list options into {@link buildQuery}'s untyped filter map. */
function filtered(options: ListOptions & { filter?: object }): ListOptions & { filter?: FilterValues } {
  return { ...options, filter: options.filter as FilterValues | undefined };
}

function startOf(options: ListOptions): { startPage: number } {
  return { startPage: options.page?.number ?? 1 };
}

/**
 * The base URL as the client uses it: http(s) only, no trailing slash, `/v2` appended to a bare origin.
 * @throws TypeError for anything that is not an absolute http(s) URL, or that carries credentials or a query
 */
export function normaliseBaseUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new TypeError(`TrackingClient: baseUrl is not a URL: ${JSON.stringify(raw)}`);
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new TypeError("TrackingClient: baseUrl must be an http(s) URL");
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new TypeError("TrackingClient: baseUrl must not carry credentials, a query or a fragment");
  }
  const path = url.pathname.replace(/\/+$/, "");
  return `${url.origin}${path === "" ? "/v2" : path}`;
}

/** One signal that aborts when any of `signals` does (AbortSignal.any is not in Node 18). */
function combineSignals(...signals: (AbortSignal | undefined)[]): AbortSignal | undefined {
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  if (present.length <= 1) return present[0];
  const controller = new AbortController();
  for (const signal of present) {
    if (signal.aborted) {
      controller.abort(signal.reason);
      break;
    }
    signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  }
  return controller.signal;
}

async function readJson(response: Response, method: string, path: string): Promise<unknown> {
  const text = await response.text();
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new TrackingClientError({
      status: 0,
      method,
      path,
      code: "invalid_response",
      errors: [
        { status: "0", title: "Invalid response", detail: `HTTP ${response.status} with a body that is not JSON.` },
      ],
      requestId: response.headers.get("X-Request-Id"),
      cause: err,
    });
  }
}

async function toClientError(response: Response, method: string, path: string): Promise<TrackingClientError> {
  let body: unknown = null;
  try {
    body = JSON.parse(await response.text());
  } catch {
    // Not JSON: errorObjectsFromBody describes the status instead.
  }
  return new TrackingClientError({
    status: response.status,
    method,
    path,
    errors: errorObjectsFromBody(response.status, response.statusText, body),
    retryAfterSeconds: parseRetryAfter(response.headers.get("Retry-After")),
    requestId: response.headers.get("X-Request-Id"),
  });
}
