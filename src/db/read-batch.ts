import type { BatchItem, BatchResponse } from "drizzle-orm/batch";
import type { Database } from "./client";

/** A value decoder of drizzle's (a column, or the decoder of a SQL expression such as `count()`). */
interface DriverDecoder {
  mapFromDriverValue(value: unknown): unknown;
}

/** What `readBatch` needs of a drizzle prepared query (drizzle-orm 0.45 `D1PreparedQuery`, internal API). */
interface PreparedRead {
  fields?: { path: string[]; field: unknown }[];
  customResultMapper?: unknown;
  stmt: D1PreparedStatement;
  getQuery(): { sql: string; params: unknown[] };
}

/** How to turn one D1 result row into the object drizzle would return: keys and decoders in column order. */
interface RowMapper {
  keys: string[];
  decoders: (DriverDecoder | null)[];
}

/** Mappers by SQL text: a query's shape (its selected fields) is fixed by its text. Bounded. */
const mappers = new Map<string, RowMapper | null>();
const MAX_MAPPERS = 512;

function decoderOf(field: unknown): DriverDecoder | null {
  const f = field as { mapFromDriverValue?: unknown; decoder?: unknown; sql?: { decoder?: unknown } };
  if (typeof f.mapFromDriverValue === "function") return f as DriverDecoder;
  const d = (f.decoder ?? f.sql?.decoder) as DriverDecoder | undefined;
  return d && typeof d.mapFromDriverValue === "function" ? d : null;
}

function mapperFor(prepared: PreparedRead, sql: string): RowMapper | null {
  const cached = mappers.get(sql);
  if (cached !== undefined) return cached;
  let mapper: RowMapper | null = null;
  const fields = prepared.fields;
  // Only flat selections (no joins, no nested objects) take the fast path; everything else keeps drizzle's mapping.
  if (fields && !prepared.customResultMapper && fields.every((f) => f.path.length === 1)) {
    const decoders = fields.map((f) => decoderOf(f.field));
    if (decoders.every((d) => d !== null)) mapper = { keys: fields.map((f) => f.path[0] as string), decoders };
  }
  if (mappers.size >= MAX_MAPPERS) mappers.clear();
  mappers.set(sql, mapper);
  return mapper;
}

/**
 * Runs read queries built with drizzle in one D1 batch (one round trip), like `db.batch`, and returns each query's
 * rows exactly as `db.batch` would (objects keyed by the selection's keys, values decoded by the columns: JSON,
 * booleans …).
 *
 * Why not `db.batch`: drizzle 0.45 maps a D1 batch result row by row through `Object.keys` → array →
 * `mapResultRow`, which checks every cell's field class (`is(field, Column)`) on every row; on a list page with its
 * includes that was about a tenth of the Worker's CPU per request (`npm run bench -- api`, CPU profile). Here the
 * keys and decoders of a query shape are worked out once (cached by SQL text) and each row is one loop. D1 answers a
 * batch with one object per row whose keys are in column order, which is what drizzle's own batch path relies on
 * too (so, like it, a selection must not repeat a column name).
 *
 * Only for SELECTs with a flat selection; any other query in the batch is mapped by drizzle itself. Uses drizzle's
 * internal prepared-query API (`_prepare`, `fields`, `stmt`), pinned with drizzle-orm 0.45.4 and covered by every
 * list and read test.
 * @throws whatever D1 throws for the batch (nothing is partially applied: these are reads).
 */
export async function readBatch<U extends BatchItem<"sqlite">, T extends Readonly<[U, ...U[]]>>(
  db: Database,
  queries: T,
): Promise<BatchResponse<T>> {
  const prepared = queries.map((q) => (q as unknown as { _prepare(): PreparedRead })._prepare());
  const statements: D1PreparedStatement[] = [];
  const shapes: (RowMapper | null)[] = [];
  for (const p of prepared) {
    const { sql, params } = p.getQuery();
    statements.push(p.stmt.bind(...params));
    shapes.push(mapperFor(p, sql));
  }
  const d1 = (db as unknown as { $client: D1Database }).$client;
  const results = await d1.batch(statements);
  return results.map((result, i): unknown => {
    const shape = shapes[i];
    const rows = (result.results ?? []) as Record<string, unknown>[];
    if (!shape) {
      return (prepared[i] as unknown as { mapAllResult(r: unknown, fromBatch: boolean): unknown[] }).mapAllResult(
        result,
        true,
      );
    }
    const { keys, decoders } = shape;
    const n = keys.length;
    const out = new Array<Record<string, unknown>>(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const values = Object.values(rows[r] as Record<string, unknown>);
      const obj: Record<string, unknown> = {};
      for (let c = 0; c < n; c++) {
        const v = values[c];
        obj[keys[c] as string] =
          v === null || v === undefined ? null : (decoders[c] as DriverDecoder).mapFromDriverValue(v);
      }
      out[r] = obj;
    }
    return out;
  }) as BatchResponse<T>;
}
