import { afterEach, describe, expect, it, vi } from "vitest";
import {
  NOT_CONNECTED_NOTE,
  providedDataOf,
  providerServiceAt,
  terminalProvidedData,
} from "../../../../src/terminals/provided-data";
import { sourcesFor } from "../../../../src/tracking/sources";
import { SIMULATED_SCACS, simulatedFacilityCodes } from "../../../../src/tracking/sources/simulator";
import { parseTerminalSources } from "../../../../src/tracking/sources/terminal-operators";
import { APMT_PROVIDED_DATA } from "../../../../src/tracking/sources/terminal-operators/apmt-provided-data";
import {
  memoryBackoffStore,
  PROVIDER_BACKOFF_BASE_MS,
  PROVIDER_BACKOFF_MAX_MS,
  ProviderBackoffError,
  type ProviderBackoffs,
  providerBackoffFetch,
} from "../../../../src/tracking/sources/terminal-operators/backoff";
import { LBCT_PROVIDED_DATA, LBCT_PROVIDED_DATA_NOTES } from "../../../../src/tracking/sources/terminal-operators/lbct";
import { PORT_OF_VIRGINIA_PROVIDED_DATA } from "../../../../src/tracking/sources/terminal-operators/port-of-virginia";
import { scriptedUpstream } from "../../../helpers/scripted-fetch";

// Issue 14 "Engine": the TERMINAL_SOURCES secret, the registry it configures (a configured terminal is its provider's,
// never the simulator's), and the per-provider backoff every provider request goes through.

const SECRET = "s3cr3t-DO-NOT-LOG-7f1e";
const KEY = "api-key-DO-NOT-LOG-91c2";

afterEach(() => {
  vi.restoreAllMocks();
});

/** Everything `console.warn` / `console.error` printed while `fn` ran. */
function logged(fn: () => void): string {
  const lines: string[] = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => lines.push(args.map(String).join(" ")));
  vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => lines.push(args.map(String).join(" ")));
  fn();
  return lines.join("\n");
}

describe("parseTerminalSources", () => {
  it("reads each provider's base URL, auth and facilities, keyed by our FIRMS codes", () => {
    const configs = parseTerminalSources(
      JSON.stringify({
        apmt: {
          baseUrl: "https://api.apmterminals.test/v1/",
          auth: {
            type: "oauth2_client_credentials",
            tokenUrl: "https://api.apmterminals.test/oauth/token?grant_type=client_credentials",
            clientId: "client",
            clientSecret: SECRET,
          },
          facilities: { w185: "USLAX", E425: "USNWK" },
        },
        lbct: { baseUrl: "https://lbct.test", auth: { type: "api_key", apiKey: KEY }, facilities: { W185: "LBCT" } },
        port_of_virginia: {
          baseUrl: "http://127.0.0.1:9000",
          auth: { type: "headers", headers: { "X-API-KEY": KEY } },
          facilities: { E425: "NIT" },
          subscriptions: true,
        },
      }),
    );
    expect([...configs.keys()]).toEqual(["apmt", "lbct", "port_of_virginia"]);
    const apmt = configs.get("apmt");
    expect(apmt?.baseUrl).toBe("https://api.apmterminals.test/v1");
    expect(apmt?.facilities).toEqual({ W185: "USLAX", E425: "USNWK" });
    expect(apmt?.auth).toMatchObject({ type: "oauth2_client_credentials", clientSecret: SECRET, clientAuth: "body" });
    expect(apmt?.subscriptions).toBe(false);
    expect(configs.get("lbct")?.auth).toEqual({ type: "api_key", apiKey: KEY, header: "X-API-KEY" });
    expect(configs.get("port_of_virginia")?.subscriptions).toBe(true);
  });

  it("configures nothing for unset, blank, malformed or non-object values, and says why", () => {
    for (const value of [undefined, "", "   "]) expect(parseTerminalSources(value).size).toBe(0);
    expect(logged(() => expect(parseTerminalSources(`{"apmt": {"baseUrl": "${SECRET}"`).size).toBe(0))).toMatch(
      /not valid JSON/,
    );
    expect(logged(() => expect(parseTerminalSources("[]").size).toBe(0))).toMatch(/keyed by provider/);
  });

  it("skips a bad entry with the fields at fault, keeps the good ones, and never prints a value", () => {
    let configs = new Map();
    const out = logged(() => {
      configs = parseTerminalSources(
        JSON.stringify({
          // Misspelt key: must not configure a client without its secret.
          apmt: {
            baseUrl: "https://apmt.test",
            auth: {
              type: "oauth2_client_credentials",
              tokenUrl: "https://apmt.test/token",
              clientId: "c",
              client_secret: SECRET,
            },
            facilities: { W185: "USLAX" },
          },
          // Plain http off localhost: credentials would travel in clear.
          lbct: {
            baseUrl: `http://lbct.test/${KEY}`,
            auth: { type: "api_key", apiKey: KEY },
            facilities: { W185: "X" },
          },
          port_of_virginia: { baseUrl: "https://pov.test", auth: null, facilities: { E425: "NIT" } },
          maersk: { baseUrl: "https://x.test", facilities: {} },
        }),
      );
    });
    expect([...configs.keys()]).toEqual(["port_of_virginia"]);
    expect(out).toMatch(/skipping apmt: auth.*clientSecret|skipping apmt:.*client_secret/);
    expect(out).toMatch(/skipping lbct: baseUrl: must be an https URL/);
    expect(out).toMatch(/skipping "maersk"/);
    expect(out).not.toContain(SECRET);
    expect(out).not.toContain(KEY);
  });

  it("reports facility codes our reference terminals do not know and keeps the known ones", () => {
    let configs = new Map();
    const out = logged(() => {
      configs = parseTerminalSources(
        JSON.stringify({ apmt: { baseUrl: "https://apmt.test", facilities: { W185: "USLAX", ZZ99: "USXXX" } } }),
      );
    });
    expect(configs.get("apmt")?.facilities).toEqual({ W185: "USLAX" });
    expect(configs.get("apmt")?.auth).toBeNull();
    expect(out).toMatch(/apmt: leaving out facility codes our reference terminals do not know.*ZZ99/);
  });

  it("skips a provider none of whose facilities is ours, or with no facility at all", () => {
    let configs = new Map();
    const out = logged(() => {
      configs = parseTerminalSources(
        JSON.stringify({
          apmt: { baseUrl: "https://apmt.test", facilities: { ZZ99: "USXXX" } },
          lbct: { baseUrl: "https://lbct.test", facilities: {} },
        }),
      );
    });
    expect(configs.size).toBe(0);
    expect(out).toMatch(/skipping apmt: none of its facilities/);
    expect(out).toMatch(/skipping lbct: facilities: name at least one/);
  });
});

describe("the registry's terminal sources", () => {
  const [simulatedA, simulatedB] = simulatedFacilityCodes();
  const scac = SIMULATED_SCACS[0] ?? "";
  const lbctAt = (facility: string) =>
    JSON.stringify({
      lbct: {
        baseUrl: "https://lbct.test",
        auth: { type: "api_key", apiKey: KEY },
        facilities: { [facility]: "LBCT" },
      },
    });

  it("a configured terminal is its provider's, never the simulator's; other simulated terminals stay simulated", () => {
    expect(simulatedA && simulatedB).toBeTruthy();
    const registry = sourcesFor({
      SIMULATOR_ENABLED: "true",
      SIMULATION_SPEED: "1",
      DCSA_SOURCES: "",
      TERMINAL_SOURCES: lbctAt(simulatedA ?? ""),
    });
    const servingA = registry.terminals.filter((t) => t.supports(simulatedA ?? "", scac));
    expect(servingA).toHaveLength(1);
    expect(registry.terminalProviderFor?.(simulatedA ?? "")).toBe("lbct");
    expect(servingA[0]?.maxBatchSize).toBe(20);
    expect(registry.terminalProviderFor?.(simulatedB ?? "")).toBeNull();
    expect(registry.terminals.filter((t) => t.supports(simulatedB ?? "", scac))).toHaveLength(1);
    expect(registry.terminalProviders).toEqual([{ provider: "lbct", facilities: [simulatedA] }]);
  });

  it("with the simulator off, only configured terminals have a source (and the sandbox's own)", () => {
    const registry = sourcesFor({
      SIMULATOR_ENABLED: "false",
      DCSA_SOURCES: "",
      SIMULATION_SPEED: "",
      TERMINAL_SOURCES: lbctAt(simulatedA ?? ""),
    });
    expect(registry.terminals.some((t) => t.supports(simulatedA ?? "", "MAEU"))).toBe(true);
    expect(registry.terminals.some((t) => t.supports(simulatedB ?? "", "MAEU"))).toBe(false);
    expect(registry.terminals.some((t) => t.supports("Y257", "TEST"))).toBe(true);
  });

  it("is rebuilt when TERMINAL_SOURCES changes", () => {
    const base = { SIMULATOR_ENABLED: "false", DCSA_SOURCES: "", SIMULATION_SPEED: "" };
    const one = sourcesFor({ ...base, TERMINAL_SOURCES: lbctAt(simulatedA ?? "") });
    const two = sourcesFor({ ...base, TERMINAL_SOURCES: lbctAt(simulatedB ?? "") });
    expect(two).not.toBe(one);
    expect(two.terminalProviderFor?.(simulatedA ?? "")).toBeNull();
    expect(two.terminalProviderFor?.(simulatedB ?? "")).toBe("lbct");
  });
});

describe("providerBackoffFetch", () => {
  it("after a 429 with Retry-After sends nothing until it passes, then calls again", async () => {
    const backoffs: ProviderBackoffs = new Map();
    const u = scriptedUpstream([429, { "Retry-After": "30" }], 200);
    const at = (ms: number) => providerBackoffFetch("lbct", u.fetch, ms, memoryBackoffStore(backoffs));
    expect((await at(0)("https://x.test/a")).status).toBe(429);
    await expect(at(29_999)("https://x.test/b")).rejects.toBeInstanceOf(ProviderBackoffError);
    expect(u.calls).toHaveLength(1);
    expect((await at(30_000)("https://x.test/c")).status).toBe(200);
    expect(u.calls).toHaveLength(2);
    expect(backoffs.has("lbct")).toBe(false);
  });

  it("backs off 5xx and network errors exponentially, capped, and per provider", async () => {
    const backoffs: ProviderBackoffs = new Map();
    const u = scriptedUpstream(503, 500);
    let now = 0;
    const call = () => providerBackoffFetch("apmt", u.fetch, now, memoryBackoffStore(backoffs))("https://x.test");
    expect((await call()).status).toBe(503);
    expect(backoffs.get("apmt")?.untilMs).toBe(PROVIDER_BACKOFF_BASE_MS);
    now = PROVIDER_BACKOFF_BASE_MS;
    expect((await call()).status).toBe(500);
    expect(backoffs.get("apmt")?.untilMs).toBe(now + 2 * PROVIDER_BACKOFF_BASE_MS);
    // Another provider is not held back.
    const other = scriptedUpstream(200);
    expect(
      (await providerBackoffFetch("lbct", other.fetch, now, memoryBackoffStore(backoffs))("https://y.test")).status,
    ).toBe(200);
    const failing: typeof fetch = async () => {
      throw new TypeError("network down");
    };
    backoffs.set("pov", { failures: 30, untilMs: 0 });
    await expect(
      providerBackoffFetch("pov", failing, 0, memoryBackoffStore(backoffs))("https://z.test"),
    ).rejects.toThrow("network down");
    expect(backoffs.get("pov")).toEqual({ failures: 31, untilMs: PROVIDER_BACKOFF_MAX_MS });
  });

  it("names neither the URL nor its key when it refuses to send", async () => {
    const backoffs: ProviderBackoffs = new Map([["lbct", { failures: 1, untilMs: 10_000 }]]);
    const refused = await providerBackoffFetch(
      "lbct",
      fetch,
      0,
      memoryBackoffStore(backoffs),
    )(`https://lbct.test/${KEY}/API`).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ProviderBackoffError);
    expect(String(refused)).not.toContain(KEY);
  });
});

describe("terminal provided_data of a configured terminal", () => {
  it("is what the provider's adapter really provides there, with its notes", () => {
    const registry = sourcesFor({
      SIMULATOR_ENABLED: "true",
      DCSA_SOURCES: "",
      SIMULATION_SPEED: "",
      TERMINAL_SOURCES: JSON.stringify({
        lbct: { baseUrl: "https://lbct.test", auth: { type: "api_key", apiKey: KEY }, facilities: { W185: "LBCT" } },
        port_of_virginia: { baseUrl: "https://pov.test", auth: null, facilities: { E425: "NIT" } },
      }),
    });
    const terminal = (firmsCode: string) => ({ firmsCode, smdgCode: null, bicFacilityCode: null, facilityType: null });
    const lbct = providerServiceAt(registry, terminal("W185"));
    expect(lbct?.flags).toEqual(LBCT_PROVIDED_DATA);
    const data = terminalProvidedData(terminal("W185"), lbct ?? false);
    expect(data).toMatchObject({ ...LBCT_PROVIDED_DATA, pickup_lfd_notes: LBCT_PROVIDED_DATA_NOTES.pickup_lfd });
    expect(providerServiceAt(registry, terminal("E425"))?.flags).toEqual(PORT_OF_VIRGINIA_PROVIDED_DATA);
    expect(providerServiceAt(registry, terminal("Y258"))).toBeNull();
    const apmt = sourcesFor({
      SIMULATOR_ENABLED: "false",
      DCSA_SOURCES: "",
      SIMULATION_SPEED: "",
      TERMINAL_SOURCES: JSON.stringify({
        apmt: { baseUrl: "https://apmt.test", auth: null, facilities: { W185: "USLAX", E425: "DKAAR" } },
      }),
    });
    expect(providerServiceAt(apmt, terminal("W185"))?.flags).toEqual(APMT_PROVIDED_DATA);
    // Aarhus publishes no LFD, fees or yard location (docs/terminals.md §APMT facility codes): the flags follow the
    // provider facility.
    expect(providerServiceAt(apmt, terminal("E425"))?.flags).toMatchObject({
      pickup_lfd: false,
      available_for_pickup: true,
    });
  });

  it("a terminal nothing serves reports nothing provided, and says it is not connected", () => {
    const unserved = { firmsCode: "ZZZZ", smdgCode: null, bicFacilityCode: null, facilityType: "ocean_terminal" };
    const data = providedDataOf(unserved);
    expect(
      Object.entries(data)
        .filter(([k]) => !k.endsWith("_notes"))
        .every(([, v]) => v === false),
    ).toBe(true);
    expect(data.pickup_lfd_notes).toBe(NOT_CONNECTED_NOTE);
  });
});
