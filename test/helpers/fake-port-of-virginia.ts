// A fake Port of Virginia Import Availability API (docs/terminals.md §Port of Virginia), served through an injected
// fetch. It checks what the real one documents: the API key in `X-API-KEY` or `?key=`, `GET /import-availability` with
// both `equipmentId` and `referenceId`, `POST /import-availability` with a JSON list of at most 100
// `{equipmentId, referenceId}` objects answered with `{equipmentId, referenceId, data, message}` wrappers. A container
// it does not hold, or one asked with a bill of lading it does not associate with the box, gets `data: null` and a
// message. Every request is recorded; the API can be made to time out, fail, rate-limit, or answer garbage.
// Error bodies (`{"message": …}`) and the not-found message wording are not documented: reconstructed.

/** Where the fake lives (never resolved: requests go to the injected fetch). */
export const FAKE_POV_BASE = "https://subscriptions-uat.portofvirginia.test";
export const FAKE_POV_API_KEY = "pov-sandbox-key-5f2a-DO-NOT-LOG";

/** The documented bulk limit. */
export const FAKE_POV_BULK_LIMIT = 100;

/** How the API behaves on the next requests. */
export type PovMode = "ok" | "timeout" | "error_500" | "rate_limited" | "malformed_json" | "not_a_list";

/** One recorded request. */
export interface PovRequest {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/** The import availability object as documented (docs/terminals.md §Port of Virginia fields), every field present. */
export interface PovAvailability {
  container: string;
  billOfLading: string;
  category: string;
  freightKind: string;
  iso: string;
  terminal: string;
  shipmentStatus: string | null;
  shipmentAction: string | null;
  carrierScac: string;
  carrierName: string;
  yardBlock: string | null;
  isHazardous: boolean;
  isReefer: boolean;
  holds: unknown[];
  freeTimeExpiration: string | null;
  voyageLloyds: string;
  voyageCode: string;
  voyageVesselName: string;
  weight: string;
  weightUnit: string;
  weightQualifier: string;
  chassis: string | null;
  outTime: string | null;
  emptyReturnTime: string | null;
}

/**
 * An import availability object like the documented example (a laden import at NIT, just discharged: not available,
 * no holds, no free time yet), with `overrides`.
 */
export function povAvailability(
  container: string,
  billOfLading: string,
  overrides: Partial<PovAvailability> = {},
): PovAvailability {
  return {
    container,
    billOfLading,
    category: "IMPRT",
    freightKind: "LADEN",
    iso: "22G0",
    terminal: "NIT",
    shipmentStatus: "Not Available",
    shipmentAction: "UV",
    carrierScac: "CMDU",
    carrierName: "CMA",
    yardBlock: null,
    isHazardous: false,
    isReefer: false,
    holds: [],
    freeTimeExpiration: null,
    voyageLloyds: "9321263",
    voyageCode: "COUR-1247",
    voyageVesselName: "MOL COURAGE",
    weight: "18750",
    weightUnit: "K",
    weightQualifier: "N",
    chassis: null,
    outTime: null,
    emptyReturnTime: null,
    ...overrides,
  };
}

/** A subscription the fake holds. */
export interface PovSubscription {
  subscriptionID: string;
  equipmentId: string;
  referenceId: string;
  callbackUrl: string;
}

/** The fake API: its fetch, what it was asked, and knobs. */
export class FakePortOfVirginia {
  readonly requests: PovRequest[] = [];
  /** Containers the terminals hold, by container number. */
  readonly containers = new Map<string, PovAvailability>();
  mode: PovMode = "ok";
  /** Subscriptions held, by `subscriptionID`. */
  readonly subscriptions = new Map<string, PovSubscription>();
  /** `Retry-After` seconds sent with a 429. */
  retryAfterS = 30;

  /** The key the API accepts; change it to play a key revoked at the port. */
  apiKey: string;

  // A plain field, not a parameter property: Node's type stripping (scripts/check-sources.mjs serves this fake over
  // HTTP) does not support parameter properties.
  /** @param apiKey the key the API accepts. */
  constructor(apiKey: string = FAKE_POV_API_KEY) {
    this.apiKey = apiKey;
  }

  /** Puts (or replaces) a container's availability. */
  set(data: PovAvailability): void {
    this.containers.set(data.container, data);
  }

  /** Changes fields of a held container's availability. */
  update(container: string, changes: Partial<PovAvailability>): void {
    const current = this.containers.get(container);
    if (!current) throw new Error(`fake Port of Virginia holds no ${container}`);
    this.containers.set(container, { ...current, ...changes });
  }

  /** Bulk requests received. */
  get bulkRequests(): PovRequest[] {
    return this.requests.filter((r) => r.method === "POST" && r.url.pathname === "/import-availability");
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? "GET";
    const headers = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? init.body : "";
    this.requests.push({ method, url, headers, body });
    if (url.origin !== FAKE_POV_BASE) throw new TypeError(`fetch failed: ${url.origin} is not the fake`);
    if (this.mode === "timeout") throw new DOMException("The operation was aborted due to timeout", "TimeoutError");
    const key = headers.get("X-API-KEY") ?? url.searchParams.get("key");
    if (key !== this.apiKey) return json({ message: "Invalid or missing API key." }, 401);
    if (this.mode === "error_500") return json({ message: "An error has occurred." }, 500);
    if (this.mode === "rate_limited") {
      return json({ message: "Too many requests." }, 429, { "Retry-After": String(this.retryAfterS) });
    }
    if (url.pathname === "/import-availability/subscriptions" && method === "POST") return this.subscribe(body);
    if (url.pathname === "/import-availability/subscriptions" && method === "GET") {
      return json([...this.subscriptions.values()], 200);
    }
    const sub = /^\/import-availability\/subscriptions\/([^/]+)$/.exec(url.pathname);
    if (sub && method === "DELETE") {
      const id = decodeURIComponent(sub[1] ?? "");
      if (!this.subscriptions.delete(id)) return json({ message: "Subscription not found." }, 404);
      return new Response(null, { status: 204 });
    }
    if (url.pathname !== "/import-availability") return json({ message: "Not found." }, 404);
    if (method === "GET") return this.getOne(url);
    if (method === "POST") return this.getBulk(headers, body);
    return json({ message: "Method not allowed." }, 405);
  };

  /**
   * `POST /import-availability/subscriptions`: `{equipmentId, referenceId, callbackUrl}` (the body is not documented:
   * the lookup pair plus the sibling Event Subscription API's `callbackUrl`), for a pair the port holds, with an https
   * callback (http on localhost only) → the subscription object with a `subscriptionID` (uuid).
   */
  private subscribe(body: string): Response {
    let item: unknown;
    try {
      item = JSON.parse(body);
    } catch {
      return json({ message: "The request body is not valid JSON." }, 400);
    }
    const { equipmentId, referenceId, callbackUrl } = (item ?? {}) as Record<string, unknown>;
    if (typeof equipmentId !== "string" || typeof referenceId !== "string" || typeof callbackUrl !== "string") {
      return json({ message: "equipmentId, referenceId and callbackUrl are required." }, 400);
    }
    let callback: URL;
    try {
      callback = new URL(callbackUrl);
    } catch {
      return json({ message: "callbackUrl is not a URL." }, 400);
    }
    const local = callback.hostname === "localhost" || callback.hostname === "127.0.0.1";
    if (callback.protocol !== "https:" && !(callback.protocol === "http:" && local)) {
      return json({ message: "callbackUrl must be https." }, 400);
    }
    if (!this.lookup(equipmentId, referenceId)) return json({ message: notFoundMessage }, 400);
    const subscription: PovSubscription = {
      subscriptionID: crypto.randomUUID(),
      equipmentId: equipmentId.trim().toUpperCase(),
      referenceId: referenceId.trim().toUpperCase(),
      callbackUrl,
    };
    this.subscriptions.set(subscription.subscriptionID, subscription);
    return json(subscription, 201);
  }

  /**
   * Pushes a container's current availability to every subscription of it, through `deliver` (e.g. the Worker's own
   * fetch), as the port does when its availability status changes. The payload (the import availability object) is
   * not documented: assumed. Returns the callback responses' statuses.
   */
  async push(container: string, deliver: typeof fetch): Promise<number[]> {
    const data = this.containers.get(container);
    const statuses: number[] = [];
    for (const s of this.subscriptions.values()) {
      if (s.equipmentId !== container || !data) continue;
      const response = await deliver(s.callbackUrl, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(data),
      });
      statuses.push(response.status);
      await response.body?.cancel();
    }
    return statuses;
  }

  private getOne(url: URL): Response {
    const equipmentId = url.searchParams.get("equipmentId");
    const referenceId = url.searchParams.get("referenceId");
    if (!equipmentId || !referenceId) return json({ message: "equipmentId and referenceId are required." }, 400);
    const found = this.lookup(equipmentId, referenceId);
    if (!found) return json({ message: notFoundMessage }, 404);
    return this.answer(found);
  }

  private getBulk(headers: Headers, body: string): Response {
    if (!headers.get("Content-Type")?.toLowerCase().startsWith("application/json")) {
      return json({ message: "Unsupported media type." }, 415);
    }
    let items: unknown;
    try {
      items = JSON.parse(body);
    } catch {
      return json({ message: "The request body is not valid JSON." }, 400);
    }
    if (!Array.isArray(items)) return json({ message: "The request body must be a list." }, 400);
    if (items.length > FAKE_POV_BULK_LIMIT) {
      return json({ message: `A request may contain at most ${FAKE_POV_BULK_LIMIT} objects.` }, 400);
    }
    const wrappers: unknown[] = [];
    for (const item of items) {
      const { equipmentId, referenceId } = (item ?? {}) as { equipmentId?: unknown; referenceId?: unknown };
      if (typeof equipmentId !== "string" || typeof referenceId !== "string" || !equipmentId || !referenceId) {
        return json({ message: "Each object must contain equipmentId and referenceId." }, 400);
      }
      const found = this.lookup(equipmentId, referenceId);
      wrappers.push({ equipmentId, referenceId, data: found ?? null, message: found ? null : notFoundMessage });
    }
    return this.answer(wrappers);
  }

  private lookup(equipmentId: string, referenceId: string): PovAvailability | null {
    const found = this.containers.get(equipmentId.trim().toUpperCase());
    return found && found.billOfLading === referenceId.trim().toUpperCase() ? found : null;
  }

  private answer(payload: unknown): Response {
    if (this.mode === "malformed_json") {
      return new Response('[{"equipmentId": "GLDU', { headers: { "Content-Type": "application/json" } });
    }
    if (this.mode === "not_a_list") return json({ result: payload }, 200);
    return json(payload, 200);
  }
}

const notFoundMessage = "No import availability found for this container and bill of lading.";

function json(body: unknown, status: number, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}
