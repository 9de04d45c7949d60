import { describe, expect, it } from "vitest";
import { FakeClock } from "../../src/lib/clock";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox, pollTerminalBatch, TERMINAL_POLL_CONCURRENCY } from "../../src/tracking/poll-consumer";
import type {
  LookupResult,
  SourceContext,
  TerminalPollResult,
  TerminalQuery,
  TerminalSource,
} from "../../src/tracking/sources/types";
import { trackerName } from "../../src/tracking/tracker-state";
import { createAccount } from "../helpers/api";
import {
  boxNumbers,
  containerRow,
  containersOfShipment,
  envWithQueue,
  FakeCarrier,
  FUTURE_T0,
  insertRequest,
  recordingQueue,
  registryOf,
  requestRow,
} from "../helpers/engine";
import { containerFacts, HOUR_MS, iso, milestone, shipmentFacts } from "../helpers/facts";
import { terminalPollMessage } from "../helpers/terminal-engine";

// Issue 14 "Batching per terminal": the boxes of one terminal-polls batch that are due at the same terminal are asked
// about together, one request to the provider per chunk of its bulk limit, through the real Trackers and D1. The
// provider is a local fake speaking a small bulk API (a fetch handler that counts its requests and answers per
// container), and the source under the engine is a plain adapter of it, as the real ones are.

const SCAC = "FAKE";
const nextBox = boxNumbers("TBAU", 500_000);
const PROVIDER = "https://terminal.test";

/** What the fake provider saw. */
interface ProviderLog {
  /** One entry per HTTP request: the facility and the container numbers asked. */
  requests: { facility: string; ids: string[]; bl: string | null }[];
}

/**
 * A fake terminal API: `GET {PROVIDER}/availability?facility=F&ids=A,B[&bl=…]` → `{"items":[{"id","available"}]}`
 * for the boxes it knows (`known`), 500 for any request naming a box in `failFor`, 400 above `limit` ids.
 */
function fakeProvider(options: { limit: number; known?: (id: string) => boolean; failFor?: Set<string> }) {
  const log: ProviderLog = { requests: [] };
  const fetch: typeof globalThis.fetch = async (input) => {
    const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
    const ids = (url.searchParams.get("ids") ?? "").split(",").filter(Boolean);
    log.requests.push({ facility: url.searchParams.get("facility") ?? "", ids, bl: url.searchParams.get("bl") });
    if (ids.length > options.limit) return new Response("too many ids", { status: 400 });
    if (ids.some((id) => options.failFor?.has(id))) return new Response("upstream error", { status: 500 });
    const items = ids.filter((id) => options.known?.(id) ?? true).map((id) => ({ id, available: true }));
    return Response.json({ items });
  };
  return { log, fetch };
}

/**
 * A terminal source over the fake provider's API, serving `facilities`: `poll` asks for one box, `pollBatch` for all
 * it is given in one request (the engine must keep to `maxBatchSize`). Without `batching`, it has no `pollBatch`.
 */
function providerSource(facilities: string[], limit: number, batching = true): TerminalSource {
  const ask = async (queries: readonly TerminalQuery[], ctx: SourceContext) => {
    const first = queries[0];
    if (!first) return new Map<string, TerminalPollResult>();
    const url = new URL(`${PROVIDER}/availability`);
    url.searchParams.set("facility", first.facilityCode);
    url.searchParams.set("ids", queries.map((q) => q.containerNumber).join(","));
    if (queries.length === 1 && first.billOfLadingNumber) url.searchParams.set("bl", first.billOfLadingNumber);
    const response = await ctx.fetch(url.href);
    if (!response.ok) {
      const failure: TerminalPollResult = { kind: "temporary_failure", reason: "terminal_unreachable" };
      return new Map(queries.map((q) => [q.containerNumber, failure]));
    }
    const body = (await response.json()) as { items: { id: string; available: boolean }[] };
    const out = new Map<string, TerminalPollResult>();
    for (const q of queries) {
      const item = body.items.find((i) => i.id === q.containerNumber);
      out.set(
        q.containerNumber,
        item
          ? {
              kind: "found",
              observation: {
                checkedAt: iso(ctx.nowMs),
                availabilityKnown: true,
                availableForPickup: item.available,
                holds: [],
                fees: [],
                pickupLfd: null,
                pickupAppointmentAt: null,
                locationAtTerminal: null,
                dischargedAt: null,
                fullOutAt: null,
                fullOutChassisNumber: null,
                offDock: false,
              },
            }
          : { kind: "not_found" },
      );
    }
    return out;
  };
  const source: TerminalSource = {
    name: "Terminal",
    supports: (facilityCode) => facilities.includes(facilityCode),
    async poll(query, ctx) {
      return (await ask([query], ctx)).get(query.containerNumber) ?? { kind: "not_found" };
    },
  };
  if (batching) {
    return { ...source, maxBatchSize: limit, pollBatch: (queries, ctx) => ask(queries, ctx) };
  }
  return source;
}

/** A queue message that records whether it was acked or retried (a fresh id each, as the queue gives). */
const message = (scac: string, number: string) => terminalPollMessage(scac, number, `msg-${number}-${Math.random()}`);

/** Tracks one BL with `count` boxes discharged at `terminal`; returns the box numbers and their container ids. */
async function shipment(count: number, terminal: string, clock: FakeClock, sources: ReturnType<typeof registryOf>) {
  const numbers = Array.from({ length: count }, () => nextBox());
  const bl = `TBABL-${numbers[0]}`;
  const facts = shipmentFacts(
    numbers.map((n) =>
      containerFacts(n, [milestone("container.transport.vessel_discharged", iso(FUTURE_T0 - HOUR_MS), "USLAX")]),
    ),
    { billOfLadingNumber: bl, podTerminalCode: terminal },
  );
  carrierAnswers.set(bl, { kind: "found", shipment: facts });
  const account = await createAccount();
  const requestId = await insertRequest(account, { number: bl, scac: SCAC, createdAtMs: clock.now() });
  await processTrackingRequest(
    { env: envWithQueue(recordingQueue()), clock, sources },
    { trackingRequestId: requestId, accountId: account.accountId },
  );
  const request = await requestRow(requestId);
  const rows = await containersOfShipment(request.shipment_id ?? "");
  expect(rows).toHaveLength(count);
  return { bl, numbers, containerIds: new Map(rows.map((r) => [r.number, r.id])) };
}

const notFound: LookupResult = { kind: "not_found" };
const carrierAnswers = new Map<string, LookupResult>();

async function setup(options: {
  limit: number;
  facilities?: string[];
  batching?: boolean;
  failFor?: Set<string>;
  known?: (id: string) => boolean;
}) {
  const provider = fakeProvider({
    limit: options.limit,
    ...(options.failFor ? { failFor: options.failFor } : {}),
    ...(options.known ? { known: options.known } : {}),
  });
  const carrier = new FakeCarrier(SCAC, (request) => carrierAnswers.get(request.number) ?? notFound);
  const terminal = providerSource(options.facilities ?? ["Y257"], options.limit, options.batching ?? true);
  const sources = registryOf([carrier], [terminal]);
  const clock = new FakeClock(FUTURE_T0);
  const deps = () => ({ env: envWithQueue(recordingQueue()), clock, sources, fetch: provider.fetch });
  return { provider, carrier, sources, clock, deps };
}

describe("terminal polls batched per terminal", () => {
  it("asks the provider once per chunk of its limit for the boxes of one terminal: ceil(25/10) = 3 requests", async () => {
    const t = await setup({ limit: 10 });
    const s = await shipment(25, "Y257", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    const messages = s.numbers.map((n) => message(SCAC, n));
    await pollTerminalBatch(
      t.deps(),
      messages.map((m) => m.message),
    );
    expect(t.provider.log.requests.map((r) => r.ids.length)).toEqual([10, 10, 5]);
    expect(new Set(t.provider.log.requests.flatMap((r) => r.ids))).toEqual(new Set(s.numbers));
    expect(t.provider.log.requests.every((r) => r.facility === "Y257")).toBe(true);
    expect(messages.map((m) => m.state)).toEqual(s.numbers.map(() => ({ acked: 1, retried: 0 })));
    // Every box's answer reached its own container row through its Tracker.
    for (const number of s.numbers) {
      const row = await containerRow(s.containerIds.get(number) ?? "");
      expect(row.available_for_pickup).toBe(1);
      expect(row.terminal_checked_at).toBe(iso(FUTURE_T0 + HOUR_MS));
    }
    // The carrier is still looked up per box (its answer is per shipment number).
    expect(t.carrier.polls).toHaveLength(25);
  });

  it("keeps terminals apart: boxes at two facilities are asked in requests of their own facility", async () => {
    const t = await setup({ limit: 4, facilities: ["Y257", "W185"] });
    const a = await shipment(5, "Y257", t.clock, t.sources);
    const b = await shipment(3, "W185", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    const interleaved = [...a.numbers, ...b.numbers].sort().map((n) => message(SCAC, n).message);
    await pollTerminalBatch(t.deps(), interleaved);
    const byFacility = (f: string) => t.provider.log.requests.filter((r) => r.facility === f);
    expect(byFacility("Y257").map((r) => r.ids.length)).toEqual([4, 1]);
    expect(byFacility("W185").map((r) => r.ids.length)).toEqual([3]);
    expect(new Set(byFacility("Y257").flatMap((r) => r.ids))).toEqual(new Set(a.numbers));
    expect(new Set(byFacility("W185").flatMap((r) => r.ids))).toEqual(new Set(b.numbers));
  });

  it("a chunk that fails fails only its own boxes; the others are checked, and every message is acked", async () => {
    const t = await setup({ limit: 3 });
    const s = await shipment(7, "Y257", t.clock, t.sources);
    // The provider errors on any request naming the 4th box (the second chunk of 3 in the batch's order).
    const failing = s.numbers[3] ?? "";
    const provider = fakeProvider({ limit: 3, failFor: new Set([failing]) });
    t.clock.set(FUTURE_T0 + HOUR_MS);
    const messages = s.numbers.map((n) => message(SCAC, n));
    await pollTerminalBatch(
      { ...t.deps(), fetch: provider.fetch },
      messages.map((m) => m.message),
    );
    expect(provider.log.requests.map((r) => r.ids.length)).toEqual([3, 3, 1]);
    const failedChunk = new Set(provider.log.requests.find((r) => r.ids.includes(failing))?.ids);
    expect(failedChunk.size).toBe(3);
    for (const number of s.numbers) {
      const row = await containerRow(s.containerIds.get(number) ?? "");
      if (failedChunk.has(number)) {
        expect(row.terminal_checked_at, number).toBeNull();
        expect(row.available_for_pickup, number).toBeNull();
      } else {
        expect(row.terminal_checked_at, number).toBe(iso(FUTURE_T0 + HOUR_MS));
        expect(row.available_for_pickup, number).toBe(1);
      }
    }
    expect(messages.every((m) => m.state.acked === 1 && m.state.retried === 0)).toBe(true);
  });

  it("a box the provider leaves out of its answer is reported not found by the source, and the rest still land", async () => {
    const t = await setup({ limit: 10, known: (id) => !id.endsWith("1") && !id.endsWith("3") });
    const s = await shipment(6, "Y257", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    await pollTerminalBatch(
      t.deps(),
      s.numbers.map((n) => message(SCAC, n).message),
    );
    expect(t.provider.log.requests).toHaveLength(1);
    for (const number of s.numbers) {
      const row = await containerRow(s.containerIds.get(number) ?? "");
      const known = !number.endsWith("1") && !number.endsWith("3");
      // not_found is an answer (the terminal was reached): checked, nothing known.
      expect(row.terminal_checked_at, number).toBe(iso(FUTURE_T0 + HOUR_MS));
      expect(row.available_for_pickup, number).toBe(known ? 1 : null);
    }
  });

  it("a source without pollBatch is polled per box, as before", async () => {
    const t = await setup({ limit: 10, batching: false });
    const s = await shipment(4, "Y257", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    await pollTerminalBatch(
      t.deps(),
      s.numbers.map((n) => message(SCAC, n).message),
    );
    expect(t.provider.log.requests.map((r) => r.ids)).toEqual(expect.arrayContaining(s.numbers.map((n) => [n])));
    expect(t.provider.log.requests).toHaveLength(4);
    // Found by its BL: the per-box query carries it (Port of Virginia asks container and BL together).
    expect(t.provider.log.requests.every((r) => r.bl === s.bl)).toBe(true);
  });

  it("several messages of one box in a batch are one poll, all acked", async () => {
    const t = await setup({ limit: 10 });
    const s = await shipment(2, "Y257", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    const [first, second] = s.numbers;
    const messages = [message(SCAC, first ?? ""), message(SCAC, second ?? ""), message(SCAC, first ?? "")];
    await pollTerminalBatch(
      t.deps(),
      messages.map((m) => m.message),
    );
    expect(t.provider.log.requests.map((r) => [...r.ids].sort())).toEqual([[first, second].sort()]);
    expect(t.carrier.polls).toHaveLength(2);
    expect(messages.map((m) => m.state.acked)).toEqual([1, 1, 1]);
  });

  it("pollBox (one box) goes through the batch path: one request of one container", async () => {
    const t = await setup({ limit: 10 });
    const s = await shipment(1, "Y257", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    const results = await pollBox(t.deps(), { scac: SCAC, number: s.numbers[0] ?? "" });
    expect(results?.terminal?.kind).toBe("found");
    expect(t.provider.log.requests.map((r) => r.ids)).toEqual([[s.numbers[0]]]);
  });
});

// How the consumer works through one batch (pollTerminalBatch → pollBoxes): boxes at once up to a bound, and each
// box's messages acked or retried on its own box's outcome.
describe("a terminal-polls batch worked through", () => {
  it("polls at most TERMINAL_POLL_CONCURRENCY boxes at once, and every box of the batch", async () => {
    const t = await setup({ limit: 10, batching: false });
    const s = await shipment(20, "Y257", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    // A carrier whose lookups hold until TERMINAL_POLL_CONCURRENCY of them are open (or the batch's last has begun):
    // an unbounded consumer opens all 20 before any is let go; a bounded one never more than the bound.
    let running = 0;
    let started = 0;
    let maxRunning = 0;
    const waiting: (() => void)[] = [];
    const releaseIfFull = () => {
      if (running >= TERMINAL_POLL_CONCURRENCY || started === s.numbers.length) {
        for (const release of waiting.splice(0)) release();
      }
    };
    const answer = t.carrier.respond;
    t.carrier.respond = async (request, ctx) => {
      started++;
      running++;
      maxRunning = Math.max(maxRunning, running);
      const held = new Promise<void>((resolve) => waiting.push(resolve));
      releaseIfFull();
      await held;
      running--;
      return answer(request, ctx);
    };
    const messages = s.numbers.map((n) => message(SCAC, n));
    await pollTerminalBatch(
      t.deps(),
      messages.map((m) => m.message),
    );
    expect(maxRunning).toBe(TERMINAL_POLL_CONCURRENCY);
    expect(t.carrier.polls).toHaveLength(20);
    expect(messages.map((m) => m.state)).toEqual(s.numbers.map(() => ({ acked: 1, retried: 0 })));
  });

  it("a box whose Tracker throws has its messages retried in 30 s; the other boxes are polled and acked", async () => {
    const t = await setup({ limit: 10 });
    const s = await shipment(3, "Y257", t.clock, t.sources);
    t.clock.set(FUTURE_T0 + HOUR_MS);
    const [broken = "", ...fine] = s.numbers;
    const real = t.deps().env.TRACKER;
    const brokenId = real.idFromName(trackerName(SCAC, broken));
    const TRACKER = {
      idFromName: (name: string) => real.idFromName(name),
      get: (id: DurableObjectId) =>
        id.equals(brokenId) ? { pollPlan: () => Promise.reject(new Error("Tracker unreachable")) } : real.get(id),
    } as unknown as Env["TRACKER"];
    const retries: { id: string; delaySeconds: number | undefined }[] = [];
    const recorded = (n: string) => {
      const m = message(SCAC, n);
      const retry = m.message.retry.bind(m.message);
      m.message.retry = (options) => {
        retries.push({ id: m.message.id, delaySeconds: options?.delaySeconds });
        retry(options);
      };
      return m;
    };
    const messages = [recorded(broken), ...fine.map(recorded), recorded(broken)];
    await pollTerminalBatch(
      { ...t.deps(), env: { ...t.deps().env, TRACKER } },
      messages.map((m) => m.message),
    );
    expect(messages.map((m) => m.state)).toEqual([
      { acked: 0, retried: 1 },
      { acked: 1, retried: 0 },
      { acked: 1, retried: 0 },
      { acked: 0, retried: 1 },
    ]);
    expect(retries.map((r) => r.delaySeconds)).toEqual([30, 30]);
    for (const number of fine) {
      expect((await containerRow(s.containerIds.get(number) ?? "")).terminal_checked_at).toBe(iso(FUTURE_T0 + HOUR_MS));
    }
    expect((await containerRow(s.containerIds.get(broken) ?? "")).terminal_checked_at).toBeNull();
  });

  it("an empty batch polls nothing", async () => {
    const t = await setup({ limit: 10 });
    await pollTerminalBatch(t.deps(), []);
    expect(t.carrier.calls).toHaveLength(0);
    expect(t.provider.log.requests).toHaveLength(0);
  });
});
