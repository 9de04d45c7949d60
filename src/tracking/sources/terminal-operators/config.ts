import type { SourceAuth, TokenBroker } from "../auth";

/**
 * The terminal operators' APIs we have adapters for (issue 14; docs/terminals.md §APM Terminals, §LBCT,
 * §Port of Virginia), as keys of the `TERMINAL_SOURCES` Worker secret.
 */
export type TerminalProvider = "apmt" | "lbct" | "port_of_virginia";

/**
 * One provider's entry of `TERMINAL_SOURCES` (a Worker secret, JSON keyed by {@link TerminalProvider}), parsed:
 * where its API is, our credentials in the same `auth` forms as `DCSA_SOURCES` (src/tracking/sources/auth.ts), and
 * which of our terminals it serves: our facility code (CBP FIRMS code, e.g. `W185`; else BIC facility code; else,
 * outside the US, `<port UN/LOCODE>:<SMDG code>`, e.g. `NLRTM:NLMVII`: src/reference/locations.ts `facilityCodeOf`) →
 * the provider's facility code (APMT: the port's UN/LOCODE `USLAX`, `NLRTM`; LBCT: its own; Port of Virginia: its
 * terminal code).
 */
export interface TerminalProviderConfig {
  /** https base URL of the provider's API (http only on localhost / 127.0.0.1, for local fakes). */
  baseUrl: string;
  /** Credentials; null when the provider needs none. */
  auth: SourceAuth | null;
  /** Our facility code → the provider's facility code. */
  facilities: Record<string, string>;
  /** Use the provider's push subscriptions where it has them (Port of Virginia), polling kept as the safety net. */
  subscriptions?: boolean;
}

/** What an adapter gets besides its configuration: the shared OAuth token broker (one token cache for carriers and terminals). */
export interface TerminalSourceDeps {
  tokens?: TokenBroker;
}
