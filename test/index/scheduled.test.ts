import { createExecutionContext, createScheduledController, env, waitOnExecutionContext } from "cloudflare:test";
import { expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import worker from "../../src/index";
import { toIsoSeconds } from "../../src/lib/clock";
import { POSITION_RETENTION_DAYS, recordPositions } from "../../src/vessels/position-store";

// The Worker's cron (src/index.ts `scheduled`) reaches vessel positions (docs/architecture.md §Cron): rows past the
// retention are deleted, newer ones kept; without AISSTREAM_API_KEY the AIS feed is left alone.

it("deletes vessel positions older than the retention and keeps the rest", async () => {
  const db = createDatabase(env.DB);
  const now = Date.now();
  const old = now - (POSITION_RETENTION_DAYS + 1) * 86_400_000;
  const fix = (ms: number) => ({
    imo: "9700001",
    mmsi: null,
    latitude: 1,
    longitude: 2,
    speedKnots: null,
    headingDegrees: null,
    timestamp: toIsoSeconds(ms),
    source: "simulator" as const,
  });
  // Written when the old fix was fresh (its clock), then a recent one.
  await recordPositions(db, { positions: [fix(old)] }, old + 60_000);
  await recordPositions(db, { positions: [fix(now - 60_000)] }, now);
  const count = async () =>
    (await env.DB.prepare("SELECT count(*) AS n FROM vessel_positions").first<{ n: number }>())?.n;
  expect(await count()).toBe(2);

  const ctx = createExecutionContext();
  await worker.scheduled?.(createScheduledController({ cron: "* * * * *", scheduledTime: now }), env, ctx);
  await waitOnExecutionContext(ctx);

  const { results } = await env.DB.prepare("SELECT timestamp FROM vessel_positions").all<{ timestamp: string }>();
  expect(results.map((r) => r.timestamp)).toEqual([toIsoSeconds(now - 60_000)]);
});

it("deletes sign-in links a day past their expiry (src/sessions/prune.ts)", async () => {
  const { createAccount } = await import("../helpers/api");
  const { createWebUser } = await import("../helpers/web-session");
  const { createSignInLink } = await import("../../src/sessions/sign-in-links");
  const { accountId } = await createAccount();
  const user = await createWebUser(accountId, "member");
  const now = Date.now();
  await createSignInLink(env.DB, user.userId, now - 3 * 86_400_000);
  const live = await createSignInLink(env.DB, user.userId, now);
  const ctx = createExecutionContext();
  await worker.scheduled?.(createScheduledController({ cron: "* * * * *", scheduledTime: now }), env, ctx);
  await waitOnExecutionContext(ctx);
  const { results } = await env.DB.prepare("SELECT token_hash FROM sign_in_links WHERE user_id = ?1")
    .bind(user.userId)
    .all<{ token_hash: string }>();
  const { sha256Hex } = await import("../../src/lib/crypto");
  expect(results.map((r) => r.token_hash)).toEqual([await sha256Hex(live)]);
});
