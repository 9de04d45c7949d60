import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Test files that touch no storage, queue or Durable Object and no Worker request: pure functions and injected
 * fakes only. They run in the "unit" project with `isolate: false`, so one workerd serves them all instead of a fresh
 * Miniflare (process start, the whole module graph fetched and evaluated, migrations) per file, the cost that
 * dominates the suite (about 8 s a file on the 2-core CI machine against 10-800 ms of tests each). Each file is still
 * evaluated on its own with its own hooks; what they share is module state (`src` caches keyed by their inputs, the
 * injected-fetch seams their files reset in afterEach). A file that starts using `env`, `exports` or a helper that
 * reaches D1 (test/helpers/api.ts, engine.ts, tracking.ts, terminal-engine.ts) must leave this list.
 */
const UNIT_FILES = [
  "test/callbacks/signatures.unit.test.ts",
  "test/infer/classify.unit.test.ts",
  "test/infer/iso6346.unit.test.ts",
  "test/infer/predict.unit.test.ts",
  "test/infer/tables.unit.test.ts",
  "test/lib/http-routes.unit.test.ts",
  "test/lib/jsonapi/include-registry.unit.test.ts",
  "test/lib/jsonapi/pagination.unit.test.ts",
  "test/lib/read-path-helpers.unit.test.ts",
  "test/lib/time-zones.unit.test.ts",
  "test/lib/validation.unit.test.ts",
  "test/mcp/pure-parts.unit.test.ts",
  "test/middleware/active-key-index.unit.test.ts",
  "test/ratelimit/coalescer.unit.test.ts",
  "test/ratelimit/sliding-log.unit.test.ts",
  "test/reference/equipment.unit.test.ts",
  "test/reference/locations.unit.test.ts",
  "test/terminals/provided-data.unit.test.ts",
  "test/tracking/derive.unit.test.ts",
  "test/tracking/events.unit.test.ts",
  "test/tracking/poll-slots.unit.test.ts",
  "test/tracking/schedule.unit.test.ts",
  "test/tracking/simulator/simulator.unit.test.ts",
  "test/tracking/sources/dcsa.unit.test.ts",
  "test/tracking/sources/terminal-operators/config.unit.test.ts",
  "test/tracking/sources/terminal-operators/http.unit.test.ts",
  "test/tracking/sources/terminal-operators/port-qualified-facilities.unit.test.ts",
  "test/tracking/sources/timestamps.unit.test.ts",
  "test/tracking/status.unit.test.ts",
  "test/tracking/terminal-milestones.unit.test.ts",
  "test/tracking/tracker-state.unit.test.ts",
  "test/webhooks/payloads.unit.test.ts",
  "test/webhooks/send.unit.test.ts",
  "test/webhooks/signature.unit.test.ts",
  "test/webhooks/ssrf.unit.test.ts",
];

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            // Exact auth in tests: a revoked key must fail on the very next request.
            AUTH_CACHE_TTL_SECONDS: "0",
            // No failure throttle across the suite (test files send bad keys freely); test/auth-flood.test.ts turns
            // it on explicitly.
            AUTH_FAILURES_PER_MINUTE: "0",
          },
          // Tests never reach the network: outbound requests go to an injected fetch or a local receiver, and
          // anything that slips through to the Worker's global fetch gets this answer instead of leaving the machine.
          outboundService: (request: Request) =>
            new Response(`blocked in tests: outbound request to ${new URL(request.url).host}`, { status: 503 }),
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      // Integration tests drive real D1, Durable Objects and queues in workerd; on a busy 2-core machine a long
      // simulated journey can take several seconds, so the 5 s default would fail them by chance.
      testTimeout: 30_000,
      // UNIT_FILES share one worker (see above); every other file runs in the "workers" project, isolated: its own
      // Miniflare, so its own D1, Durable Objects and queues, and fresh module state. `include` is set per project
      // only: `extends: true` concatenates arrays, so a top-level include would put every file in "unit" as well.
      projects: [
        { extends: true, test: { name: "unit", include: UNIT_FILES, isolate: false } },
        {
          extends: true,
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: [...configDefaults.exclude, ...UNIT_FILES],
          },
        },
      ],
      // One test file per CPU. Vitest's default leaves a core idle, which on a 2-core machine runs the files one at a
      // time (468 s for the suite here, against 221 s with both cores).
      maxWorkers: "100%",
    },
  };
});
