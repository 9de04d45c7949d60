import { env } from "cloudflare:test";
import { expect, it, vi } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollTerminalBatch } from "../../src/tracking/poll-consumer";
import { type SourceRegistry, sourcesFor } from "../../src/tracking/sources";
import type { LookupResult, TerminalSource } from "../../src/tracking/sources/types";
import { createAccount } from "../../test/helpers/api";
import {
  boxNumbers,
  envWithQueue,
  FakeCarrier,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
} from "../../test/helpers/engine";
import { containerFacts, HOUR_MS, iso, milestone, shipmentFacts } from "../../test/helpers/facts";
import {
  FAKE_POV_API_KEY,
  FAKE_POV_BASE,
  FakePortOfVirginia,
  povAvailability,
} from "../../test/helpers/fake-port-of-virginia";

// Measured by `npm run bench -- terminal-batching` (bench/engine/terminal-batching.mjs), not part of `npm test`:
// N boxes at one terminal (Norfolk International Terminals, FIRMS L005) tracked through the real tracking-requests
// consumer and Trackers, the terminal served by the real Port of Virginia adapter (bulk limit 100) over the local
// fake of its API (test/helpers/fake-port-of-virginia.ts). Every box is polled through the real terminal-polls
// consumer (`pollTerminalBatch`) in queue batches of 100 (wrangler.toml max_batch_size), twice, from the same
// steady state (a warm-up round first): per box (the adapter without pollBatch, as before issue 14) and batched.
// Counted: requests to the provider, wall time, and D1 round trips per poll (the Trackers' BENCH_ENGINE=trace lines).

const SCAC = "FAKE";
const FACILITY = "L005";
const QUEUE_BATCH = 100;
const benchEnv = env as unknown as { BENCH_TB_BOXES?: string; BENCH_TB_LATENCY_MS?: string };
const BOXES = Number(benchEnv.BENCH_TB_BOXES ?? "1000");
/** Round trip added to every request to the fake provider (ms): a real API answers in tens to hundreds of ms. */
const LATENCY_MS = Number(benchEnv.BENCH_TB_LATENCY_MS ?? "100");
const nextBox = boxNumbers("BTBU", 700_000);

it(`terminal polls of ${BOXES} boxes at one terminal: batched vs per box`, { timeout: 3_600_000 }, async () => {
  const provider = new FakePortOfVirginia();
  const facts = new Map<string, LookupResult>();
  const carrier = new FakeCarrier(SCAC, (request) => facts.get(request.number) ?? { kind: "not_found" });
  const registry = sourcesFor({
    DCSA_SOURCES: "",
    SIMULATOR_ENABLED: "false",
    SIMULATION_SPEED: "",
    // As in production: each request to the provider asks its ProviderGate (the backoff every isolate shares) first.
    PROVIDER_GATE: (env as unknown as Env).PROVIDER_GATE,
    TERMINAL_SOURCES: JSON.stringify({
      port_of_virginia: {
        baseUrl: FAKE_POV_BASE,
        auth: { type: "api_key", apiKey: FAKE_POV_API_KEY },
        facilities: { [FACILITY]: "NIT" },
      },
    }),
  });
  const pov = registry.terminals.find((t) => t.supports(FACILITY, SCAC));
  if (!pov?.pollBatch) throw new Error("no batching Port of Virginia source");
  const perBoxSource: TerminalSource = {
    name: pov.name,
    supports: (code, scac) => pov.supports(code, scac),
    poll: (query, ctx) => pov.poll(query, ctx),
  };
  const batched: SourceRegistry = registryOf([carrier], [pov]);
  const perBox: SourceRegistry = registryOf([carrier], [perBoxSource]);
  const clock = new FakeClock(FUTURE_T0);
  const testEnv = envWithQueue(recordingQueue()) as Env;

  // N boxes on BLs of 100 boxes each, discharged at NIT an hour ago.
  const numbers: string[] = [];
  const account = await createAccount();
  const setupStarted = Date.now();
  for (let start = 0; start < BOXES; start += 100) {
    const boxes = Array.from({ length: Math.min(100, BOXES - start) }, () => nextBox());
    const bl = `BTBBL${boxes[0]}`;
    const shipment = shipmentFacts(
      boxes.map((n) =>
        containerFacts(n, [milestone("container.transport.vessel_discharged", iso(FUTURE_T0 - HOUR_MS), "USORF")]),
      ),
      { billOfLadingNumber: bl, portOfDischargeLocode: "USORF", podTerminalCode: FACILITY },
    );
    facts.set(bl, { kind: "found", shipment });
    for (const n of boxes) provider.set(povAvailability(n, bl, { shipmentStatus: "Available", yardBlock: "A1" }));
    const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: testEnv, clock, sources: batched },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    numbers.push(...boxes);
  }
  const setupMs = Date.now() - setupStarted;

  const traces: { batches: number; statements: number }[] = [];
  vi.spyOn(console, "warn").mockImplementation((...args: unknown[]) => {
    const line = String(args[0] ?? "");
    if (line.startsWith("bench-engine ")) traces.push(JSON.parse(line.slice("bench-engine ".length)));
  });
  const message = (number: string) =>
    ({
      id: number,
      timestamp: new Date(clock.now()),
      body: { scac: SCAC, number },
      attempts: 1,
      ack: () => undefined,
      retry: () => {
        throw new Error(`poll of ${number} failed`);
      },
    }) as unknown as Message<{ scac: string; number: string }>;

  const slowFetch: typeof fetch = async (input, init) => {
    await new Promise((resolve) => setTimeout(resolve, LATENCY_MS));
    return provider.fetch(input, init);
  };
  const round = async (sources: SourceRegistry, atMs: number) => {
    clock.set(atMs);
    traces.length = 0;
    const requestsBefore = provider.bulkRequests.length;
    const started = Date.now();
    for (let start = 0; start < numbers.length; start += QUEUE_BATCH) {
      await pollTerminalBatch(
        { env: testEnv, clock, sources, fetch: slowFetch },
        numbers.slice(start, start + QUEUE_BATCH).map(message),
      );
    }
    const ms = Date.now() - started;
    const polls = traces.length;
    const batches = traces.reduce((n, t) => n + t.batches, 0);
    return {
      boxes: numbers.length,
      providerRequests: provider.bulkRequests.length - requestsBefore,
      ms,
      pollsPerSecond: ms > 0 ? (numbers.length * 1000) / ms : null,
      trackerUpdates: polls,
      d1BatchesPerPoll: polls > 0 ? batches / polls : null,
    };
  };

  // Warm-up: every box takes in the terminal's answer once, so both measured rounds start from the same state.
  await round(batched, FUTURE_T0 + HOUR_MS);
  const perBoxRound = await round(perBox, FUTURE_T0 + 2 * HOUR_MS);
  const batchedRound = await round(batched, FUTURE_T0 + 3 * HOUR_MS);
  // A changed round, batched: every box turns unavailable (a container.updated change per box).
  for (const n of numbers) provider.update(n, { shipmentStatus: "Not Available" });
  const changedRound = await round(batched, FUTURE_T0 + 4 * HOUR_MS);
  const result = {
    boxes: BOXES,
    latencyMs: LATENCY_MS,
    setupMs,
    perBox: perBoxRound,
    batched: batchedRound,
    batchedChanged: changedRound,
  };
  console.log(`terminal-batching-result ${JSON.stringify(result)}`);
  expect(perBoxRound.providerRequests).toBe(BOXES);
  expect(batchedRound.providerRequests).toBe(Math.ceil(BOXES / 100));
});
