import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

/** The typed database handle services take as a dependency. */
export type Database = DrizzleD1Database<typeof schema>;

/** One drizzle handle per D1 binding: building one walks the whole schema (about 1 ms of CPU), so it is done once. */
const handles = new WeakMap<D1Database, Database>();

/**
 * Wraps the D1 binding in drizzle with the project schema, once per binding per isolate (bindings outlive
 * requests; the handle keeps no per-request state).
 */
export function createDatabase(d1: D1Database): Database {
  let db = handles.get(d1);
  if (!db) {
    db = drizzle(d1, { schema });
    handles.set(d1, db);
  }
  return db;
}
