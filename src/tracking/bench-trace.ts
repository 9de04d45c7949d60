import { shardBindingName, shardBindings } from "../db/shards";
import type { TerminalPollMessage } from "./terminal-poll-message";
import { Tracker } from "./tracker";
import type { UpdateOutcome } from "./tracker-state";

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
 * D1 round trips counted by {@link countingD1}: `batches` (a `batch()` or one statement run alone), `statements`,
 * and, when the counter has a `writes` object, the write statements of its batches by kind.
 */
export interface D1Counter {
  batches: number;
  statements: number;
  /**
   * Per kind of write (`insert transport_events`, `update containers`, `delete …`; reads are not listed): how many
   * statements of a `batch()` were of that kind and the rows they changed (D1's `meta.changes`: rows inserted,
   * updated or deleted by the statement itself, not by its triggers). Filled only when present.
   */
  writes?: Record<string, { statements: number; changes: number }>;
}

const RAW = Symbol("bench-trace.raw");
const SQL = Symbol("bench-trace.sql");
type Wrapped = D1PreparedStatement & { [RAW]: D1PreparedStatement; [SQL]: string };

/** `insert <table>`, `update <table>` or `delete <table>` for a write statement drizzle built; null for a read. */
export function writeKind(query: string): string | null {
  const m = /^\s*(insert|update|delete)\s+(?:into\s+|from\s+)?"?(\w+)"?/is.exec(query);
  return m ? `${m[1]?.toLowerCase()} ${m[2]}` : null;
}

function wrapStatement(stmt: D1PreparedStatement, counter: D1Counter, query: string): Wrapped {
  const once = () => {
    counter.batches += 1;
    counter.statements += 1;
  };
  return {
    [RAW]: stmt,
    [SQL]: query,
    bind: (...values: unknown[]) => wrapStatement(stmt.bind(...values), counter, query),
    first: ((column?: string) => {
      once();
      return column === undefined ? stmt.first() : stmt.first(column);
    }) as D1PreparedStatement["first"],
    run: (() => {
      once();
      return stmt.run();
    }) as D1PreparedStatement["run"],
    all: (() => {
      once();
      return stmt.all();
    }) as D1PreparedStatement["all"],
    raw: ((options?: { columnNames?: boolean }) => {
      once();
      return stmt.raw(options as { columnNames: true });
    }) as D1PreparedStatement["raw"],
  } as Wrapped;
}

/**
 * `db` with every round trip counted into `counter` (a `batch()` is one round trip of its statements; a statement
 * run on its own is one of one). Used only under `BENCH_ENGINE=trace`.
 */
export function countingD1(db: D1Database, counter: D1Counter): D1Database {
  return {
    prepare: (query: string) => wrapStatement(db.prepare(query), counter, query),
    batch: async <T = unknown>(statements: D1PreparedStatement[]) => {
      counter.batches += 1;
      counter.statements += statements.length;
      const results = await db.batch<T>(statements.map((s) => (s as Partial<Wrapped>)[RAW] ?? s));
      const writes = counter.writes;
      if (writes) {
        statements.forEach((s, i) => {
          const query = (s as Partial<Wrapped>)[SQL];
          const kind = query === undefined ? null : writeKind(query);
          if (kind === null) return;
          const w = writes[kind] ?? { statements: 0, changes: 0 };
          w.statements += 1;
          w.changes += results[i]?.meta?.changes ?? 0;
          writes[kind] = w;
        });
      }
      return results;
    },
    exec: (query: string) => {
      counter.batches += 1;
      counter.statements += 1;
      return db.exec(query);
    },
    dump: () => db.dump(),
    withSession: (constraint?: string) => db.withSession(constraint),
  } as D1Database;
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
  const entryPoints: BenchEntryPoints = {
    fetch: (request, env, ctx) => benchEngineRequest(request, env) ?? worker.fetch(request, env, ctx),
    queue: async (batch, env, ctx) => {
      if (batch.queue === "terminal-polls" && benchEngineMode(env) === "noop") {
        for (const message of batch.messages) message.ack();
        console.warn(`bench-engine ${JSON.stringify({ noop: batch.messages.length })}`);
        return;
      }
      await worker.queue(batch, env, ctx);
    },
  };
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
    super(ctx, d1Count ? countingShards(env, d1Count) : env);
    this.d1Count = d1Count;
  }

  protected override async update(...args: Parameters<Tracker["update"]>): Promise<UpdateOutcome> {
    const count = this.d1Count;
    if (!count) return super.update(...args);
    Object.assign(count, { batches: 0, statements: 0, writes: {} });
    const outcome = await super.update(...args);
    // An update without facts reschedules the box, which logs its own line.
    if (outcome.applied) {
      const [snap, , , , joining] = args;
      const line = { box: snap.box.number, joining: joining.length, events: outcome.events.length, ...count };
      console.warn(`bench-engine ${JSON.stringify({ ...line, snapshotBytes: JSON.stringify(this.snapshot).length })}`);
    }
    return outcome;
  }

  protected override async reschedule(...args: Parameters<Tracker["reschedule"]>): Promise<UpdateOutcome> {
    const count = this.d1Count;
    if (!count) return super.reschedule(...args);
    Object.assign(count, { batches: 0, statements: 0, writes: {} });
    const outcome = await super.reschedule(...args);
    const [snap, , failed] = args;
    console.warn(`bench-engine ${JSON.stringify({ box: snap.box.number, joining: 0, events: 0, ...count, failed })}`);
    return outcome;
  }
}
