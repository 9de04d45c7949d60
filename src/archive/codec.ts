import { type Column, getTableColumns, type Table } from "drizzle-orm";

/**
 * The archive's object format (docs/SCALING.md §Retention and archive): NDJSON, one D1 row a line exactly as stored
 * (column names and driver values as `SELECT *` returns them: booleans 0/1, JSON columns as their text), gzip'd.
 */

/** A row as D1 returns it from `SELECT *`: column name → stored value. */
export type StoredRow = Record<string, unknown>;

/** Lowercase hex of the SHA-256 of `bytes`. */
export async function sha256HexOf(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
  let hex = "";
  for (const b of digest) hex += b.toString(16).padStart(2, "0");
  return hex;
}

/** Reads a stream to one byte array. */
async function collect(stream: ReadableStream<Uint8Array>): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    size += value.byteLength;
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.byteLength;
  }
  return out;
}

/** Gzip'd NDJSON of `rows` (one `JSON.stringify` line each, `\n`-terminated), through the runtime's CompressionStream. */
export async function encodeNdjsonGz(rows: readonly StoredRow[]): Promise<Uint8Array> {
  let text = "";
  for (const row of rows) text += `${JSON.stringify(row)}\n`;
  const input = new Blob([text]).stream();
  return collect(input.pipeThrough(new CompressionStream("gzip")));
}

/**
 * The rows of a gzip'd NDJSON object (`encodeNdjsonGz`'s inverse). With `needle`, only lines containing it are parsed
 * (a cheap substring test first: a point read of one notification or one container's rows skips the JSON.parse of the
 * object's other lines; callers still check the parsed rows).
 * @throws on corrupt gzip or a line that is not JSON.
 */
export async function decodeNdjsonGz(bytes: Uint8Array, needle?: string): Promise<StoredRow[]> {
  const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  const out: StoredRow[] = [];
  for (const line of text.split("\n")) {
    if (line === "" || (needle !== undefined && !line.includes(needle))) continue;
    out.push(JSON.parse(line) as StoredRow);
  }
  return out;
}

/**
 * A stored row as drizzle would return it for `table` (property names, each column's decoder: booleans, JSON), so an
 * archived row serialises byte for byte as the D1 row did. Columns absent from the line read as null.
 */
export function rowFromStored<T extends Table>(table: T, stored: StoredRow): T["$inferSelect"] {
  const out: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table)) as [string, Column][]) {
    const value = stored[column.name];
    out[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return out as T["$inferSelect"];
}
