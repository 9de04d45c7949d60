import { applyD1Migrations, env } from "cloudflare:test";
import { setShapeVerification } from "../src/db/query-shapes";
import { seedReferenceData } from "../src/reference/seed";
// Every resource type registered for `include`, as the Worker's entry point does, for tests that serialize directly.
import "../src/resource-types";

// Every test file starts from the real schema (migrations/ as drizzle-kit wrote them) and the reference data.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedReferenceData(env.DB);

// Every shaped read (src/db/query-shapes.ts) rebuilds its queries on each cache hit and throws when the cached SQL
// differs: a shape key that misses an input, or a request value closed over instead of a placeholder, fails the
// test that sent it. The tests and the Worker share module state, so this reaches the Worker's reads too.
setShapeVerification(true);
