import { countingD1, type D1Counter } from "./bench-d1";

/**
 * Bench instrumentation of what a tracked box costs on Cloudflare's meters, for `npm run bench -- capacity` only
 * (bench/capacity, bench/README.md §bench/capacity, docs/SCALING.md §Capacity and cost per box). Inert unless the
 * Worker variable `BENCH_CAPACITY` is `1`, which no deployed config sets (it is not in wrangler.toml; the bench passes
 * it to `wrangler dev` with `--var`; src/bindings.d.ts declares it). When on, the Worker's entry points
 * (`withBenchEngine`, src/tracking/bench-trace.ts) and the Tracker Durable Object see {@link capacityEnv}: the same
 * bindings, each counted into one per-isolate tally ({@link capacityCounts}):
 * - `worker.fetch`, `worker.scheduled`, `worker.queue.<queue>.invocations` / `.messages` / `.redelivered`
 *   (messages whose `attempts` > 1): Workers requests and queue reads;
 * - `queue.<binding>.sent`: messages written (`send` = 1, `sendBatch` = its length);
 * - `do.<binding>.requests`, `do.<binding>.<method>`, `do.<binding>.wallMs`: calls through a Durable Object stub
 *   (RPC methods and `fetch`) and their wall time as the caller saw it; `do.<binding>.alarm`: alarms the object ran;
 * - `d1.<binding>.batches` / `.statements` / `.rowsRead` / `.rowsWritten` / `.sqlMs` / `.unmetered`: round trips,
 *   statements, `meta.rows_read` / `meta.rows_written` as D1 returns them (D1's billing meters) and `meta.duration`;
 *   `unmetered` counts the statements run with `raw()`, whose answer carries no meta (not in those sums);
 *   `d1heavy.<first 120 characters of the SQL>.statements` / `.rowsRead`: statements that read ≥ 100 rows;
 * - `outbound.<host>`: `fetch()` calls of the isolate to another host (webhook deliveries, carriers, terminals);
 * - `dostorage.<class>.<method>` and `dostorage.<class>.rowsRead` / `.rowsWritten`: the Durable Object's own storage
 *   calls ({@link meterObjectStorage}), with the rows they are billed as on a SQLite-backed object.
 * `GET /__bench/capacity` answers the tally as JSON ({@link benchCapacityRequest}; it is not counted itself).
 */
export const BENCH_CAPACITY_PATH = "/__bench/capacity";

/** Whether the capacity meters are on for this Worker (`BENCH_CAPACITY=1`); off everywhere but the bench. */
export function benchCapacityOn(env: Pick<Env, "BENCH_CAPACITY">): boolean {
  return env.BENCH_CAPACITY === "1";
}

const counts = new Map<string, number>();

/** Adds `n` to the tally's `key`. */
export function countCapacity(key: string, n = 1): void {
  counts.set(key, (counts.get(key) ?? 0) + n);
}

/** The isolate's tally so far, as a plain object (keys as listed in the module's description; all numbers). */
export function capacityCounts(): Record<string, number> {
  return Object.fromEntries([...counts.entries()].sort(([a], [b]) => a.localeCompare(b)));
}

/** Clears the tally (tests). */
export function resetCapacityCounts(): void {
  counts.clear();
}

type Binding = Record<string, unknown>;

function isD1(v: Binding): boolean {
  return typeof v.prepare === "function" && typeof v.batch === "function" && typeof v.exec === "function";
}
function isQueue(v: Binding): boolean {
  return typeof v.send === "function" && typeof v.sendBatch === "function";
}
function isNamespace(v: Binding): boolean {
  return typeof v.idFromName === "function" && typeof v.get === "function";
}

/** A D1 binding whose round trips, statements and metered rows go to the tally under `d1.<name>.…`. */
function meteredD1(db: D1Database, name: string): D1Database {
  const counter: D1Counter = new Proxy({} as D1Counter, {
    get: () => 0,
    set: (_t, prop, value: number) => {
      // countingD1 only ever adds (`counter.x += n`): the proxy reads 0 and is handed the increment.
      countCapacity(`d1.${name}.${String(prop)}`, value);
      return true;
    },
  });
  return countingD1(db, counter, (sql, meta) => {
    const read = meta.rows_read ?? 0;
    if (read < HEAVY_ROWS_READ) return;
    // The statements that read the most rows, by their SQL's first characters (bounded: one key per query shape).
    const key = `d1heavy.${sql.replace(/\s+/g, " ").trim().slice(0, 120)}`;
    countCapacity(`${key}.statements`);
    countCapacity(`${key}.rowsRead`, read);
  });
}

/** A statement reading at least this many rows is tallied by its SQL too (`d1heavy.<sql>.statements/.rowsRead`). */
const HEAVY_ROWS_READ = 100;

function queueWithCount(queue: Queue, name: string): Queue {
  return {
    send: (body: unknown, options?: QueueSendOptions) => {
      countCapacity(`queue.${name}.sent`);
      return queue.send(body, options);
    },
    sendBatch: (messages: Iterable<MessageSendRequest>, options?: QueueSendBatchOptions) => {
      const list = [...messages];
      countCapacity(`queue.${name}.sent`, list.length);
      return queue.sendBatch(list, options);
    },
  } as Queue;
}

/** A stub whose method calls (RPC and `fetch`) are counted and timed (wall, as the caller sees them). */
function stubWithCount<T extends object>(stub: T, name: string): T {
  return new Proxy(stub, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof prop === "symbol" || prop === "then" || typeof value !== "function") return value;
      return (...args: unknown[]) => {
        countCapacity(`do.${name}.requests`);
        countCapacity(`do.${name}.${prop}`);
        const started = Date.now();
        const result = Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
        const done = () => countCapacity(`do.${name}.wallMs`, Date.now() - started);
        Promise.resolve(result).then(done, done);
        return result;
      };
    },
  });
}

function namespaceWithCount(ns: DurableObjectNamespace, name: string): DurableObjectNamespace {
  return new Proxy(ns, {
    get(target, prop) {
      const value = Reflect.get(target, prop);
      if (typeof value !== "function") return value;
      if (prop === "get" || prop === "getByName") {
        return (...args: unknown[]) =>
          stubWithCount(Reflect.apply(value as (...a: unknown[]) => object, target, args), name);
      }
      return (value as (...a: unknown[]) => unknown).bind(target);
    },
  });
}

const wrapped = new WeakMap<object, Env>();

/**
 * `env` with its D1 databases, queues and Durable Object namespaces counted into the tally (the same object for the
 * same `env`, so per-binding caches keep working), and the isolate's global `fetch` counted once. `env` itself when
 * `BENCH_CAPACITY` is not `1`.
 */
export function capacityEnv(env: Env): Env {
  if (!benchCapacityOn(env)) return env;
  const known = wrapped.get(env);
  if (known) return known;
  installOutboundCount();
  const out: Record<string, unknown> = { ...env };
  for (const [name, value] of Object.entries(env)) {
    if (value === null || typeof value !== "object") continue;
    const b = value as Binding;
    if (isD1(b)) out[name] = meteredD1(value as D1Database, name);
    else if (isQueue(b)) out[name] = queueWithCount(value as Queue, name);
    else if (isNamespace(b)) out[name] = namespaceWithCount(value as DurableObjectNamespace, name);
  }
  const result = out as unknown as Env;
  wrapped.set(env, result);
  return result;
}

let outboundInstalled = false;

function installOutboundCount(): void {
  if (outboundInstalled) return;
  outboundInstalled = true;
  const original = globalThis.fetch;
  globalThis.fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    let host = "unknown";
    try {
      host = new URL(input instanceof Request ? input.url : String(input)).host;
    } catch {
      // counted as unknown
    }
    countCapacity(`outbound.${host}`);
    return original(input, init);
  }) as typeof fetch;
}

/**
 * Rows a storage call of a SQLite-backed Durable Object is billed as: its key-value methods read and write the
 * hidden SQLite table `__cf_kv` (https://developers.cloudflare.com/durable-objects/api/storage-api/, footnote 2), so
 * each key read is taken as one row read and each key written or deleted as one row written; an alarm set or deleted
 * as one row written (a third-party summary of the pricing page says `setAlarm()` is billed so; the stored official
 * page does not show it). `getAlarm` is counted but billed as nothing here. The bench's assumption, named so in
 * docs/SCALING.md §Monthly cost.
 */
const STORAGE_ROWS: Record<string, (args: unknown[]) => { read: number; written: number }> = {
  get: ([keys]) => ({ read: Array.isArray(keys) ? keys.length : 1, written: 0 }),
  put: ([keyOrEntries]) => ({
    read: 0,
    written: typeof keyOrEntries === "string" ? 1 : Object.keys(keyOrEntries as object).length,
  }),
  delete: ([keys]) => ({ read: 0, written: Array.isArray(keys) ? keys.length : 1 }),
  setAlarm: () => ({ read: 0, written: 1 }),
  deleteAlarm: () => ({ read: 0, written: 1 }),
  getAlarm: () => ({ read: 0, written: 0 }),
};

/**
 * Counts the key-value and alarm calls of a Durable Object's `storage` (under `dostorage.<className>.…`, rows as
 * {@link STORAGE_ROWS} bills them) by shadowing those methods on this one storage object; the calls themselves are
 * unchanged. For the bench's Tracker (src/tracking/bench-trace.ts) under `BENCH_CAPACITY=1` only. `list`,
 * `deleteAll`, `transaction` and `sql` are not used by the Tracker and are left alone.
 */
export function meterObjectStorage(storage: DurableObjectStorage, className: string): void {
  const target = storage as unknown as Record<string, unknown>;
  for (const [method, rows] of Object.entries(STORAGE_ROWS)) {
    const original = target[method];
    if (typeof original !== "function") continue;
    target[method] = (...args: unknown[]) => {
      const { read, written } = rows(args);
      countCapacity(`dostorage.${className}.${method}`);
      if (read) countCapacity(`dostorage.${className}.rowsRead`, read);
      if (written) countCapacity(`dostorage.${className}.rowsWritten`, written);
      return (original as (...a: unknown[]) => unknown).apply(storage, args);
    };
  }
}

/** Counts one queue consumer invocation of `batch` (Workers request, messages read, redeliveries). */
export function countQueueBatch(batch: MessageBatch<unknown>): void {
  const q = batch.queue;
  countCapacity(`worker.queue.${q}.invocations`);
  countCapacity(`worker.queue.${q}.messages`, batch.messages.length);
  const again = batch.messages.filter((m) => m.attempts > 1).length;
  if (again > 0) countCapacity(`worker.queue.${q}.redelivered`, again);
}

/**
 * `GET /__bench/capacity`: the tally as JSON, under `BENCH_CAPACITY=1` only; null otherwise (the request goes on to
 * the app, where the path does not exist).
 */
export function benchCapacityRequest(request: Request, env: Pick<Env, "BENCH_CAPACITY">): Response | null {
  if (!benchCapacityOn(env) || request.method !== "GET") return null;
  if (new URL(request.url).pathname !== BENCH_CAPACITY_PATH) return null;
  return Response.json(capacityCounts());
}
