// Types of `env` (cloudflare:test) in tests: the Worker's own bindings (`Cloudflare.Env`, worker-configuration.d.ts
// and src/bindings.d.ts) plus the test-only TEST_MIGRATIONS binding set in vitest.config.ts. `exports`
// (cloudflare:workers) is typed by the generated `Cloudflare.GlobalProps`.

declare namespace Cloudflare {
  interface Env {
    TEST_MIGRATIONS: import("cloudflare:test").D1Migration[];
  }
}
