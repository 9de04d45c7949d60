/**
 * The terminal operators' APIs as sources (issue 14): the `TERMINAL_SOURCES` Worker secret, parsed
 * ({@link parseTerminalSources}), and the adapters it configures, each wrapped so the engine's rules hold whatever
 * the adapter does ({@link createConfiguredTerminalSources}): a source serves exactly the facilities configured for
 * it (by our facility code, however the carrier spelt it), and every request to a provider goes through that
 * provider's backoff (src/tracking/sources/terminal-operators/backoff.ts).
 */
import { z } from "zod";
import { facilityCodeOf, findTerminalByCode, lookupFacilityKey } from "../../../reference/locations";
import { isCredentialUrl, sourceAuthSchema } from "../auth";
import type { SourceContext, TerminalQuery, TerminalSource } from "../types";
import { createApmtSource } from "./apmt";
import { isolateBackoffStore, type ProviderBackoffStore, providerBackoffFetch } from "./backoff";
import type { TerminalProvider, TerminalProviderConfig, TerminalSourceDeps } from "./config";
import { createLbctSource } from "./lbct";
import { createPortOfVirginiaSource } from "./port-of-virginia";

export type { TerminalProvider, TerminalProviderConfig, TerminalSourceDeps } from "./config";

/**
 * The keys `TERMINAL_SOURCES` accepts, in the order the registry prefers them (docs/terminals.md §APM Terminals, §LBCT,
 * §Port of Virginia).
 */
export const TERMINAL_PROVIDERS: readonly TerminalProvider[] = ["apmt", "lbct", "port_of_virginia"];

/** Human names of the providers, for logs, the start banner and the docs. */
export const TERMINAL_PROVIDER_NAMES: Readonly<Record<TerminalProvider, string>> = {
  apmt: "APM Terminals Import Availability",
  lbct: "LBCT Cargo Search",
  port_of_virginia: "Port of Virginia Import Availability",
};

/** Builds a provider's adapter from its configuration (each adapter file exports one). */
export type TerminalSourceFactory = (config: TerminalProviderConfig, deps: TerminalSourceDeps) => TerminalSource;

/**
 * The adapters there are, by provider. A provider configured in `TERMINAL_SOURCES` without an adapter here is
 * reported and skipped.
 */
export const TERMINAL_SOURCE_FACTORIES: Partial<Record<TerminalProvider, TerminalSourceFactory>> = {
  apmt: createApmtSource,
  lbct: createLbctSource,
  port_of_virginia: createPortOfVirginiaSource,
};

/** Most candidate codes an ambiguous facility key's log line lists. */
const MAX_CANDIDATES_SHOWN = 8;

/** Longest provider facility code accepted (APMT's are UN/LOCODEs, LBCT's and Port of Virginia's a few letters). */
const MAX_PROVIDER_FACILITY_LENGTH = 32;

const providerConfigSchema = z.strictObject({
  baseUrl: z
    .string()
    .refine(
      (v) => isCredentialUrl(v),
      "must be an https URL without credentials, query or fragment (http only for localhost)",
    ),
  auth: sourceAuthSchema.nullable().default(null),
  facilities: z
    .record(
      z.string().trim().min(1, "a facility code must not be empty"),
      z.string().trim().min(1, "must not be empty").max(MAX_PROVIDER_FACILITY_LENGTH, "too long"),
    )
    .refine(
      (f) => Object.keys(f).length > 0,
      "name at least one of our terminals (FIRMS code, or UN/LOCODE:SMDG code → provider facility)",
    ),
  subscriptions: z.boolean().default(false),
});

/**
 * Our facility code for `code` as the engine compares them (src/reference/locations.ts `facilityCodeOf`): the
 * terminal's FIRMS code when the reference data knows the code (as FIRMS or BIC facility code, or port-qualified
 * `USLAX:APMT`), else its BIC code, else its port-qualified SMDG code (`NLRTM:NLMVII`, a terminal outside the US);
 * null for a code the reference data does not know, and for a bare SMDG code (`NLMVII`: unique only within its port).
 */
export function ourFacilityCode(code: string): string | null {
  const terminal = findTerminalByCode(code);
  return terminal ? facilityCodeOf(terminal) : null;
}

/**
 * Parses the `TERMINAL_SOURCES` secret (issue 14 "Engine"): a JSON object keyed by provider (`apmt`, `lbct`,
 * `port_of_virginia`), each entry
 * `{"baseUrl":"https://…","auth":{…}|null,"facilities":{"<our facility code>":"<provider facility>",…},"subscriptions"?:boolean}`.
 * `auth` takes the forms of `DCSA_SOURCES` (src/tracking/sources/auth.ts `sourceAuthSchema`):
 * `{"type":"oauth2_client_credentials","tokenUrl","clientId","clientSecret",…}` (APMT), `{"type":"headers","headers":{…}}`,
 * or `{"type":"api_key","apiKey":"…"}` (LBCT puts the key in its URL path; `header` applies to providers that want it
 * in a header); absent or null: no credentials. Base URLs lose any trailing slash.
 *
 * Facility keys are our terminals' codes, resolved against the reference terminals (src/reference/locations.ts
 * `lookupFacilityKey`): a FIRMS or BIC facility code (`W185`), or for a terminal with neither (most outside the US) its
 * port-qualified SMDG code `<port UN/LOCODE>:<SMDG code>` (`"NLRTM:NLMVII": "NLRTM"`, APM Terminals Maasvlakte II),
 * case-insensitive; each kept as our code of the terminal (FIRMS, else BIC, else `UN/LOCODE:SMDG`; `USLAX:APMT` is
 * kept as `W185`). A key the reference data does not know, and an ambiguous one (a bare SMDG code such as `APMT`, which
 * names a different terminal at each port; a nickname two terminals of the port share), is reported with the keys it
 * may mean and left out, the provider's other facilities still configured. An invalid entry (unknown provider, base URL not https — http only
 * for localhost and 127.0.0.1 —, an unknown key, a bad `auth`, no facility) is skipped with a `console.warn` naming
 * the provider and the fields at fault, never a value (no URL, key, secret or header value). Never throws: unset,
 * blank or malformed JSON configures nothing.
 * @returns the valid entries by provider, in {@link TERMINAL_PROVIDERS} order.
 */
export function parseTerminalSources(json: string | undefined): Map<TerminalProvider, TerminalProviderConfig> {
  const configs = new Map<TerminalProvider, TerminalProviderConfig>();
  if (json === undefined || json.trim() === "") return configs;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    console.warn("TERMINAL_SOURCES is not valid JSON; no terminal source is configured");
    return configs;
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    console.warn("TERMINAL_SOURCES must be a JSON object keyed by provider; no terminal source is configured");
    return configs;
  }
  const entries = parsed as Record<string, unknown>;
  for (const key of Object.keys(entries)) {
    if (!(TERMINAL_PROVIDERS as readonly string[]).includes(key)) {
      // The key is the operator's own text; it is not a secret but may be long: shortened.
      console.warn(
        `TERMINAL_SOURCES: skipping "${key.slice(0, 40)}": the providers are ${TERMINAL_PROVIDERS.join(", ")}`,
      );
    }
  }
  for (const provider of TERMINAL_PROVIDERS) {
    if (!Object.hasOwn(entries, provider)) continue;
    const result = providerConfigSchema.safeParse(entries[provider]);
    if (!result.success) {
      const problems = result.error.issues.map((i) => `${i.path.join(".") || "(entry)"}: ${i.message}`).join("; ");
      console.warn(`TERMINAL_SOURCES: skipping ${provider}: ${problems}`);
      continue;
    }
    const { baseUrl, auth, facilities, subscriptions } = result.data;
    const ours: Record<string, string> = {};
    const unknown: string[] = [];
    const ambiguous: string[] = [];
    for (const [code, providerFacility] of Object.entries(facilities)) {
      const found = lookupFacilityKey(code);
      if (found.kind === "found") ours[found.facilityCode] = providerFacility;
      else if (found.kind === "unknown") unknown.push(code.slice(0, 20));
      else {
        const shown = found.candidates.slice(0, MAX_CANDIDATES_SHOWN).join(", ");
        const more = found.candidates.length > MAX_CANDIDATES_SHOWN ? ", …" : "";
        ambiguous.push(`${code.slice(0, 20)} (${shown}${more})`);
      }
    }
    if (unknown.length > 0) {
      console.warn(
        `TERMINAL_SOURCES: ${provider}: leaving out facility codes our reference terminals do not know (FIRMS or BIC facility codes, or UN/LOCODE:SMDG code such as NLRTM:NLMVII, expected): ${unknown.join(", ")}`,
      );
    }
    if (ambiguous.length > 0) {
      console.warn(
        `TERMINAL_SOURCES: ${provider}: leaving out ambiguous facility codes (an SMDG code names a terminal only within its port: write UN/LOCODE:SMDG code, or the FIRMS code); each with the codes it may mean: ${ambiguous.join("; ")}`,
      );
    }
    if (Object.keys(ours).length === 0) {
      console.warn(`TERMINAL_SOURCES: skipping ${provider}: none of its facilities is one of our terminals`);
      continue;
    }
    configs.set(provider, { baseUrl: baseUrl.replace(/\/+$/, ""), auth, facilities: ours, subscriptions });
  }
  return configs;
}

/** One configured provider's source, as the registry holds it. */
export interface ConfiguredTerminalSource {
  provider: TerminalProvider;
  config: TerminalProviderConfig;
  source: TerminalSource;
}

/**
 * The terminal sources `configs` configures, in {@link TERMINAL_PROVIDERS} order, each the provider's adapter
 * (`factories`, default {@link TERMINAL_SOURCE_FACTORIES}) wrapped so that:
 * - it serves exactly its configured facilities, for every line (`supports` compares our facility code, so a
 *   carrier's BIC code finds a terminal configured by FIRMS code), and a query reaches the adapter with the
 *   configured key as `facilityCode`;
 * - every request it makes goes through its provider's backoff in `backoffs` (`providerBackoffFetch`): after a 429
 *   or a 5xx the provider is not called again until the backoff ends (by every isolate, with the store of
 *   `ProviderGate` objects the registry passes in production; by this isolate with the default).
 * A provider without an adapter is reported once and skipped.
 */
export function createConfiguredTerminalSources(
  configs: ReadonlyMap<TerminalProvider, TerminalProviderConfig>,
  deps: TerminalSourceDeps,
  factories: Partial<Record<TerminalProvider, TerminalSourceFactory>> = TERMINAL_SOURCE_FACTORIES,
  backoffs: ProviderBackoffStore = isolateBackoffStore,
): ConfiguredTerminalSource[] {
  const out: ConfiguredTerminalSource[] = [];
  for (const provider of TERMINAL_PROVIDERS) {
    const config = configs.get(provider);
    if (!config) continue;
    const factory = factories[provider];
    if (!factory) {
      console.warn(`TERMINAL_SOURCES: ${provider} is configured but this build has no adapter for it; skipped`);
      continue;
    }
    out.push({ provider, config, source: guardedSource(provider, config, factory(config, deps), backoffs) });
  }
  return out;
}

function guardedSource(
  provider: TerminalProvider,
  config: TerminalProviderConfig,
  adapter: TerminalSource,
  backoffs: ProviderBackoffStore,
): TerminalSource {
  const configured = (code: string): string | null => {
    if (Object.hasOwn(config.facilities, code)) return code;
    const canonical = ourFacilityCode(code);
    return canonical && Object.hasOwn(config.facilities, canonical) ? canonical : null;
  };
  const withFacility = (query: TerminalQuery): TerminalQuery => ({
    ...query,
    facilityCode: configured(query.facilityCode) ?? query.facilityCode,
  });
  const guardedCtx = (ctx: SourceContext): SourceContext => ({
    ...ctx,
    fetch: providerBackoffFetch(provider, ctx.fetch, ctx.nowMs, backoffs),
  });
  const source: TerminalSource = {
    name: adapter.name,
    supports: (facilityCode) => configured(facilityCode) !== null,
    poll: (query, ctx) => adapter.poll(withFacility(query), guardedCtx(ctx)),
    ...(adapter.maxBatchSize !== undefined ? { maxBatchSize: adapter.maxBatchSize } : {}),
  };
  const pollBatch = adapter.pollBatch?.bind(adapter);
  if (pollBatch) source.pollBatch = (queries, ctx) => pollBatch(queries.map(withFacility), guardedCtx(ctx));
  return source;
}
