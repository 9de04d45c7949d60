import { defineConfig } from "drizzle-kit";

/** drizzle-kit reads the schema and writes SQL migrations that wrangler applies to D1. */
export default defineConfig({
  dialect: "sqlite",
  schema: "./src/db/schema/index.ts",
  out: "./migrations",
});
