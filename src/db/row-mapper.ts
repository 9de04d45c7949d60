/** A value decoder of drizzle's (a column, or the decoder of a SQL expression such as `count()`). */
interface DriverDecoder {
  mapFromDriverValue(value: unknown): unknown;
}

/**
 * What the read paths need of a drizzle prepared query (drizzle-orm 0.45 `D1PreparedQuery`, internal API:
 * `fields`, `customResultMapper`, `stmt`, `getQuery`, `mapAllResult`).
 */
export interface PreparedRead {
  fields?: { path: string[]; field: unknown }[];
  customResultMapper?: unknown;
  stmt: D1PreparedStatement;
  getQuery(): { sql: string; params: unknown[] };
  mapAllResult(result: unknown, fromBatch: boolean): unknown[];
}

/** How to turn one D1 result row into the object drizzle would return: keys and decoders in column order. */
export interface RowMapper {
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

/**
 * The fast row mapper of a prepared query, or null when drizzle must map its rows itself: only flat selections
 * (no joins, no nested objects, no custom result mapper) whose every field has a decoder take the fast path.
 */
export function rowMapperOf(prepared: PreparedRead): RowMapper | null {
  const fields = prepared.fields;
  if (!fields || prepared.customResultMapper || !fields.every((f) => f.path.length === 1)) return null;
  const decoders = fields.map((f) => decoderOf(f.field));
  if (!decoders.every((d) => d !== null)) return null;
  return { keys: fields.map((f) => f.path[0] as string), decoders };
}

/** `rowMapperOf`, cached by the query's SQL text (for ad-hoc queries, rebuilt on every request). */
export function cachedRowMapper(prepared: PreparedRead, sql: string): RowMapper | null {
  const cached = mappers.get(sql);
  if (cached !== undefined) return cached;
  const mapper = rowMapperOf(prepared);
  if (mappers.size >= MAX_MAPPERS) mappers.clear();
  mappers.set(sql, mapper);
  return mapper;
}

/**
 * One D1 batch result as the rows drizzle would return for the query: through `mapper` (one loop per row) when
 * there is one, else through drizzle's own `mapAllResult`. D1 answers a batch with one object per row whose keys
 * are in column order, which is what drizzle's own batch path relies on too (so a selection must not repeat a
 * column name).
 */
export function mapBatchResult(result: D1Result, prepared: PreparedRead, mapper: RowMapper | null): unknown[] {
  if (!mapper) return prepared.mapAllResult(result, true);
  const rows = (result.results ?? []) as Record<string, unknown>[];
  const { keys, decoders } = mapper;
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
}
