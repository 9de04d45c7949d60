import { applyD1Migrations, env } from "cloudflare:test";
import { setShapeVerification } from "../src/db/query-shapes";
import { seedReferenceData } from "../src/reference/seed";
// Every resource type registered for `include`, as the Worker's entry point does, for tests that serialize directly.
import "../src/resource-types";

// Every test file starts from the real schema (migrations/ as drizzle-kit wrote them) and the reference data.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedReferenceData(env.DB);
// The second shard (DB_1) gets the schema too, as every bound shard of a deployment has it: reads that walk every
// shard (a vessel's names, src/vessels/service.ts; cron sweeps) find empty tables there, not missing ones. About
// 0.3–0.5 s per file on the shared machine; its reference data is left to the files that put accounts there
// (test/helpers/shards.ts `prepareSecondShard`).
if (env.DB_1) await applyD1Migrations(env.DB_1, env.TEST_MIGRATIONS);

// Every shaped read (src/db/query-shapes.ts) rebuilds its queries on each cache hit and throws when the cached SQL
// differs: a shape key that misses an input, or a request value closed over instead of a placeholder, fails the
// test that sent it. The tests and the Worker share module state, so this reaches the Worker's reads too.
setShapeVerification(true);
