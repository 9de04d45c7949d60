import { is, Param, Placeholder, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "./client";
import { type PreparedRead, type RowMapper, rowMapperOf } from "./row-mapper";

/**
 * Query shapes: read queries built and compiled by drizzle once per isolate, then only bound per request.
 *
 * Why: a CPU profile of `npm run bench -- api` under load showed drizzle's query building (`is()` checks in
 * entity.js, chunk building in sql.js, `dialect.buildSelectQuery`, the query builders) costing about 0.95 ms per
 * `GET /v2/containers/{id}` and 1.9 ms per `GET /v2/containers?page[size]=30&include=shipment`, out of about 8 and
 * 11 ms of CPU the single-threaded local workerd spends per request. The SQL text of those reads depends only on
 * their shape (which filters are present, which includes), never on the values, so it is built once with named
 * placeholders (`sql.placeholder(name)`) and each request only fills the values in and binds them.
 *
 * THE RULE FOR SHAPE KEYS: a shape is cached under the key its caller gives, so the key must name every input
 * that changes the SQL text or the list of queries — the resource/table, which filters are active (by name, not
 * value), which includes are prefetched, whether an OFFSET clause is present, the number of ids in an IN list —
 * and the builder must take every request value (account id, ids, filter values, page size/offset) from a
 * placeholder, never from a variable it closes over. A wrong key sends another shape's SQL; a closed-over value
 * would be frozen into the cached statement and bound for the next request (another account's id!). Tests turn
 * on `setShapeVerification(true)`, which rebuilds the queries on every cache hit and throws when the SQL text or
 * a constant parameter differs from the cached shape's.
 *
 * Uses drizzle's internal prepared-query API (`_prepare`, `stmt`, `fields`, the `Param`/`Placeholder` chunks of
 * `getQuery().params`), pinned with drizzle-orm 0.45.4 like `readBatch`; test/db/query-shapes.test.ts checks
 * every hot read's SQL and parameters against drizzle's own build of the same query with values.
 */

/** The values of a shape's placeholders, by placeholder name. */
export type ShapeValues = Readonly<Record<string, unknown>>;

/** What a driver-value encoder does (a column's `mapToDriverValue`). */
interface DriverEncoder {
  mapToDriverValue(value: unknown): unknown;
}

/** One bound parameter of a compiled query: a placeholder to fill (with its encoder, if any) or a constant. */
export interface ParamSlot {
  /** Placeholder name, or undefined for a constant (a value written into the query at build time). */
  name: string | undefined;
  /** The constant (when `name` is undefined). */
  constant: unknown;
  /** The encoder of a `Param` that wraps a placeholder (`sql.param(sql.placeholder(n), column)`). */
  encoder: DriverEncoder | undefined;
}

/** One compiled read query of a shape: its SQL text, its D1 statement (prepared once), slots and row mapping. */
export interface CompiledQuery {
  sql: string;
  stmt: D1PreparedStatement;
  slots: ParamSlot[];
  mapper: RowMapper | null;
  prepared: PreparedRead;
}

/** A compiled shape: the queries one builder returned, in order. */
export interface QueryShape {
  key: string;
  queries: CompiledQuery[];
}

/**
 * A shape with the values of one request, ready to go into `readMany` (src/db/read-batch.ts) beside ad-hoc queries: it
 * contributes one statement (and one result) per query of the shape, in order.
 */
export class ShapedRead {
  constructor(
    readonly shape: QueryShape,
    readonly values: ShapeValues,
  ) {}

  /** The D1 statements of the shape bound to `values`. @throws Error when a placeholder has no value. */
  statements(): D1PreparedStatement[] {
    const { key, queries } = this.shape;
    const params = queries.map((q) => fillSlots(key, q.slots, this.values));
    if (tracer)
      tracer(
        key,
        queries.map((q, i) => ({ sql: q.sql, params: params[i] as unknown[] })),
      );
    return queries.map((q, i) => q.stmt.bind(...(params[i] as unknown[])));
  }
}

/** A named placeholder, bound at request time from the values given to `shaped` (drizzle `sql.placeholder`). */
export function placeholder(name: string): Placeholder {
  return sql.placeholder(name);
}

/** Longest id list `idList` shapes (one shape per length; longer lists are built ad hoc so they do not crowd the cache). */
export const MAX_SHAPED_IDS = 16;

/**
 * Most ids one statement binds in an `IN (…)` list: D1 binds at most 100 parameters a statement
 * (developers.cloudflare.com D1 limits), and a read by id also binds the account and a few more. Reads of more ids
 * go in chunks of this size (a shipment or a document may name hundreds of boxes; a page holds up to 100 rows).
 */
export const MAX_IDS_PER_STATEMENT = 90;

/**
 * `read` over `items` in chunks of at most {@link MAX_IDS_PER_STATEMENT}, one chunk after the other, results
 * concatenated in chunk order: for reads that bind one parameter per item. Up to that many items it is one call.
 */
export async function inIdChunks<T, R>(items: readonly T[], read: (chunk: T[]) => Promise<R[]>): Promise<R[]> {
  if (items.length <= MAX_IDS_PER_STATEMENT) return read([...items]);
  const out: R[] = [];
  for (let i = 0; i < items.length; i += MAX_IDS_PER_STATEMENT) {
    out.push(...(await read(items.slice(i, i + MAX_IDS_PER_STATEMENT))));
  }
  return out;
}

/**
 * Placeholders for a list of `count` ids (`inArray(column, placeholders)` → `IN (?, ?, …)`, the SQL of the same
 * list of values) and the values binding `ids` to them. The list's length changes the SQL, so it belongs in the
 * shape key (`idList(...).key`).
 */
export function idList(
  name: string,
  ids: readonly string[],
): { key: string; placeholders: Placeholder[]; values: Record<string, string> } {
  const placeholders: Placeholder[] = [];
  const values: Record<string, string> = {};
  for (let i = 0; i < ids.length; i++) {
    placeholders.push(sql.placeholder(`${name}${i}`));
    values[`${name}${i}`] = ids[i] as string;
  }
  return { key: `${name}[${ids.length}]`, placeholders, values };
}

/** Most shapes one Database handle keeps; the oldest is dropped beyond (keys are few: filter/include combinations). */
export const MAX_SHAPES = 256;

const caches = new WeakMap<Database, Map<string, QueryShape>>();
let verify = false;
let tracer: ShapeTracer | undefined;

/** Sees every shaped read as it is bound: its key and, per query, the SQL text and parameters (tests). */
export type ShapeTracer = (key: string, statements: { sql: string; params: unknown[] }[]) => void;

/** Sets (or clears, with undefined) the tracer of shaped reads: tests check the SQL and values each read sends. */
export function traceShapes(fn: ShapeTracer | undefined): void {
  tracer = fn;
}

/**
 * Turns the shape check on or off (tests): when on, every cache hit rebuilds the shape's queries and throws when
 * their SQL text or constant parameters differ from the cached shape's — a key that misses an input.
 */
export function setShapeVerification(on: boolean): void {
  verify = on;
}

/**
 * The shape cached under `key` for this Database handle (built by `build` and compiled on first use) with this
 * request's `values`. `build` must return read queries (SELECTs, for `readMany`) or writes (for `runShaped`, src/db/read-batch.ts)
 * whose request values are all placeholders; it
 * runs once per key per isolate (and on every use while verification is on). See the rule for keys above.
 * @throws Error when verification is on and the key does not determine the SQL.
 */
export function shaped(
  db: Database,
  key: string,
  build: () => readonly BatchItem<"sqlite">[],
  values: ShapeValues,
): ShapedRead {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let shape = cache.get(key);
  if (shape) stats.hits++;
  else stats.misses++;
  if (!shape) {
    shape = compileShape(key, build());
    if (cache.size >= MAX_SHAPES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(key, shape);
  } else if (verify) {
    checkShape(shape, compileShape(key, build()));
  }
  return new ShapedRead(shape, values);
}

const stats = { hits: 0, misses: 0 };

/**
 * Cache hits and misses of `shaped` in this isolate since it started, over all handles (tests and benchmarks: a
 * steady load should only hit; misses that keep growing mean a key with a request value in it).
 */
export function shapeStats(): { hits: number; misses: number } {
  return { ...stats };
}

/** How many shapes this handle holds (tests: the cache stays bounded). */
export function shapeCount(db: Database): number {
  return caches.get(db)?.size ?? 0;
}

/** Whether a shape is cached under `key` for this handle (tests). */
export function hasShape(db: Database, key: string): boolean {
  return caches.get(db)?.has(key) ?? false;
}

/** Compiles the queries of a shape: SQL text, D1 statement, parameter slots and row mapper, once. */
export function compileShape(key: string, queries: readonly BatchItem<"sqlite">[]): QueryShape {
  return {
    key,
    queries: queries.map((q) => {
      const prepared = (q as unknown as { _prepare(): PreparedRead })._prepare();
      const { sql: text, params } = prepared.getQuery();
      return { sql: text, stmt: prepared.stmt, slots: params.map(slotOf), mapper: rowMapperOf(prepared), prepared };
    }),
  };
}

function slotOf(p: unknown): ParamSlot {
  if (is(p, Placeholder)) return { name: p.name, constant: undefined, encoder: undefined };
  if (is(p, Param) && is(p.value, Placeholder)) {
    return { name: p.value.name, constant: undefined, encoder: p.encoder as DriverEncoder };
  }
  return { name: undefined, constant: p, encoder: undefined };
}

/**
 * The parameters to bind, in order: constants as compiled, placeholders from `values` (through their encoder).
 * A replacement for drizzle's `fillPlaceholders`, which runs `is()` on every parameter of every request.
 * @throws Error naming the shape and placeholder when a value is missing or undefined (a programming error).
 */
export function fillSlots(key: string, slots: readonly ParamSlot[], values: ShapeValues): unknown[] {
  const out = new Array<unknown>(slots.length);
  for (let i = 0; i < slots.length; i++) {
    const slot = slots[i] as ParamSlot;
    if (slot.name === undefined) {
      out[i] = slot.constant;
      continue;
    }
    const v = values[slot.name];
    if (v === undefined) throw new Error(`Query shape "${key}": no value for placeholder "${slot.name}"`);
    out[i] = slot.encoder && v !== null ? slot.encoder.mapToDriverValue(v) : v;
  }
  return out;
}

function checkShape(cached: QueryShape, fresh: QueryShape): void {
  const describe = (s: QueryShape) =>
    JSON.stringify(
      s.queries.map((q) => [q.sql, q.slots.map((p) => (p.name === undefined ? ["=", p.constant] : p.name))]),
    );
  const a = describe(cached);
  const b = describe(fresh);
  if (a !== b) {
    throw new Error(`Query shape "${cached.key}" does not determine its SQL: cached ${a}, rebuilt ${b}`);
  }
}
