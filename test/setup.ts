import { applyD1Migrations, env } from "cloudflare:test";
import { seedReferenceData } from "../src/reference/seed";

// Every test file starts from the real schema (migrations/ as drizzle-kit wrote them) and the reference data.
await applyD1Migrations(env.DB, env.TEST_MIGRATIONS);
await seedReferenceData(env.DB);
