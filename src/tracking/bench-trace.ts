import { shardBindingName, shardBindings } from "../db/shards";
import {
  benchCapacityOn,
  benchCapacityRequest,
  capacityEnv,
  countCapacity,
  countQueueBatch,
  meterObjectStorage,
} from "./bench-capacity";
import { countingD1, type D1Counter } from "./bench-d1";
import type { ContainerState, ShipmentState } from "./derive";
import { nextPollDelayMs } from "./schedule";
import { sourcesFor } from "./sources";
import type { TerminalPollMessage } from "./terminal-poll-message";
import { Tracker } from "./tracker";
import type { UpdateOutcome } from "./tracker-state";

export { countingD1, type D1Counter } from "./bench-d1";

/**
 * Bench instrumentation of the poll path, for `npm run bench -- engine` only (bench/engine, bench/README.md), all of
 * it behind this module: the Worker's entry points go through {@link withBenchEngine} and the Tracker Durable Object
 * is {@link BenchTracedTracker} (src/index.ts exports both), and nothing else knows of the bench. Everything is inert
 * unless the Worker variable `BENCH_ENGINE` is set, which no deployed config does (it is not in wrangler.toml; the
 * bench passes it to `wrangler dev` with `--var`; src/bindings.d.ts declares it):
 * - `BENCH_ENGINE=trace`: each Tracker update counts the D1 round trips it makes on every shard (`countingShards`) and writes one
 *   `bench-engine {...}` line to the log (console.warn, so it shows at `--log-level warn`);
 * - `BENCH_ENGINE=noop`: the `terminal-polls` consumer acks every message without polling (the bench's
 *   "same consumer doing no work" baseline) and logs `bench-engine {"noop":n}` per batch;
 * - with either, `POST /__bench/engine/enqueue` ({@link benchEngineRequest}) puts poll messages on the queue.
 */
export type BenchEngineMode = "trace" | "noop" | null;

/** The bench mode of this Worker (`BENCH_ENGINE`), or null (the default: no instrumentation). */
export function benchEngineMode(env: Pick<Env, "BENCH_ENGINE">): BenchEngineMode {
  return env.BENCH_ENGINE === "trace" || env.BENCH_ENGINE === "noop" ? env.BENCH_ENGINE : null;
}

/**
 * `env` with every shard's D1 binding (`DB`, `DB_1`, …: src/db/shards.ts) counting into `counter`: an update's round
 * trips over all the shards it writes.
 */
export function countingShards(env: Env, counter: D1Counter): Env {
  const wrapped: Record<string, D1Database> = {};
  shardBindings(env).forEach((d1, shard) => {
    wrapped[shardBindingName(shard)] = countingD1(d1, counter);
  });
  return { ...env, ...wrapped } as Env;
}

/** Path of the bench's enqueue endpoint (answered only when `BENCH_ENGINE` is set). */
export const BENCH_ENGINE_ENQUEUE_PATH = "/__bench/engine/enqueue";

/**
 * `POST /__bench/engine/enqueue` with a JSON array of `{ scac, number }`: puts one `terminal-polls` message per box
 * on the queue (`sendBatch`, 100 at a time), so the bench can start N polls at once without N HTTP requests.
 * Returns null, and the request goes on to the API as usual, unless `BENCH_ENGINE` is set and the path matches;
 * a body that is not such an array answers 400.
 */
export function benchEngineRequest(
  request: Request,
  env: Pick<Env, "TERMINAL_POLLS_QUEUE" | "BENCH_ENGINE">,
): Promise<Response> | null {
  if (benchEngineMode(env) === null || request.method !== "POST") return null;
  if (new URL(request.url).pathname !== BENCH_ENGINE_ENQUEUE_PATH) return null;
  return (async () => {
    const body: unknown = await request.json().catch(() => null);
    const valid =
      Array.isArray(body) &&
      body.every((b) => typeof b?.scac === "string" && typeof b?.number === "string" && Object.keys(b).length === 2);
    if (!valid) return Response.json({ errors: [{ status: "400", title: "Bad bench enqueue body" }] }, { status: 400 });
    const boxes = body as TerminalPollMessage[];
    for (let i = 0; i < boxes.length; i += 100) {
      await env.TERMINAL_POLLS_QUEUE.sendBatch(boxes.slice(i, i + 100).map((box) => ({ body: box })));
    }
    return Response.json({ enqueued: boxes.length });
  })();
}

/** The handlers {@link withBenchEngine} wraps. */
type BenchEntryPoints = Required<Pick<ExportedHandler<Env>, "fetch" | "queue">>;

/**
 * The Worker's handlers with the bench's entry points (inert unless `BENCH_ENGINE` is set): `fetch` answers
 * {@link BENCH_ENGINE_ENQUEUE_PATH} before the app, and under `BENCH_ENGINE=noop` the `terminal-polls` queue is acked
 * unread (logging `bench-engine {"noop":n}` per batch). Everything else goes to `worker` unchanged.
 */
export function withBenchEngine<H extends ExportedHandler<Env> & BenchEntryPoints>(worker: H): H {
  const entryPoints: BenchEntryPoints & Pick<ExportedHandler<Env>, "scheduled"> = {
    fetch: (request, env, ctx) => {
      const tally = benchCapacityRequest(request, env);
      if (tally) return tally;
      if (benchCapacityOn(env)) countCapacity("worker.fetch");
      return benchEngineRequest(request, env) ?? worker.fetch(request, capacityEnv(env), ctx);
    },
    queue: async (batch, env, ctx) => {
      if (benchCapacityOn(env)) countQueueBatch(batch);
      if (batch.queue === "terminal-polls" && benchEngineMode(env) === "noop") {
        for (const message of batch.messages) message.ack();
        console.warn(`bench-engine ${JSON.stringify({ noop: batch.messages.length })}`);
        return;
      }
      await worker.queue(batch, capacityEnv(env), ctx);
    },
  };
  const { scheduled } = worker;
  if (scheduled) {
    entryPoints.scheduled = async (controller, env, ctx) => {
      if (benchCapacityOn(env)) countCapacity("worker.scheduled");
      await scheduled(controller, capacityEnv(env), ctx);
    };
  }
  return { ...worker, ...entryPoints };
}

/**
 * The Tracker Durable Object (src/tracking/tracker.ts) with the bench's trace: under `BENCH_ENGINE=trace` its D1
 * binding counts round trips ({@link countingD1}), and each update logs one line `bench-engine {"box", "joining",
 * "events", "batches", "statements", "writes", "snapshotBytes"}` (an update that applied facts) or `{..., "failed"}` (a poll
 * rescheduled without news), with that update's round trips only. Without `BENCH_ENGINE=trace` it is the Tracker.
 */
export class BenchTracedTracker extends Tracker {
  /** The current update's D1 round trips; null unless `BENCH_ENGINE=trace`. */
  private readonly d1Count: D1Counter | null;

  constructor(ctx: DurableObjectState, env: Env) {
    const d1Count: D1Counter | null =
      benchEngineMode(env) === "trace" ? { batches: 0, statements: 0, writes: {} } : null;
    const metered = capacityEnv(env);
    super(ctx, d1Count ? countingShards(metered, d1Count) : metered);
    this.d1Count = d1Count;
    if (benchCapacityOn(env)) meterObjectStorage(ctx.storage, "TRACKER");
  }

  override async alarm(...args: Parameters<Tracker["alarm"]>): Promise<void> {
    if (benchCapacityOn(this.env)) countCapacity("do.TRACKER.alarm");
    return super.alarm(...args);
  }

  protected override async update(...args: Parameters<Tracker["update"]>): Promise<UpdateOutcome> {
    const count = this.d1Count;
    if (!count) return super.update(...args);
    Object.assign(count, ZERO, { writes: {} });
    const outcome = await super.update(...args);
    // An update without facts reschedules the box, which logs its own line.
    if (outcome.applied) {
      const [snap, , , nowMs, joining] = args;
      const speedUp = sourcesFor(this.env).speedUpFor(snap.box.scac, snap.box.number);
      const line = {
        box: snap.box.number,
        joining: joining.length,
        events: outcome.events.length,
        ...count,
        at: nowMs,
        status: outcome.currentStatus,
        prodIntervalMs: productionIntervalMs(
          this.snapshot?.state ?? null,
          this.snapshot?.shipmentState ?? null,
          nowMs,
          speedUp,
        ),
      };
      console.warn(`bench-engine ${JSON.stringify({ ...line, snapshotBytes: JSON.stringify(this.snapshot).length })}`);
    }
    return outcome;
  }

  protected override async reschedule(...args: Parameters<Tracker["reschedule"]>): Promise<UpdateOutcome> {
    const count = this.d1Count;
    if (!count) return super.reschedule(...args);
    Object.assign(count, ZERO, { writes: {} });
    const outcome = await super.reschedule(...args);
    const [snap, nowMs, failed] = args;
    const line = { box: snap.box.number, joining: 0, events: 0, ...count, failed, at: nowMs };
    console.warn(`bench-engine ${JSON.stringify(line)}`);
    return outcome;
  }
}

const ZERO: Required<Omit<D1Counter, "writes">> = {
  batches: 0,
  statements: 0,
  rowsRead: 0,
  rowsWritten: 0,
  unmetered: 0,
  sqlMs: 0,
};

/**
 * The interval (ms) production would wait before the next poll of a box in this state (`nextPollDelayMs` at speed-up
 * 1), from a box played `speedUp` times faster: its future times (POD ETA, LFD, inland ETA) are stretched back by
 * `speedUp` around `nowMs`, so the 5 s floor of a fast clock does not hide the schedule. Null without a state, or
 * once the box stopped. For bench/capacity, which converts the polls of a fast run into production's poll count.
 */
export function productionIntervalMs(
  state: ContainerState | null,
  shipment: ShipmentState | null,
  nowMs: number,
  speedUp: number,
): number | null {
  if (!state || !shipment) return null;
  const stretch = (iso: string | null) =>
    iso === null ? null : new Date(nowMs + (Date.parse(iso) - nowMs) * speedUp).toISOString();
  return nextPollDelayMs(
    { ...state, pickupLfd: stretch(state.pickupLfd), indEtaAt: stretch(state.indEtaAt) },
    { ...shipment, podEtaAt: stretch(shipment.podEtaAt) },
    nowMs,
    1,
  );
}
