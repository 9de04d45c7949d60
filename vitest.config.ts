import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

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
      include: ["test/**/*.test.ts"],
      // Integration tests drive real D1, Durable Objects and queues in workerd; on a busy 2-core machine a long
      // simulated journey can take several seconds, so the 5 s default would fail them by chance.
      testTimeout: 30_000,
      // One test file per CPU. Vitest's default leaves a core idle, which on a 2-core machine runs the files one at a
      // time (468 s for the suite here, against 221 s with both cores).
      maxWorkers: "100%",
    },
  };
});
