/**
 * Configuration of the DCSA carrier source: the `DCSA_SOURCES` Worker secret parsed into one endpoint per SCAC
 * ({@link parseDcsaSources}), and the limits of one lookup.
 */
import { z } from "zod";
import { headerRecordSchema, isCredentialUrl, type SourceAuth, sourceAuthSchema, type TokenBroker } from "../auth";

/** One carrier's DCSA endpoint, as configured in `DCSA_SOURCES`. */
export interface DcsaSourceConfig {
  /** Base URL without trailing slash; `/v2/events` is appended. https (http only for localhost / 127.0.0.1). */
  baseUrl: string;
  /**
   * How requests are authorised (src/tracking/sources/auth.ts): static headers (the older top-level `headers` form
   * reads as `{"type":"headers"}`), an API key, or OAuth 2.0 client credentials. Secret: never logged.
   */
  auth: SourceAuth;
  /**
   * `subscriptions: true`: the carrier offers TNT 2.2 event subscriptions, used besides polling (issue 13 §4): a
   * subscription per tracked reference, created after the first successful lookup and deleted when tracking stops
   * (src/callbacks/lifecycle.ts), needs `PUBLIC_BASE_URL` and `UPSTREAM_SUBSCRIPTION_KEY` too.
   */
  subscriptions: boolean;
}

/** Limits of one lookup; the defaults suit production, tests shorten them. */
export interface DcsaSourceOptions {
  /** Most pages fetched for one lookup (default 50); a server still paging after that is treated as broken. */
  maxPages?: number;
  /** Timeout of each page request, in milliseconds (default 15 000). */
  timeoutMs?: number;
  /** `limit` query parameter, events per page (default 100). */
  pageSize?: number;
  /**
   * OAuth token broker shared by the lookups (src/tracking/sources/auth.ts); default: a per-isolate broker of this
   * source. `sourcesFor` passes the one backed by the `Credentials` Durable Object.
   */
  tokens?: TokenBroker;
}

/**
 * Value of the `API-Version` request header. TNT 2.2 (`components/parameters/Api-Version-Major`): "if added it
 * MUST only contain MAJOR version" and be aligned with the URI version (`/v2`), so `2`, not `2.2.0`.
 */
export const DCSA_API_VERSION = "2";
/** Default page cap of a lookup. */
export const DCSA_MAX_PAGES = 50;
/** Default per-request timeout, in milliseconds. */
export const DCSA_TIMEOUT_MS = 15_000;
/** Default `limit` (the spec's own default). */
export const DCSA_PAGE_SIZE = 100;

const sourceConfigSchema = z
  .strictObject({
    baseUrl: z
      .string()
      .refine(
        (v) => isCredentialUrl(v),
        "must be an https URL without credentials, query or fragment (http only for localhost)",
      ),
    headers: headerRecordSchema.optional(),
    auth: sourceAuthSchema.optional(),
    subscriptions: z.boolean().default(false),
  })
  .refine((c) => !(c.headers && c.auth), "give either headers or auth, not both");

/**
 * Parses the `DCSA_SOURCES` secret: a JSON object keyed by SCAC, each entry `{"baseUrl":"https://…","auth":{…},
 * "subscriptions"?:boolean}` with `auth` one of `{"type":"headers","headers":{…}}`,
 * `{"type":"api_key","apiKey":"…","header"?:"X-API-KEY"}` or `{"type":"oauth2_client_credentials","tokenUrl":"https://…",
 * "clientId":"…","clientSecret":"…","scope"?:"…","extraHeaders"?:{…},"clientAuth"?:"body"|"basic"}` (issue 13 §3,
 * src/tracking/sources/auth.ts). The older form `{"baseUrl":"…","headers":{…}}` still works (static headers); no
 * `auth` and no `headers` means no credentials. SCACs are upper-cased; base URLs lose any trailing slash. An invalid
 * entry (not 2–4 letters, base URL not https — http is allowed only for localhost and 127.0.0.1 —, an unknown key,
 * a bad `auth`, both `headers` and `auth`) is skipped with a `console.warn` naming the SCAC and the fields at fault
 * (never a value). Never throws: unset, blank or malformed JSON configures nothing.
 */
export function parseDcsaSources(json: string | undefined): Map<string, DcsaSourceConfig> {
  const configs = new Map<string, DcsaSourceConfig>();
  if (json === undefined || json.trim() === "") return configs;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    console.warn("DCSA_SOURCES is not valid JSON; no DCSA source is configured");
    return configs;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    console.warn("DCSA_SOURCES must be a JSON object keyed by SCAC; no DCSA source is configured");
    return configs;
  }
  for (const [key, value] of Object.entries(parsed)) {
    const scac = key.trim().toUpperCase();
    if (!/^[A-Z]{2,4}$/.test(scac)) {
      console.warn(`DCSA_SOURCES: skipping "${key}": a SCAC is 2 to 4 letters`);
      continue;
    }
    const result = sourceConfigSchema.safeParse(value);
    if (!result.success) {
      const problems = result.error.issues.map((i) => `${i.path.join(".") || "(entry)"}: ${i.message}`).join("; ");
      console.warn(`DCSA_SOURCES: skipping ${scac}: ${problems}`);
      continue;
    }
    const { baseUrl, headers, auth, subscriptions } = result.data;
    configs.set(scac, {
      baseUrl: baseUrl.replace(/\/+$/, ""),
      auth: auth ?? { type: "headers", headers: headers ?? {} },
      subscriptions,
    });
  }
  return configs;
}
