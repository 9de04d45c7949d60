// A fake LBCT Cargo Search web service (docs/terminals.md §LBCT), served through an injected fetch.
// It parses requests the way the terminal does: the per-customer API key is the first path segment (an unknown or
// revoked key answers 401), container numbers are comma-separated after `cargo-numbers/` (more than 20 answers 400),
// and the answer is the Navis-style envelope of §LBCT response (`id`, `service`, `payload.search-results`,
// `payload.orders`, `payload.containers`). Units carry the documented fields plus the unconfirmed ones the adapter
// reads when present (src/tracking/sources/terminal-operators/lbct.ts: `available`, `free-time-expiration`, `location`,
// `owed`, `list-of-flag`). Every request is recorded; the terminal can be made to fail, throttle, time out or answer
// garbage.

/** Where the fake lives (never resolved: requests go to the injected fetch). */
export const FAKE_LBCT_BASE = "https://api.lbct.test";
/** The key the fake accepts (its value must never appear in a log line). */
export const FAKE_LBCT_KEY = "lbct-key-5f2a-DO-NOT-LOG";
/** Most numbers per request (Envase's documented limit, docs/terminals.md §LBCT API). */
export const FAKE_LBCT_LIMIT = 20;

/** How the next requests are answered. */
export type LbctMode = "ok" | "error_500" | "throttled" | "timeout" | "malformed_json" | "html" | "no_payload";

/** One recorded request. */
export interface LbctRequest {
  method: string;
  url: URL;
  /** Path segment 1: the API key as sent. */
  key: string;
  /** Numbers asked for, as sent (split on commas). */
  numbers: string[];
}

/** One unit visit, as `payload.containers[]` carries it (kebab-case, docs/terminals.md §LBCT response). */
export type LbctUnit = Record<string, unknown> & { id: string };

let gkey = 5459903117;

/**
 * A unit visit of an import box with the documented fields set (the sample's first container, §LBCT response, before
 * departure) and `overrides` applied; `null` in `overrides` removes a field.
 */
export function lbctImportUnit(id: string, overrides: Record<string, unknown> = {}): LbctUnit {
  gkey += 3;
  const unit: LbctUnit = {
    id,
    gkey,
    "ufv-gkey": gkey + 3,
    "is-in-yard": false,
    category: "IMPRT",
    "freight-kind": "Full",
    "visit-state": "Advised",
    "transit-state": "Inbound",
    "time-in": null,
    "time-out": null,
    "equipment-height": 96,
    "equipment-type": "40HQ",
    "equipment-size": 40,
    "line-operator": "OOL",
    "bill-of-lading-number": "2127609670",
    "gross-weight": 13300.0,
    watch: "false",
  };
  for (const [k, v] of Object.entries(overrides)) {
    if (v === null) delete unit[k];
    else unit[k] = v;
  }
  return unit;
}

/** The fake terminal: its fetch, what it was asked, and knobs. */
export class FakeLbct {
  readonly requests: LbctRequest[] = [];
  /** Unit visits per container number (several visits of one number are all answered, as N4 does). */
  readonly units = new Map<string, LbctUnit[]>();
  mode: LbctMode = "ok";
  /** `Retry-After` (seconds) of a throttled answer. */
  retryAfterS = 30;
  private readonly keys = new Set<string>([FAKE_LBCT_KEY]);

  /** Sets the only visit of `unit.id`. */
  put(unit: LbctUnit): void {
    this.units.set(unit.id, [unit]);
  }

  /** Changes fields of the latest visit of `id` (`null` removes a field). */
  update(id: string, fields: Record<string, unknown>): void {
    const visits = this.units.get(id);
    const unit = visits?.[visits.length - 1];
    if (!unit) throw new Error(`fake LBCT: no unit ${id}`);
    for (const [k, v] of Object.entries(fields)) {
      if (v === null) delete unit[k];
      else unit[k] = v;
    }
  }

  /** Revokes the key: every request with it answers 401 (a key withdrawn at portal.lbct.com). */
  revokeKey(key: string = FAKE_LBCT_KEY): void {
    this.keys.delete(key);
  }

  /** Issues another key (a key rotation at portal.lbct.com: the new key works alongside or instead of the old). */
  issueKey(key: string): void {
    this.keys.add(key);
  }

  /** Search requests received. */
  get searches(): LbctRequest[] {
    return this.requests.filter((r) => r.url.pathname.includes("/API/LBCTCargoSearchWebService/cargo-numbers/"));
  }

  readonly fetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = init?.method ?? "GET";
    if (url.origin !== FAKE_LBCT_BASE) return new Response("no such host", { status: 502 });
    const segments = url.pathname.split("/").slice(1);
    const key = decodeURIComponent(segments[0] ?? "");
    const rest = segments.slice(1).join("/");
    const prefix = "API/LBCTCargoSearchWebService/cargo-numbers/";
    const numbers = rest.startsWith(prefix)
      ? decodeURIComponent(rest.slice(prefix.length))
          .split(",")
          .map((n) => n.trim())
          .filter((n) => n !== "")
      : [];
    this.requests.push({ method, url, key, numbers });
    if (!this.keys.has(key)) return json({ error: "Unauthorized", message: "Invalid API key" }, 401);
    if (method !== "GET") return json({ error: "Method Not Allowed" }, 405);
    if (!rest.startsWith(prefix)) return json({ error: "Not Found" }, 404);
    if (numbers.length === 0) return json({ error: "Bad Request", message: "No cargo numbers" }, 400);
    if (numbers.length > FAKE_LBCT_LIMIT) {
      return json({ error: "Bad Request", message: `At most ${FAKE_LBCT_LIMIT} cargo numbers per request` }, 400);
    }
    switch (this.mode) {
      case "error_500":
        return json({ error: "Internal Server Error" }, 500);
      case "throttled":
        return json({ error: "Too Many Requests" }, 429, { "Retry-After": String(this.retryAfterS) });
      case "timeout":
        return new Promise((_resolve, reject) => {
          const signal = init?.signal;
          signal?.addEventListener("abort", () => reject(signal.reason));
        });
      case "malformed_json":
        return new Response('{"id": 1, "payload": {"containers": [{"id": "tru', {
          status: 200,
          headers: { "Content-Type": "application/json" },
        });
      case "html":
        return new Response("<html><body>LBCT portal maintenance</body></html>", {
          status: 200,
          headers: { "Content-Type": "text/html" },
        });
      case "no_payload":
        return json({ id: 1, service: "com.lbct.plugins.webservices.LBCTCargoSearchWebService" });
      default:
        return json(this.answer(numbers));
    }
  };

  private answer(numbers: string[]) {
    const containers: LbctUnit[] = [];
    const notFound: string[] = [];
    for (const n of numbers) {
      const visits = this.units.get(n.toUpperCase());
      if (visits && visits.length > 0) containers.push(...visits.map((u) => structuredClone(u)));
      else notFound.push(n);
    }
    const found = new Set(containers.map((c) => c.id)).size;
    return {
      id: 77033661363153 + this.requests.length,
      service: "com.lbct.plugins.webservices.LBCTCargoSearchWebService",
      payload: {
        "search-results": {
          requested: numbers.length,
          "found-containers": found,
          "found-orders": 0,
          "not-found": notFound.length,
          "not-found-numbers": notFound,
        },
        orders: [],
        containers,
      },
    };
  }
}

function json(body: unknown, status = 200, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** `TERMINAL_SOURCES` entry for LBCT served by the fake, for our facilities Pier E (`WAC8`) and Pier F (`W183`). */
export function lbctSourcesJson(apiKey: string = FAKE_LBCT_KEY): string {
  return JSON.stringify({
    lbct: { baseUrl: FAKE_LBCT_BASE, auth: { type: "api_key", apiKey }, facilities: { WAC8: "LBCT", W183: "LBCT" } },
  });
}
