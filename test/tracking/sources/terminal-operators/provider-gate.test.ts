import { env, evictDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import {
  createConfiguredTerminalSources,
  parseTerminalSources,
} from "../../../../src/tracking/sources/terminal-operators";
import {
  memoryBackoffStore,
  PROVIDER_BACKOFF_BASE_MS,
  ProviderBackoffError,
  providerBackoffFetch,
} from "../../../../src/tracking/sources/terminal-operators/backoff";
import {
  type ProviderGate,
  sharedBackoffStore,
} from "../../../../src/tracking/sources/terminal-operators/provider-gate";
import { FakeLbct, lbctImportUnit, lbctSourcesJson } from "../../../helpers/fake-lbct";
import { scriptedUpstream } from "../../../helpers/scripted-fetch";

// Issue 14, "respect each provider's documented rate limits, with backoff on 429/5xx", across isolates: a provider
// that answered 429 or 5xx to one isolate is left alone by every isolate until its backoff ends. Each isolate is a
// `sharedBackoffStore` of its own (its own memory) on the one PROVIDER_GATE namespace, as in production.

const T0 = 1_900_000_000_000;

/** A provider name no other test uses, so each test has a gate of its own. */
const freshProvider = () => `test-provider-${crypto.randomUUID()}`;

describe("ProviderGate: a provider's backoff shared by every isolate", () => {
  it("after a 429 to one isolate, no other isolate calls the provider until Retry-After has passed", async () => {
    const provider = freshProvider();
    const isolateA = sharedBackoffStore(env.PROVIDER_GATE);
    const isolateB = sharedBackoffStore(env.PROVIDER_GATE);
    const u = scriptedUpstream([429, { "Retry-After": "30" }]);
    expect((await providerBackoffFetch(provider, u.fetch, T0, isolateA)("https://p.test/a")).status).toBe(429);
    const refused = await providerBackoffFetch(provider, u.fetch, T0 + 1, isolateB)("https://p.test/b").catch((e) => e);
    expect(refused).toBeInstanceOf(ProviderBackoffError);
    expect(u.calls).toHaveLength(1);
    // Two isolates each with its own memory (the store before the gate) would each have sent a request.
    const perIsolate = scriptedUpstream([429, { "Retry-After": "30" }]);
    await providerBackoffFetch(provider, perIsolate.fetch, T0, memoryBackoffStore())("https://p.test/a");
    await providerBackoffFetch(provider, perIsolate.fetch, T0 + 1, memoryBackoffStore())("https://p.test/b");
    expect(perIsolate.calls).toHaveLength(2);
    // Once it has passed, B calls again; its good answer ends the backoff for A as well.
    expect((await providerBackoffFetch(provider, u.fetch, T0 + 30_000, isolateB)("https://p.test/c")).status).toBe(200);
    expect(await stub(provider).current()).toBeNull();
    expect((await providerBackoffFetch(provider, u.fetch, T0 + 30_001, isolateA)("https://p.test/d")).status).toBe(200);
    expect(u.calls).toHaveLength(3);
  });

  it("failed answers of requests sent before the backoff began do not lengthen it", async () => {
    const provider = freshProvider();
    const stores = [
      sharedBackoffStore(env.PROVIDER_GATE),
      sharedBackoffStore(env.PROVIDER_GATE),
      sharedBackoffStore(env.PROVIDER_GATE),
    ] as const;
    // Three isolates' requests, all sent at T0 before any answer, all answered 503.
    const u = scriptedUpstream(503, 503, 503);
    const answers = await Promise.all(
      stores.map((store) => providerBackoffFetch(provider, u.fetch, T0, store)("https://p.test")),
    );
    expect(answers.map((r) => r.status)).toEqual([503, 503, 503]);
    expect(await stub(provider).current()).toEqual({ failures: 1, untilMs: T0 + PROVIDER_BACKOFF_BASE_MS });
    // The next failure, after the wait, doubles it.
    const again = scriptedUpstream(500);
    const at = T0 + PROVIDER_BACKOFF_BASE_MS;
    expect((await providerBackoffFetch(provider, again.fetch, at, stores[1])("https://p.test")).status).toBe(500);
    expect(await stub(provider).current()).toEqual({ failures: 2, untilMs: at + 2 * PROVIDER_BACKOFF_BASE_MS });
  });

  it("keeps a backoff through the gate's eviction", async () => {
    const provider = freshProvider();
    const store = sharedBackoffStore(env.PROVIDER_GATE);
    await providerBackoffFetch(
      provider,
      scriptedUpstream([429, { "Retry-After": "600" }]).fetch,
      T0,
      store,
    )("https://p.test");
    await evictDurableObject(stub(provider));
    expect(await stub(provider).current()).toEqual({ failures: 1, untilMs: T0 + 600_000 });
    const fresh = sharedBackoffStore(env.PROVIDER_GATE);
    const u = scriptedUpstream();
    await expect(providerBackoffFetch(provider, u.fetch, T0 + 599_999, fresh)("https://p.test")).rejects.toBeInstanceOf(
      ProviderBackoffError,
    );
    expect(u.calls).toHaveLength(0);
  });

  it("backs off in the isolate's memory when the gate cannot be reached, and never fails a request for it", async () => {
    const broken = {
      idFromName: (name: string) => env.PROVIDER_GATE.idFromName(name),
      get: () => {
        throw new Error("gate unreachable");
      },
    } as unknown as DurableObjectNamespace<ProviderGate>;
    const store = sharedBackoffStore(broken);
    const u = scriptedUpstream(503, 200);
    expect((await providerBackoffFetch("lbct", u.fetch, T0, store)("https://p.test")).status).toBe(503);
    await expect(providerBackoffFetch("lbct", u.fetch, T0 + 1, store)("https://p.test")).rejects.toBeInstanceOf(
      ProviderBackoffError,
    );
    expect(
      (await providerBackoffFetch("lbct", u.fetch, T0 + PROVIDER_BACKOFF_BASE_MS, store)("https://p.test")).status,
    ).toBe(200);
    expect(u.calls).toHaveLength(2);
  });

  it("through configured LBCT sources: a 429 to one isolate's poll keeps another isolate's poll from LBCT", async () => {
    const lbct = new FakeLbct();
    lbct.put(lbctImportUnit("LBEU9000017", {}));
    lbct.mode = "throttled";
    lbct.retryAfterS = 60;
    // Each isolate builds its own sources from TERMINAL_SOURCES, as the registry does, on the shared gates.
    const isolate = () =>
      createConfiguredTerminalSources(
        parseTerminalSources(lbctSourcesJson()),
        {},
        undefined,
        sharedBackoffStore(env.PROVIDER_GATE),
      )[0]?.source;
    const query = { containerNumber: "LBEU9000017", facilityCode: "WAC8", scac: "OOLU" };
    const ctx = (nowMs: number) => ({ nowMs, fetch: lbct.fetch });
    const first = await isolate()?.poll(query, ctx(T0));
    expect(first).toMatchObject({ kind: "temporary_failure" });
    expect(lbct.searches).toHaveLength(1);
    lbct.mode = "ok";
    const second = await isolate()?.poll(query, ctx(T0 + 59_000));
    expect(second).toMatchObject({ kind: "temporary_failure" });
    expect(lbct.searches).toHaveLength(1);
    const third = await isolate()?.poll(query, ctx(T0 + 60_000));
    expect(third?.kind).not.toBe("temporary_failure");
    expect(lbct.searches).toHaveLength(2);
    await stub("lbct").succeeded();
  });
});

function stub(provider: string) {
  return env.PROVIDER_GATE.get(env.PROVIDER_GATE.idFromName(provider));
}
