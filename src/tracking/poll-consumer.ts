import { systemClock } from "../lib/clock";
import { SOURCE_TIMEOUT_MS, type TrackingDeps } from "./consumers";
import { mapWithLimit } from "./map-with-limit";
import { sourcesFor } from "./sources";
import type { LookupResult, SourceContext, TerminalPollResult, TerminalQuery, TerminalSource } from "./sources/types";
import type { TerminalPollMessage } from "./terminal-poll-message";
import { type PollPlan, type PollResults, trackerName } from "./tracker-state";

/*
 * The `terminal-polls` queue consumer (docs/architecture.md §Tracking pipeline steps 3–4): a box's scheduled poll, its
 * carrier and terminal queries batched per terminal, and the answers handed to the box's Tracker. The lookup of a new
 * tracking request, the other consumer of the pipeline, is in src/tracking/consumers.ts.
 */

/** The env a poll needs. */
type PollDeps = Omit<TrackingDeps, "env"> & {
  env: Pick<Env, "TRACKER" | "DCSA_SOURCES" | "SIMULATOR_ENABLED" | "SIMULATION_SPEED"> &
    Partial<Pick<Env, "TERMINAL_SOURCES" | "CREDENTIALS">>;
};

/**
 * `work()`, or `onError` when it throws or does not settle within {@link SOURCE_TIMEOUT_MS}: a source that never
 * answers counts as unreachable rather than holding the consumer. `label` names what failed in the log (never a
 * secret: sources' own errors name SCACs, providers and statuses only).
 */
async function guardSource<T>(label: string, work: () => Promise<T>, onError: T): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${SOURCE_TIMEOUT_MS} ms`)), SOURCE_TIMEOUT_MS);
    });
    return await Promise.race([work(), timeout]);
  } catch (err) {
    console.error("terminal-polls: source failed", label, String(err));
    return onError;
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

/** How polling one box of a batch ended: its results (null: no Tracker, or stopped), or the error it threw. */
export type BoxPollOutcome = { kind: "polled"; results: PollResults | null } | { kind: "error"; error: unknown };

const TERMINAL_UNREACHABLE: TerminalPollResult = { kind: "temporary_failure", reason: "terminal_unreachable" };

/**
 * Polls the boxes of one `terminal-polls` batch (docs/architecture.md §Tracking pipeline steps 3–4), batching terminal
 * queries per terminal (issue 14 "Batching per terminal"):
 * 1. asks each box's Tracker what to poll (`pollPlan`: the carrier by the shipment number the box was found with,
 *    the POD terminal and, on a move with a rail leg, the inland ramp; `facilitiesToPoll` in schedule.ts);
 * 2. groups the facility queries of all boxes by (terminal source, facility): a source with `pollBatch` and a
 *    `maxBatchSize` above 1 is asked once per chunk of at most `maxBatchSize` distinct containers, one chunk after
 *    the other per source (different sources at once); a chunk that fails (throws, times out) fails only its own
 *    boxes' answers, as `terminal_unreachable`, and a box missing from a chunk's answer is `terminal_unreachable` too. A source without `pollBatch` is polled per box
 *    as before. Each query carries the BL number when the box was found by its bill of lading (Port of Virginia asks
 *    container and BL together, docs/terminals.md §Port of Virginia API);
 * 3. per box (up to `concurrency` at once): the carrier lookup and the per-box terminal polls, then the box's answers
 *    to its Tracker (`applyPoll`), which writes D1 exactly as for a poll of one box (batching changes the requests to
 *    the terminal, not the D1 round trips per poll).
 * A source that throws or does not answer in {@link SOURCE_TIMEOUT_MS} counts as a temporary failure; the Tracker
 * keeps its state and retries sooner. Every source of the batch sees one clock reading (`polledAtMs`). Boxes are
 * given once each (the caller groups duplicate messages).
 * @returns one outcome per box, in order; never rejects.
 */
export async function pollBoxes(
  deps: PollDeps,
  boxes: readonly TerminalPollMessage[],
  concurrency: number = TERMINAL_POLL_CONCURRENCY,
): Promise<BoxPollOutcome[]> {
  const registry = deps.sources ?? sourcesFor(deps.env);
  const planned = await mapWithLimit(boxes, concurrency, async (box) => {
    try {
      const stub = deps.env.TRACKER.get(deps.env.TRACKER.idFromName(trackerName(box.scac, box.number)));
      return { stub, plan: await stub.pollPlan() };
    } catch (error) {
      return { error };
    }
  });
  const nowMs = (deps.clock ?? systemClock).now();
  const fetcher: typeof fetch = deps.fetch ?? ((input, init) => fetch(input, init));
  type Facility = "terminal" | "rail";
  const batchedAnswers = new Map<string, Promise<TerminalPollResult>>();
  const groups = new Map<TerminalSource, Map<string, { key: string; query: TerminalQuery }[]>>();
  const sourceFor = (facilityCode: string | null, scac: string): TerminalSource | undefined =>
    facilityCode ? registry.terminals.find((s) => s.supports(facilityCode, scac)) : undefined;
  planned.forEach((entry, index) => {
    if (!("plan" in entry) || !entry.plan || entry.plan.stopped) return;
    const plan = entry.plan;
    for (const [facility, code] of [
      ["terminal", plan.facilityCode],
      ["rail", plan.railFacilityCode],
    ] as [Facility, string | null][]) {
      const source = sourceFor(code, plan.scac);
      if (!code || !source?.pollBatch || (source.maxBatchSize ?? 1) <= 1) continue;
      const byFacility = groups.get(source) ?? new Map<string, { key: string; query: TerminalQuery }[]>();
      groups.set(source, byFacility);
      const queries = byFacility.get(code) ?? [];
      byFacility.set(code, queries);
      queries.push({ key: `${index}:${facility}`, query: terminalQueryOf(plan, code) });
    }
  });
  for (const [source, byFacility] of groups) {
    const limit = Math.max(1, Math.floor(source.maxBatchSize ?? 1));
    // One request at a time per source: a provider is never hit by a burst of a batch's chunks, and after a 429 the
    // provider's backoff (src/tracking/sources/terminal-operators/backoff.ts) keeps the remaining chunks from being
    // sent.
    let previous: Promise<unknown> = Promise.resolve();
    for (const [facilityCode, queries] of byFacility) {
      // One question per container: two lines' boxes with one number at one terminal share the answer.
      const distinct = [...new Map(queries.map((q) => [q.query.containerNumber, q.query])).values()];
      for (let start = 0; start < distinct.length; start += limit) {
        const chunk = distinct.slice(start, start + limit);
        const asked = new Set(chunk.map((q) => q.containerNumber));
        const pollBatch = source.pollBatch?.bind(source);
        const answer = previous.then(() =>
          guardSource(
            `${source.name} ${facilityCode} (${chunk.length} boxes)`,
            async () => (pollBatch ? pollBatch(chunk, { nowMs, fetch: fetcher }) : new Map()),
            new Map<string, TerminalPollResult>(),
          ),
        );
        previous = answer;
        for (const { key, query } of queries) {
          if (!asked.has(query.containerNumber)) continue;
          batchedAnswers.set(
            key,
            answer.then((m) => m.get(query.containerNumber) ?? TERMINAL_UNREACHABLE),
          );
        }
      }
    }
  }
  return mapWithLimit(planned, concurrency, async (entry, index): Promise<BoxPollOutcome> => {
    if (!("plan" in entry)) return { kind: "error", error: entry.error };
    const { stub, plan } = entry;
    if (!plan || plan.stopped) return { kind: "polled", results: null };
    try {
      const ctx: SourceContext = { nowMs, fetch: fetcher, trackingStartedAtMs: plan.trackingStartedAtMs };
      const label = `${plan.scac} ${plan.number}`;
      const carrierSource = registry.carriers.find((s) => s.supports(plan.scac));
      const pollFacility = (facility: Facility, code: string | null): Promise<TerminalPollResult | null> => {
        const batched = batchedAnswers.get(`${index}:${facility}`);
        if (batched) return batched;
        const source = sourceFor(code, plan.scac);
        if (!source || !code) return Promise.resolve(null);
        return guardSource(label, () => source.poll(terminalQueryOf(plan, code), ctx), TERMINAL_UNREACHABLE);
      };
      const [carrier, terminal, rail] = await Promise.all([
        carrierSource
          ? guardSource<LookupResult>(
              label,
              () =>
                carrierSource.lookup(
                  { requestType: plan.requestType, number: plan.shipmentNumber, scac: plan.scac, status: "created" },
                  ctx,
                ),
              { kind: "temporary_failure", reason: "shipping_line_unreachable" },
            )
          : Promise.resolve(null),
        pollFacility("terminal", plan.facilityCode),
        pollFacility("rail", plan.railFacilityCode),
      ]);
      const results: PollResults = { carrier, terminal, rail, polledAtMs: nowMs };
      await stub.applyPoll(results);
      return { kind: "polled", results };
    } catch (error) {
      return { kind: "error", error };
    }
  });
}

/** What a terminal is asked about one box: its number, the facility, the line, and its BL (`PollPlan`). */
function terminalQueryOf(plan: PollPlan, facilityCode: string): TerminalQuery {
  return {
    containerNumber: plan.number,
    facilityCode,
    scac: plan.scac,
    billOfLadingNumber: plan.billOfLadingNumber,
  };
}

/**
 * Polls one box ({@link pollBoxes} with one box): the path of `PATCH /containers/{id}/refresh` and of tests.
 * @returns the answers handed to the Tracker, or null when the box has no Tracker or is stopped.
 * @throws what its Tracker threw (the message is then retried).
 */
export async function pollBox(deps: PollDeps, message: TerminalPollMessage): Promise<PollResults | null> {
  const [outcome] = await pollBoxes(deps, [message], 1);
  if (!outcome || outcome.kind === "error") throw outcome?.error ?? new Error("no poll outcome");
  return outcome.results;
}

/**
 * Most boxes one `terminal-polls` batch polls at once. A poll mostly waits (its Tracker, the carrier and terminal
 * sources, D1), so polling one box after another left the consumer idle: `npm run bench -- engine` measured
 * 63.8 polls/s that way, 0.04 of the same consumer acking without work.
 */
export const TERMINAL_POLL_CONCURRENCY = 8;

/**
 * Polls the boxes of one `terminal-polls` batch together ({@link pollBoxes}: terminal queries batched per terminal):
 * the messages of one box (same SCAC and number, hence the same Tracker) are one poll, acked together once it was
 * applied, or all retried in 30 s when it threw, without touching the other boxes' messages.
 */
export async function pollTerminalBatch(
  deps: PollDeps,
  messages: readonly Message<TerminalPollMessage>[],
  concurrency: number = TERMINAL_POLL_CONCURRENCY,
): Promise<void> {
  const byBox = new Map<string, Message<TerminalPollMessage>[]>();
  for (const message of messages) {
    const box = trackerName(message.body.scac, message.body.number);
    const group = byBox.get(box);
    if (group) group.push(message);
    else byBox.set(box, [message]);
  }
  const groups = [...byBox.values()];
  const outcomes = await pollBoxes(
    deps,
    groups.map((g) => (g[0] as Message<TerminalPollMessage>).body),
    concurrency,
  );
  groups.forEach((group, i) => {
    const outcome = outcomes[i];
    for (const message of group) {
      if (outcome?.kind === "polled") message.ack();
      else {
        console.error("terminal-polls: message failed", message.id, String(outcome?.error));
        message.retry({ delaySeconds: 30 });
      }
    }
  });
}

/** Queue consumer of `terminal-polls`: the batch's boxes polled together (`pollTerminalBatch`); a failing box is retried. */
export async function consumeTerminalPolls(batch: MessageBatch<TerminalPollMessage>, env: Env): Promise<void> {
  await pollTerminalBatch({ env }, batch.messages);
}
