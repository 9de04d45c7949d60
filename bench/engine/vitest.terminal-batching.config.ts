import { resolve } from "node:path";
import { cloudflareTest, readD1Migrations } from "@cloudflare/vitest-plugin";
import { defineConfig } from "vitest/config";

// `npm run bench -- terminal-batching` (bench/engine/terminal-batching.mjs) runs bench/engine/terminal-batching.bench.ts
// with this config: the project's Worker in workerd as in the tests (vitest.config.ts), plus BENCH_ENGINE=trace (the
// Trackers count their D1 round trips) and the number of boxes.
export default defineConfig(async () => {
  const migrations = await readD1Migrations("./migrations");
  return {
    plugins: [
      cloudflareTest({
        wrangler: { configPath: "./wrangler.toml" },
        miniflare: {
          bindings: {
            TEST_MIGRATIONS: migrations,
            BENCH_ENGINE: "trace",
            BENCH_TB_BOXES: process.env.BENCH_TB_BOXES ?? "1000",
            BENCH_TB_LATENCY_MS: process.env.BENCH_TB_LATENCY_MS ?? "100",
          },
          outboundService: (request: Request) =>
            new Response(`blocked in the bench: outbound request to ${new URL(request.url).host}`, { status: 503 }),
        },
      }),
    ],
    // As vitest.config.ts: moment-timezone (date-holidays, src/charges/holidays.ts) needs moment's CommonJS file.
    resolve: {
      alias: [{ find: /^moment$/, replacement: resolve("node_modules/moment/moment.js") }],
    },
    test: {
      setupFiles: ["./test/setup.ts"],
      include: ["bench/engine/terminal-batching.bench.ts"],
      testTimeout: 3_600_000,
      maxWorkers: 1,
    },
  };
});
