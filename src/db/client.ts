import { type DrizzleD1Database, drizzle } from "drizzle-orm/d1";
import * as schema from "./schema";

/** The typed database handle services take as a dependency. */
export type Database = DrizzleD1Database<typeof schema>;

/** Wraps the D1 binding in drizzle with the project schema. Cheap: call once per request. */
export function createDatabase(d1: D1Database): Database {
  return drizzle(d1, { schema });
}
