import { SANDBOX_SCAC } from "../../reference/shipping-lines";
import { recordSimulatedPositions } from "../simulator/vessel-positions";
import { tokenBrokerFor } from "./credentials";
import { createDcsaSource, parseDcsaSources } from "./dcsa";
import { createSandboxSource, createSandboxTerminalSource, SANDBOX_LIFECYCLE_CONTAINER_NUMBERS } from "./sandbox";
import { createSimulatorSource, parseSimulationSpeed, SIMULATED_SCACS } from "./simulator";
import {
  createConfiguredTerminalSources,
  ourFacilityCode,
  parseTerminalSources,
  type TerminalProvider,
} from "./terminal-operators";
import { isolateBackoffStore } from "./terminal-operators/backoff";
import { sharedBackoffStore } from "./terminal-operators/provider-gate";
import type { CarrierSource, TerminalSource } from "./types";

/** Which of our carrier sources serves a line here: the sandbox (`TEST`), a DCSA Track & Trace API, the simulator. */
export type LineSourceKind = "sandbox" | "dcsa" | "simulator";

/** The sources configured for an environment, and what they make "supported". */
export interface SourceRegistry {
  /** Carrier sources, in order of preference (the first that supports a SCAC handles it). */
  carriers: CarrierSource[];
  /** Terminal sources, in order of preference. */
  terminals: TerminalSource[];
  /**
   * SCACs tracking requests are accepted for: a line is supported when a source is configured for it
   * (docs/decisions.md §Tracking requests): the sandbox `TEST` always, DCSA-configured lines, and every line the
   * simulator plays when it is on.
   */
  supportedScacs: Set<string>;
  /**
   * How much faster than real time a box's world moves: simulated days per real minute × 1440 for boxes the
   * simulator plays (and the sandbox's TEST-LIFECYCLE boxes), 1 for real carriers. Poll intervals divide by it.
   */
  speedUpFor(scac: string, containerNumber: string): number;
  /** The same for a line's lookups (the sandbox and simulated lines re-check a manifest on their clock). */
  lookupSpeedUpFor(scac: string): number;
  /**
   * Which source serves `scac` here (DCSA lines win over the simulator), or null for a line no source serves: what a
   * shipping line's `provided_data` reports (src/shipping-lines/provided-data.ts).
   */
  lineSourceKind(scac: string): LineSourceKind | null;
  /**
   * The terminal operator's API configured in `TERMINAL_SOURCES` for a facility (any of our codes: FIRMS, BIC,
   * port-qualified `UN/LOCODE:code` such as `NLRTM:NLMVII`; src/reference/locations.ts `findTerminalByCode`), or
   * null when none is: what a terminal's `provided_data` reports for it (src/terminals/provided-data.ts). Absent in
   * hand-built registries (tests): no provider configured.
   */
  terminalProviderFor?(facilityCode: string): TerminalProvider | null;
  /** The provider's own code of a configured facility (`TERMINAL_SOURCES` `facilities` value), or null. */
  providerFacilityFor?(facilityCode: string): string | null;
  /** The providers configured (and with an adapter) here, with the facilities each serves (our codes), in order. */
  terminalProviders?: { provider: TerminalProvider; facilities: string[] }[];
}

let cached: { key: string; registry: SourceRegistry } | null = null;

/**
 * Builds (and caches per configuration) the source registry from the environment: the sandbox always, a
 * DCSA Track & Trace source per SCAC of `DCSA_SOURCES`, the terminal operators' APIs of `TERMINAL_SOURCES` (issue
 * 14), and the journey simulator when `SIMULATOR_ENABLED` is "true" (played at `SIMULATION_SPEED`). Carriers and
 * terminals share one OAuth token broker (through `CREDENTIALS` when bound): one token cache per credential; terminal
 * providers' backoff after 429/5xx goes through `PROVIDER_GATE` when bound (every isolate leaves them alone).
 *
 * Terminal sources in order of preference: the sandbox (`Y257` for `TEST` boxes), the configured providers, then the
 * simulator, which never answers for a facility a provider is configured for (whatever the line).
 */
export function sourcesFor(
  env: Pick<Env, "DCSA_SOURCES" | "SIMULATOR_ENABLED" | "SIMULATION_SPEED"> &
    Partial<Pick<Env, "CREDENTIALS" | "DB" | "PROVIDER_GATE" | "TERMINAL_SOURCES">>,
): SourceRegistry {
  const key = JSON.stringify([
    env.DCSA_SOURCES,
    env.TERMINAL_SOURCES,
    env.SIMULATOR_ENABLED,
    env.SIMULATION_SPEED,
    env.DB !== undefined,
  ]);
  if (cached?.key === key) return cached.registry;
  const speed = parseSimulationSpeed(env.SIMULATION_SPEED);
  const carriers: CarrierSource[] = [createSandboxSource(speed)];
  const terminals: TerminalSource[] = [createSandboxTerminalSource(speed)];
  const supportedScacs = new Set<string>(["TEST"]);
  // OAuth tokens through the Credentials Durable Object when bound: one token request per credential at a time.
  const tokens = tokenBrokerFor(env);
  const dcsa = parseDcsaSources(env.DCSA_SOURCES);
  if (dcsa.size > 0) {
    carriers.push(createDcsaSource(dcsa, { tokens }));
    for (const scac of dcsa.keys()) supportedScacs.add(scac);
  }
  // Terminal providers' backoff through their ProviderGate objects when bound: shared by every isolate.
  const backoffs = env.PROVIDER_GATE ? sharedBackoffStore(env.PROVIDER_GATE) : isolateBackoffStore;
  const configured = createConfiguredTerminalSources(
    parseTerminalSources(env.TERMINAL_SOURCES),
    { tokens },
    undefined,
    backoffs,
  );
  const providerByFacility = new Map<string, { provider: TerminalProvider; providerFacility: string }>();
  for (const { provider, config, source } of configured) {
    terminals.push(source);
    for (const [code, providerFacility] of Object.entries(config.facilities))
      if (!providerByFacility.has(code)) providerByFacility.set(code, { provider, providerFacility });
  }
  const configuredAt = (facilityCode: string) => {
    const code = providerByFacility.has(facilityCode) ? facilityCode : ourFacilityCode(facilityCode);
    return code ? providerByFacility.get(code) : undefined;
  };
  const terminalProviderFor = (facilityCode: string): TerminalProvider | null =>
    configuredAt(facilityCode)?.provider ?? null;
  const providerFacilityFor = (facilityCode: string): string | null =>
    configuredAt(facilityCode)?.providerFacility ?? null;
  const simulated = new Set<string>();
  if (env.SIMULATOR_ENABLED === "true") {
    // Each lookup of a simulated box records where its journey's vessels are then (docs/configuration.md §AIS
    // positions: what works without a key), so the vessel views and the map move locally without an AIS feed.
    const db = env.DB;
    const simulator = createSimulatorSource({
      speed,
      onJourney: db ? (journey, nowMs) => recordSimulatedPositions(db, journey, nowMs) : undefined,
    });
    carriers.push(simulator.carrier);
    const playing = simulator.terminal;
    // A configured terminal is the provider's, never the simulator's (issue 14), even for a simulated line.
    terminals.push({
      name: playing.name,
      supports: (facilityCode, scac) =>
        terminalProviderFor(facilityCode) === null && playing.supports(facilityCode, scac),
      poll: (query, ctx) => playing.poll(query, ctx),
    });
    for (const scac of SIMULATED_SCACS) {
      supportedScacs.add(scac);
      if (!dcsa.has(scac)) simulated.add(scac);
    }
  }
  const simulatedSpeedUp = speed * 1440;
  const speedUpFor = (scac: string, containerNumber: string): number =>
    simulated.has(scac) || (scac === SANDBOX_SCAC && SANDBOX_LIFECYCLE_CONTAINER_NUMBERS.includes(containerNumber))
      ? simulatedSpeedUp
      : 1;
  const lookupSpeedUpFor = (scac: string): number =>
    simulated.has(scac) || scac === SANDBOX_SCAC ? simulatedSpeedUp : 1;
  const lineSourceKind = (scac: string): LineSourceKind | null =>
    scac === SANDBOX_SCAC ? "sandbox" : dcsa.has(scac) ? "dcsa" : simulated.has(scac) ? "simulator" : null;
  const terminalProviders = configured.map(({ provider, config }) => ({
    provider,
    facilities: Object.keys(config.facilities),
  }));
  const registry: SourceRegistry = {
    carriers,
    terminals,
    supportedScacs,
    speedUpFor,
    lookupSpeedUpFor,
    lineSourceKind,
    terminalProviderFor,
    providerFacilityFor,
    terminalProviders,
  };
  cached = { key, registry };
  return registry;
}
