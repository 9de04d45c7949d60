#!/usr/bin/env node
// `npm run seed [-- --remote]`: applies the D1 migrations and upserts the reference data (ports and terminals, which
// `npm run data` compiles from data/ into src/reference/generated) into the local database, or the deployed one with
// --remote.
// Idempotent: run it after every `npm run data`. `npm start` does the same for the local database.
import { referenceSeedRowCounts, referenceSeedStatements } from "../src/reference/seed.ts";
import { applyMigrations, d1ExecuteStatements } from "./lib/wrangler.mjs";

const remote = process.argv.includes("--remote");
await applyMigrations({ remote });
const statements = referenceSeedStatements();
await d1ExecuteStatements(statements, { remote });
const rows = referenceSeedRowCounts();
console.log(
  `seed: ${rows.ports} ports and ${rows.terminals} terminals upserted (${statements.length} statements; unchanged rows untouched) into the ${remote ? "remote" : "local"} D1 database`,
);
