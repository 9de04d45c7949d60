// Types of `env` (cloudflare:test) and `exports` (cloudflare:workers) in tests: the Worker's own bindings plus
// the test-only TEST_MIGRATIONS binding set in vitest.config.ts.
type WorkerEnvForTests = import("../src/env").Env;

declare namespace Cloudflare {
  interface Env extends WorkerEnvForTests {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
  interface GlobalProps {
    mainModule: typeof import("../src/index");
    durableNamespaces: "RateLimiter";
  }
}
