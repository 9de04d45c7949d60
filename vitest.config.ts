import { resolve } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { fetch as miniflareFetch } from "miniflare";
import { configDefaults, defineConfig } from "vitest/config";

/**
 * Where a test lives says what it tests and how it runs (docs/architecture.md §Tests). test/ mirrors src/: the tests
 * of src/<path>/ are in test/<path>/, whole-app tests in test/app/ (after src/app.ts), shared helpers and fixtures in
 * test/helpers/ and test/fixtures/; no test basename twice. A file named `*.unit.test.ts` touches no storage, queue
 * or Durable Object and sends no Worker request (pure functions and injected fakes only; none of test/helpers/api.ts,
 * engine.ts, tracking.ts or terminal-engine.ts, which reach D1): those run in the "unit" project with
 * `isolate: false`, so one workerd serves them all instead of a fresh Miniflare per file (process start, the whole
 * module graph fetched and evaluated, migrations), the cost that dominates the suite (about 8 s a file on the 2-core
 * CI machine against 10-800 ms of tests each). Each file is still evaluated on its own with its own hooks; what they
 * share is module state (`src` caches keyed by their inputs, the injected-fetch seams their files reset in
 * afterEach). Every other `*.test.ts` is an integration test in the "workers" project. A unit file that starts using
 * `env`, `exports` or a helper that reaches D1 drops `.unit` from its name.
 */
const UNIT_TESTS = "test/**/*.unit.test.ts";

export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          // A second shard (src/db/shards.ts): empty until a test prepares it (test/helpers/shards.ts
          // `prepareSecondShard`), so files that never use it pay nothing for it.
          d1Databases: { DB_1: "shard-1" },
          bindings: {
            TEST_MIGRATIONS: migrations,
            // Exact auth in tests: a revoked key must fail on the very next request.
            AUTH_CACHE_TTL_SECONDS: "0",
            // No failure throttle across the suite (test files send bad keys freely);
            // test/middleware/auth-flood.test.ts turns it on explicitly.
            AUTH_FAILURES_PER_MINUTE: "0",
            // The document upload flow's HMAC key (src/documents/signing.ts); a fixed test value.
            DOCUMENT_SIGNING_KEY: "test-document-signing-key-0123456789abcdef",
            // E-mail submissions go to documents+<token>@ this domain (src/documents/email-intake.ts).
            EMAIL_SUBMISSION_DOMAIN: "inbound.example.com",
          },
          // Tests never reach the network: outbound requests go to an injected fetch or a local receiver, and
          // anything that slips through to the Worker's global fetch gets this answer instead of leaving the machine.
          // The one exception is the fake AIS server (test/fixtures/fake-ais-global-setup.ts) on 127.0.0.1: the AisFeed
          // object's WebSocket reaches it through Miniflare's fetch, which carries the upgrade; so are the local alert
          // receivers (test/fixtures/alert-receivers-global-setup.ts), which the alert channels POST to.
          outboundService: (request: Request) => {
            const url = new URL(request.url);
            const local = [process.env.FAKE_AIS_PORTS, process.env.LOCAL_RECEIVER_PORTS].join(",").split(",");
            if (url.hostname === "127.0.0.1" && url.port !== "" && local.includes(url.port)) {
              return miniflareFetch(request as never, {}) as unknown as Promise<Response>;
            }
            return new Response(`blocked in tests: outbound request to ${url.host}`, { status: 503 });
          },
        },
      }),
    ],
    // date-holidays-parser requires moment-timezone, whose CommonJS `require("moment")` the Workers pool would resolve to
    // moment's ES build (`jsnext:main`); the CommonJS file is what it expects (src/charges/holidays.ts).
    resolve: {
      alias: [{ find: /^moment$/, replacement: resolve("node_modules/moment/moment.js") }],
    },
    test: {
      setupFiles: ["./test/setup.ts"],
      globalSetup: ["./test/fixtures/fake-ais-global-setup.ts", "./test/fixtures/alert-receivers-global-setup.ts"],
      // Integration tests drive real D1, Durable Objects and queues in workerd; on a busy 2-core machine a long
      // simulated journey can take several seconds, so the 5 s default would fail them by chance.
      testTimeout: 30_000,
      // Unit tests share one worker (see above); every other file runs in the "workers" project, isolated: its own
      // Miniflare, so its own D1, Durable Objects and queues, and fresh module state. `include` is set per project
      // only: `extends: true` concatenates arrays, so a top-level include would put every file in "unit" as well.
      projects: [
        { extends: true, test: { name: "unit", include: [UNIT_TESTS], isolate: false } },
        {
          extends: true,
          test: {
            name: "workers",
            include: ["test/**/*.test.ts"],
            exclude: [...configDefaults.exclude, UNIT_TESTS],
          },
        },
      ],
      // One test file per CPU. Vitest's default leaves a core idle, which on a 2-core machine runs the files one at a
      // time (468 s for the suite here, against 221 s with both cores).
      maxWorkers: "100%",
    },
  };
});
