/**
 * Drizzle schema of the D1 database (docs/architecture.md §Data model). Migrations in `migrations/` are generated from
 * it.
 */
export * from "./accounts";
export * from "./alerts";
export * from "./archive";
export * from "./custom-fields";
export * from "./documents";
export * from "./imports";
export * from "./maintenance";
export * from "./outages";
export * from "./reference";
export * from "./search";
export * from "./tariffs";
export * from "./tracking";
export * from "./upstream";
export * from "./users";
export * from "./vessels";
export * from "./webhooks";
