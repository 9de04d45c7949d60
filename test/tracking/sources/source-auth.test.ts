import { env } from "cloudflare:test";
import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from "vitest";
import {
  authorizedFetch,
  createTokenBroker,
  type OAuth2ClientCredentialsAuth,
  type TokenBroker,
} from "../../../src/tracking/sources/auth";
import { tokenBrokerFor } from "../../../src/tracking/sources/credentials";
import { createDcsaSource, parseDcsaSources } from "../../../src/tracking/sources/dcsa";
import type { LookupRequest, LookupResult } from "../../../src/tracking/sources/types";
import { BOX_A, CALLS, equipmentEvent } from "../../fixtures/dcsa-events";
import {
  FAKE_CARRIER_BASE,
  FAKE_CLIENT_ID,
  FAKE_CLIENT_SECRET,
  FAKE_TOKEN_URL,
  FakeDcsaCarrier,
  oauthSourcesJson,
} from "../../helpers/fake-dcsa-carrier";

// Issue 13 §3: carrier credentials. DCSA_SOURCES gains `auth` per SCAC (static headers kept, API key, OAuth 2.0 client
// credentials); the OAuth token is fetched once, cached until shortly before expiry (one request per credential at a
// time, across isolates through the Credentials Durable Object), renewed on a 401, and the secret is never logged or
// returned. Against a fake DCSA 2.2 carrier with a token endpoint (test/helpers/fake-dcsa-carrier.ts), injected fetch.

const NOW_MS = Date.parse("2024-03-15T00:00:00Z");
const SCAC = "MAEU";
const GOOD = equipmentEvent({ n: 1, box: BOX_A, code: "LOAD", at: "2024-02-05T22:10:00+08:00", call: CALLS.pol });
const REQUEST: LookupRequest = { requestType: "container", number: BOX_A, scac: SCAC };
const REJECTED: LookupResult = { kind: "temporary_failure", reason: "shipping_line_credentials_rejected" };

const logged: unknown[][] = [];
let globalFetch: MockInstance;
beforeEach(() => {
  logged.length = 0;
  globalFetch = vi.spyOn(globalThis, "fetch").mockImplementation(() => {
    throw new Error("global fetch used");
  });
  for (const level of ["log", "info", "warn", "error", "debug"] as const) {
    vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
      logged.push(args);
    });
  }
});
afterEach(() => {
  expect(globalFetch).not.toHaveBeenCalled();
  // Whatever a test did, the client secret and issued tokens never reached a log line.
  const text = logged.map((args) => args.map(String).join(" ")).join("\n");
  expect(text).not.toContain(FAKE_CLIENT_SECRET);
  expect(text).not.toMatch(/token-\d/);
  vi.restoreAllMocks();
});

function oauthSource(carrier: FakeDcsaCarrier, tokens?: TokenBroker, secret?: string) {
  const configs = parseDcsaSources(oauthSourcesJson(SCAC, secret));
  const source = createDcsaSource(configs, { timeoutMs: 20, ...(tokens ? { tokens } : {}) });
  return { source, lookup: (nowMs = NOW_MS) => source.lookup(REQUEST, { nowMs, fetch: carrier.fetch }) };
}

const isFound = (r: LookupResult) => r.kind === "found";

describe("parseDcsaSources: auth", () => {
  it("reads an OAuth client-credentials entry with its defaults, and subscriptions", () => {
    const configs = parseDcsaSources(
      JSON.stringify({
        maeu: {
          baseUrl: `${FAKE_CARRIER_BASE}/`,
          subscriptions: true,
          auth: {
            type: "oauth2_client_credentials",
            tokenUrl: `${FAKE_TOKEN_URL}?grant_type=client_credentials`,
            clientId: FAKE_CLIENT_ID,
            clientSecret: FAKE_CLIENT_SECRET,
            scope: "tnt",
          },
        },
      }),
    );
    expect(configs.get("MAEU")).toEqual({
      baseUrl: FAKE_CARRIER_BASE,
      subscriptions: true,
      auth: {
        type: "oauth2_client_credentials",
        tokenUrl: `${FAKE_TOKEN_URL}?grant_type=client_credentials`,
        clientId: FAKE_CLIENT_ID,
        clientSecret: FAKE_CLIENT_SECRET,
        scope: "tnt",
        extraHeaders: {},
        clientAuth: "body",
      },
    });
  });

  it("keeps today's static headers working, as auth type headers, and reads an API key", () => {
    const configs = parseDcsaSources(
      JSON.stringify({
        HLCU: { baseUrl: FAKE_CARRIER_BASE, headers: { "Consumer-Key": "k1" } },
        ONEY: { baseUrl: FAKE_CARRIER_BASE, auth: { type: "headers", headers: { "X-Key": "k2" } } },
        CMDU: { baseUrl: FAKE_CARRIER_BASE, auth: { type: "api_key", apiKey: "k3" } },
      }),
    );
    expect(configs.get("HLCU")).toEqual({
      baseUrl: FAKE_CARRIER_BASE,
      subscriptions: false,
      auth: { type: "headers", headers: { "Consumer-Key": "k1" } },
    });
    expect(configs.get("ONEY")?.auth).toEqual({ type: "headers", headers: { "X-Key": "k2" } });
    expect(configs.get("CMDU")?.auth).toEqual({ type: "api_key", apiKey: "k3", header: "X-API-KEY" });
  });

  const oauth = {
    type: "oauth2_client_credentials",
    tokenUrl: FAKE_TOKEN_URL,
    clientId: FAKE_CLIENT_ID,
    clientSecret: FAKE_CLIENT_SECRET,
  };
  it.each([
    ["an unknown auth type", { type: "saml", clientSecret: FAKE_CLIENT_SECRET }],
    ["a misspelt key (client_secret)", { ...oauth, clientSecret: undefined, client_secret: FAKE_CLIENT_SECRET }],
    ["no clientSecret", { ...oauth, clientSecret: undefined }],
    ["an empty clientSecret", { ...oauth, clientSecret: "" }],
    ["an http token URL off localhost", { ...oauth, tokenUrl: "http://auth.carrier.test/token" }],
    ["a token URL with credentials", { ...oauth, tokenUrl: `https://u:${FAKE_CLIENT_SECRET}@auth.carrier.test/t` }],
    ["an unknown clientAuth", { ...oauth, clientAuth: "jwt" }],
    ["an invalid extra header name", { ...oauth, extraHeaders: { "Consumer Key": FAKE_CLIENT_ID } }],
    ["an API key with a line break", { type: "api_key", apiKey: `${FAKE_CLIENT_SECRET}\r\nX: y` }],
  ])("skips an entry with %s, naming the SCAC and never the secret", (_why, auth) => {
    const configs = parseDcsaSources(
      JSON.stringify({ MSCU: { baseUrl: FAKE_CARRIER_BASE, auth }, MAEU: { baseUrl: FAKE_CARRIER_BASE } }),
    );
    expect(configs.has("MSCU")).toBe(false);
    expect(configs.has("MAEU")).toBe(true);
    expect(logged.flat().join(" ")).toContain("MSCU");
  });

  it.each([
    ["both headers and auth", { headers: { A: "b" }, auth: { type: "api_key", apiKey: "k" } }],
    ["subscriptions that is not a boolean", { subscriptions: "yes" }],
    ["an unknown key", { baseURL: "https://x.test" }],
  ])("skips an entry with %s", (_why, extra) => {
    const configs = parseDcsaSources(JSON.stringify({ MSCU: { baseUrl: FAKE_CARRIER_BASE, ...extra } }));
    expect(configs.size).toBe(0);
    expect(logged.flat().join(" ")).toContain("MSCU");
  });
});

describe("OAuth client credentials against the fake carrier", () => {
  it("asks the token endpoint as RFC 6749 §4.4.2 says, then calls with Bearer and Consumer-Key", async () => {
    const carrier = new FakeDcsaCarrier();
    carrier.events = [GOOD];
    const { lookup } = oauthSource(carrier);
    expect(isFound(await lookup())).toBe(true);
    const [tokenRequest, eventsRequest] = carrier.requests;
    expect(tokenRequest?.method).toBe("POST");
    expect(tokenRequest?.headers.get("Content-Type")).toBe("application/x-www-form-urlencoded");
    expect(tokenRequest?.headers.get("Consumer-Key")).toBe(FAKE_CLIENT_ID);
    expect(Object.fromEntries(new URLSearchParams(tokenRequest?.body))).toEqual({
      grant_type: "client_credentials",
      client_id: FAKE_CLIENT_ID,
      client_secret: FAKE_CLIENT_SECRET,
    });
    expect(eventsRequest?.headers.get("Authorization")).toBe("Bearer token-1");
    expect(eventsRequest?.headers.get("Consumer-Key")).toBe(FAKE_CLIENT_ID);
    expect(eventsRequest?.headers.get("API-Version")).toBe("2");
  });

  it("authenticates with HTTP Basic when clientAuth is basic", async () => {
    const carrier = new FakeDcsaCarrier();
    carrier.events = [GOOD];
    const json = JSON.parse(oauthSourcesJson(SCAC));
    json[SCAC].auth.clientAuth = "basic";
    const source = createDcsaSource(parseDcsaSources(JSON.stringify(json)));
    expect(isFound(await source.lookup(REQUEST, { nowMs: NOW_MS, fetch: carrier.fetch }))).toBe(true);
    const tokenRequest = carrier.tokenRequests[0];
    expect(tokenRequest?.headers.get("Authorization")).toBe(`Basic ${btoa(`${FAKE_CLIENT_ID}:${FAKE_CLIENT_SECRET}`)}`);
    expect(new URLSearchParams(tokenRequest?.body).has("client_secret")).toBe(false);
  });

  it("fetches the token once for many polls, sequential and concurrent", async () => {
    const carrier = new FakeDcsaCarrier();
    carrier.events = [GOOD];
    const { lookup } = oauthSource(carrier);
    for (let i = 0; i < 10; i++) expect(isFound(await lookup(NOW_MS + i * 60_000))).toBe(true);
    const concurrent = await Promise.all(Array.from({ length: 10 }, () => lookup(NOW_MS + 600_000)));
    expect(concurrent.every(isFound)).toBe(true);
    expect(carrier.tokenRequests).toHaveLength(1);
    expect(carrier.eventRequests).toHaveLength(20);
  });

  it("fetches a new token shortly before the old one expires", async () => {
    const carrier = new FakeDcsaCarrier();
    carrier.events = [GOOD];
    carrier.tokenLifetimeS = 1800; // APM Terminals' tokens live 30 minutes (docs/terminals.md §APMT authentication)
    const { lookup } = oauthSource(carrier);
    await lookup(NOW_MS);
    await lookup(NOW_MS + 1800_000 - 61_000); // still outside the 60 s renewal margin
    expect(carrier.tokenRequests).toHaveLength(1);
    await lookup(NOW_MS + 1800_000 - 59_000); // inside it
    expect(carrier.tokenRequests).toHaveLength(2);
    expect(carrier.eventRequests.at(-1)?.headers.get("Authorization")).toBe("Bearer token-2");
  });

  it("after a 401 to a cached token, fetches a new token once and retries the call", async () => {
    const carrier = new FakeDcsaCarrier();
    carrier.events = [GOOD];
    const { lookup } = oauthSource(carrier);
    await lookup();
    carrier.forgetTokens();
    expect(isFound(await lookup(NOW_MS + 60_000))).toBe(true);
    expect(carrier.tokenRequests).toHaveLength(2);
    expect(carrier.eventRequests.map((r) => [r.headers.get("Authorization")])).toEqual([
      ["Bearer token-1"],
      ["Bearer token-1"],
      ["Bearer token-2"],
    ]);
    expect(isFound(await lookup(NOW_MS + 120_000))).toBe(true);
    expect(carrier.tokenRequests).toHaveLength(2);
  });

  it("a wrong secret is a configuration error: credentials rejected, logged without the secret, no API call", async () => {
    const carrier = new FakeDcsaCarrier("the-right-secret");
    carrier.events = [GOOD];
    const { lookup } = oauthSource(carrier);
    const result = await lookup();
    expect(result).toEqual(REJECTED);
    expect(JSON.stringify(result)).not.toContain(FAKE_CLIENT_SECRET);
    expect(carrier.eventRequests).toHaveLength(0);
    const text = logged.flat().join(" ");
    expect(text).toContain("DCSA MAEU");
    expect(text).toContain("invalid_client");
    expect(text).toContain("401");
  });

  it("polls within a minute of a refusal share it (one token request); a minute later it is asked again", async () => {
    const carrier = new FakeDcsaCarrier("the-right-secret");
    carrier.events = [GOOD];
    const { lookup } = oauthSource(carrier);
    for (const s of [0, 10, 30, 59]) expect(await lookup(NOW_MS + s * 1000)).toEqual(REJECTED);
    expect(carrier.tokenRequests).toHaveLength(1);
    expect(await lookup(NOW_MS + 60_000)).toEqual(REJECTED);
    expect(carrier.tokenRequests).toHaveLength(2);
    // The carrier accepts our secret again (it had rotated and rolled back): the next try after the memory works.
    carrier.clientSecret = FAKE_CLIENT_SECRET;
    expect(await lookup(NOW_MS + 90_000)).toEqual(REJECTED);
    expect(isFound(await lookup(NOW_MS + 121_000))).toBe(true);
  });

  it("an API that answers 401 even to a new token is credentials rejected (one renewal, no loop)", async () => {
    const carrier = new FakeDcsaCarrier();
    carrier.events = [GOOD];
    carrier.mode = "unauthorized";
    const { lookup } = oauthSource(carrier);
    expect(await lookup()).toEqual(REJECTED);
    expect(carrier.tokenRequests).toHaveLength(2);
    expect(carrier.eventRequests).toHaveLength(2);
  });

  it.each([
    ["a 503", () => new Response("busy", { status: 503 }), "shipping_line_unreachable"],
    ["a network error", () => Promise.reject(new TypeError("Network connection lost.")), "shipping_line_unreachable"],
    ["a 200 without access_token", () => Response.json({ token_type: "Bearer" }), "unrecognized_response"],
    ["a MAC token", () => Response.json({ access_token: "x", token_type: "mac" }), "unrecognized_response"],
    [
      "a token with a line break",
      () => Response.json({ access_token: "x\r\nX-Injected: 1", token_type: "Bearer" }),
      "unrecognized_response",
    ],
  ])(
    "a token endpoint answering %s fails the lookup as expected, and the next poll asks again",
    async (_why, answer, reason) => {
      const carrier = new FakeDcsaCarrier();
      carrier.events = [GOOD];
      let broken = true;
      const fake: typeof fetch = async (input, init) =>
        broken && String(input).startsWith(FAKE_TOKEN_URL) ? answer() : carrier.fetch(input, init);
      const source = createDcsaSource(parseDcsaSources(oauthSourcesJson(SCAC)));
      expect(await source.lookup(REQUEST, { nowMs: NOW_MS, fetch: fake })).toEqual({
        kind: "temporary_failure",
        reason,
      });
      broken = false;
      expect(isFound(await source.lookup(REQUEST, { nowMs: NOW_MS + 60_000, fetch: fake }))).toBe(true);
    },
  );
});

describe("one token request at a time across isolates (Credentials Durable Object)", () => {
  const auth = (secret = FAKE_CLIENT_SECRET): OAuth2ClientCredentialsAuth => ({
    type: "oauth2_client_credentials",
    tokenUrl: FAKE_TOKEN_URL,
    clientId: FAKE_CLIENT_ID,
    clientSecret: secret,
    extraHeaders: { "Consumer-Key": FAKE_CLIENT_ID },
    clientAuth: "body",
  });

  it("two isolates' brokers (each with its own cache) share one token, fetched once even when asked together", async () => {
    const carrier = new FakeDcsaCarrier("shared-secret-1");
    carrier.events = [GOOD];
    const isolates = [tokenBrokerFor(env), tokenBrokerFor(env)];
    const ctx = { fetch: carrier.fetch, nowMs: NOW_MS };
    const tokens = await Promise.all(
      Array.from({ length: 6 }, (_, i) => isolates[i % 2]?.token(auth("shared-secret-1"), ctx, "test")),
    );
    expect(new Set(tokens.map((t) => (t?.kind === "token" ? t.token.value : t?.kind)))).toEqual(new Set(["token-1"]));
    expect(carrier.tokenRequests).toHaveLength(1);
  });

  it("a refused secret reaches every waiter from one refusal, and a fixed secret works at once", async () => {
    const carrier = new FakeDcsaCarrier("shared-secret-2");
    const isolates = [tokenBrokerFor(env), tokenBrokerFor(env)];
    const ctx = { fetch: carrier.fetch, nowMs: NOW_MS };
    const outcomes = await Promise.all(isolates.map((b) => b.token(auth("wrong-secret-2"), ctx, "test")));
    expect(outcomes.map((o) => o.kind)).toEqual(["rejected", "rejected"]);
    expect(carrier.tokenRequests).toHaveLength(1);
    // A third isolate asking within the minute gets the remembered refusal from the Credentials object.
    const later = await tokenBrokerFor(env).token(auth("wrong-secret-2"), { ...ctx, nowMs: NOW_MS + 30_000 }, "test");
    expect(later.kind).toBe("rejected");
    expect(carrier.tokenRequests).toHaveLength(1);
    const fixed = await isolates[0]?.token(auth("shared-secret-2"), ctx, "test");
    expect(fixed?.kind).toBe("token");
  });

  it("a 401 in one isolate renews the token for the others", async () => {
    const carrier = new FakeDcsaCarrier("shared-secret-3");
    carrier.events = [GOOD];
    const [a, b] = [tokenBrokerFor(env), tokenBrokerFor(env)];
    const headers = new Headers();
    const call = (tokens: TokenBroker, nowMs: number) =>
      authorizedFetch(
        auth("shared-secret-3"),
        `${FAKE_CARRIER_BASE}/v2/events?equipmentReference=${BOX_A}`,
        { method: "GET", headers, timeoutMs: 1000 },
        { fetch: carrier.fetch, nowMs, tokens, label: "test" },
      );
    expect((await call(a, NOW_MS)).kind).toBe("response");
    carrier.forgetTokens();
    const renewed = await call(a, NOW_MS + 1000);
    expect(renewed.kind === "response" && renewed.response.status).toBe(200);
    // b never cached token-1 itself: it gets token-2 from the Credentials object, no third token request.
    const fromB = await call(b, NOW_MS + 2000);
    expect(fromB.kind === "response" && fromB.response.status).toBe(200);
    expect(carrier.tokenRequests).toHaveLength(2);
    expect(carrier.eventRequests.at(-1)?.headers.get("Authorization")).toBe("Bearer token-2");
  });
});

describe("API key and static headers", () => {
  it("sends the API key in its header, and static headers as given", async () => {
    const seen: Headers[] = [];
    const fake: typeof fetch = async (_input, init) => {
      seen.push(new Headers(init?.headers));
      return Response.json([GOOD]);
    };
    const configs = parseDcsaSources(
      JSON.stringify({
        CMDU: { baseUrl: FAKE_CARRIER_BASE, auth: { type: "api_key", apiKey: "key-1", header: "apikey" } },
        HLCU: { baseUrl: FAKE_CARRIER_BASE, headers: { "Consumer-Key": "key-2" } },
      }),
    );
    const source = createDcsaSource(configs, { tokens: createTokenBroker() });
    await source.lookup({ ...REQUEST, scac: "CMDU" }, { nowMs: NOW_MS, fetch: fake });
    await source.lookup({ ...REQUEST, scac: "HLCU" }, { nowMs: NOW_MS, fetch: fake });
    expect(seen[0]?.get("apikey")).toBe("key-1");
    expect(seen[1]?.get("Consumer-Key")).toBe("key-2");
    expect(seen[1]?.get("Authorization")).toBeNull();
  });
});
