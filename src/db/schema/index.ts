/** Drizzle schema of the D1 database (DESIGN.md §3). Migrations in `migrations/` are generated from it. */
export * from "./accounts";
export * from "./reference";
export * from "./tracking";
export * from "./webhooks";
export * from "./upstream";
export * from "./outages";
