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
          },
        },
      }),
    ],
    test: {
      setupFiles: ["./test/setup.ts"],
      include: ["test/**/*.test.ts"],
      // Integration tests drive real D1, Durable Objects and queues in workerd; on a busy 2-core machine a long
      // simulated journey can take several seconds, so the 5 s default would fail them by chance.
      testTimeout: 30_000,
    },
  };
});
