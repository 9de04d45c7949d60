#!/usr/bin/env node
// `npm run seed [-- --remote]`: applies the D1 migrations and upserts the reference data (ports and terminals, which
// `npm run data` compiles from data/ into src/reference/generated) into every shard (docs/SCALING.md §Shards): the local
// databases npm start runs (DB and DB_1), or with --remote the deployed ones bound in wrangler.toml (DB, DB_1, …).
// Every shard holds the reference data, so account rows join ports and terminals locally.
// Idempotent: run it after every `npm run data`, and after binding a new shard. `npm start` does the same locally.
import { referenceSeedRowCounts, referenceSeedStatements } from "../src/reference/seed.ts";
import { scriptShards } from "./lib/shards.mjs";
import { applyMigrations, d1ExecuteStatements } from "./lib/wrangler.mjs";

const remote = process.argv.includes("--remote");
const { bindings, config } = scriptShards({ remote });
const statements = referenceSeedStatements();
const rows = referenceSeedRowCounts();
for (const binding of bindings) {
  await applyMigrations({ remote, binding, config });
  await d1ExecuteStatements(statements, { remote, binding, config });
  console.log(
    `seed: ${rows.ports} ports and ${rows.terminals} terminals upserted (${statements.length} statements; unchanged rows untouched) into ${binding}, the ${remote ? "remote" : "local"} D1 database`,
  );
}
