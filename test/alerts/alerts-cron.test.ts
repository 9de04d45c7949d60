import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildDigests, evaluateTimeDrivenAlerts, runAlertsCron } from "../../src/alerts/cron";
import { createAlertRule, updateAlertRule, updateAlertSettings } from "../../src/alerts/rule-service";
import { createDatabase } from "../../src/db/client";
import { FakeClock } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { createAccount, type TestAccount } from "../helpers/api";
import { recordingQueue } from "../helpers/engine";

// The cron's date-driven alerts on rows written straight into D1: the candidate queries (free time, charges, empty
// return, tracking failed) across time zones, once per episode, bounded and enqueued; the digest hour in the
// account's time zone.

const db = () => createDatabase(env.DB);

/** Writes a shipment and one box of `account` with the given container columns (snake_case). */
async function box(account: TestAccount, columns: Record<string, unknown>, shipment: Record<string, unknown> = {}) {
  const shipmentId = newId();
  const id = newId();
  const now = "2030-01-01T00:00:00Z";
  const s = {
    id: shipmentId,
    account_id: account.accountId,
    bill_of_lading_number: "BL1",
    normalized_number: "BL1",
    shipping_line_scac: "MSCU",
    created_at: now,
    updated_at: now,
    ...shipment,
  };
  const c = {
    id,
    account_id: account.accountId,
    shipment_id: shipmentId,
    number: `MSCU${Math.floor(Math.random() * 1e7)}`,
    scac: "MSCU",
    created_at: now,
    updated_at: now,
    ...columns,
  };
  const insert = (table: string, row: Record<string, unknown>) =>
    env.DB.prepare(
      `INSERT INTO ${table} (${Object.keys(row).join(", ")}) VALUES (${Object.keys(row)
        .map((_, i) => `?${i + 1}`)
        .join(", ")})`,
    ).bind(...Object.values(row));
  await env.DB.batch([insert("shipments", s), insert("containers", c)]);
  return id;
}

async function alertKeys(accountId: string) {
  const { results } = await env.DB.prepare(
    "SELECT container_id, condition, episode_key, status FROM alerts WHERE account_id = ?1 ORDER BY episode_key",
  )
    .bind(accountId)
    .all<{ container_id: string; condition: string; episode_key: string; status: string }>();
  return results;
}

describe("the alerts cron", () => {
  it("raises each date-driven alert once, in the box's local dates, and enqueues it", async () => {
    const account = await createAccount();
    // 2030-03-04 17:00Z: 09:00 in Los Angeles, 18:00 in Rotterdam, 01:00 on 03-05 in Shanghai.
    const clock = new FakeClock(Date.UTC(2030, 2, 4, 17, 0, 0));
    const deps = { db: db(), clock, allowInsecureHosts: [] };
    const mail = (condition: string, extra: Record<string, unknown> = {}) =>
      createAlertRule(deps, account.accountId, {
        condition,
        channel: { type: "email", address: "ops@example.com" },
        ...extra,
      });
    const ending = await mail("free_time_ending", { threshold_days: 0 });
    await mail("charges_accruing");
    await mail("empty_return_due", { threshold_days: 1 });
    await mail("tracking_failed");
    // LFD 2030-03-05 local at each port (local midnight, as UTC).
    const lax = await box(account, {
      pod_timezone: "America/Los_Angeles",
      pod_locode: "USLAX",
      pickup_lfd: "2030-03-05T08:00:00Z",
    });
    const rtm = await box(account, {
      pod_timezone: "Europe/Amsterdam",
      pod_locode: "NLRTM",
      pickup_lfd: "2030-03-04T23:00:00Z",
    });
    const sha = await box(account, {
      pod_timezone: "Asia/Shanghai",
      pod_locode: "CNSHA",
      pickup_lfd: "2030-03-04T16:00:00Z",
    });
    // Past its LFD (2030-03-02 local) and not out: charges accrue.
    const late = await box(account, { pod_timezone: "America/Los_Angeles", pickup_lfd: "2030-03-02T08:00:00Z" });
    // Out on 2030-03-01 local: the empty is due on 03-05, tomorrow in Los Angeles.
    const out = await box(account, { pod_timezone: "America/Los_Angeles", pod_full_out_at: "2030-03-01T20:00:00Z" });
    // Out and back: nothing.
    await box(account, {
      pod_timezone: "America/Los_Angeles",
      pod_full_out_at: "2030-03-01T20:00:00Z",
      empty_terminated_at: "2030-03-02T20:00:00Z",
    });
    const failing = await box(account, {
      terminal_tracking_failed_reason: "terminal_unreachable",
      pod_last_tracking_request_at: "2030-03-01T00:00:00Z",
    });
    const queue = recordingQueue<never>();
    const written = await evaluateTimeDrivenAlerts({ DB: env.DB, WEBHOOK_DELIVERIES_QUEUE: queue }, clock.now());
    const keys = await alertKeys(account.accountId);
    const of = (id: string) => keys.filter((k) => k.container_id === id).map((k) => k.condition);
    // Free time ends today only in Shanghai (already 03-05 there); tomorrow in Los Angeles and Rotterdam.
    expect(of(sha)).toEqual(["free_time_ending"]);
    expect(of(lax)).toEqual([]);
    expect(of(rtm)).toEqual([]);
    expect(of(late)).toEqual(["charges_accruing"]);
    expect(of(out)).toEqual(["empty_return_due"]);
    expect(of(failing)).toEqual(["tracking_failed"]);
    expect(written).toBe(4);
    expect(queue.sent).toHaveLength(4);
    // Again: nothing new.
    expect(await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now())).toBe(0);
    // The next local day: Los Angeles and Rotterdam are at their LFD; Shanghai's episode is not raised again.
    clock.set(Date.UTC(2030, 2, 5, 17, 0, 0));
    await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now());
    const next = await alertKeys(account.accountId);
    expect(
      next
        .filter((k) => k.condition === "free_time_ending")
        .map((k) => k.container_id)
        .sort(),
    ).toEqual([lax, rtm, sha].sort());
    // Shanghai's free time has ended now (03-06 local): charges accrue there.
    expect(
      next
        .filter((k) => k.container_id === sha)
        .map((k) => k.condition)
        .sort(),
    ).toEqual(["charges_accruing", "free_time_ending"]);
    // A new LFD for Los Angeles is a new episode.
    await env.DB.prepare("UPDATE containers SET pickup_lfd = '2030-03-07T08:00:00Z' WHERE id = ?1").bind(lax).run();
    await updateAlertRuleThreshold(account, ending.id, 2, clock);
    await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now());
    const lfds = (await alertKeys(account.accountId)).filter((k) => k.container_id === lax).map((k) => k.episode_key);
    expect(lfds).toEqual(["free_time:2030-03-05T08:00:00Z", "free_time:2030-03-07T08:00:00Z"]);
  });

  it("builds the digest at the account's local hour, once per local date; another account's alerts stay out", async () => {
    const account = await createAccount();
    const other = await createAccount("Other");
    const clock = new FakeClock(Date.UTC(2030, 2, 4, 17, 0, 0));
    for (const a of [account, other]) {
      const deps = { db: db(), clock, allowInsecureHosts: [] };
      await updateAlertSettings(deps, a.accountId, { time_zone: "Asia/Tokyo", digest_hour: 7 });
      await createAlertRule(deps, a.accountId, {
        condition: "tracking_failed",
        delivery: "digest",
        channel: { type: "email", address: `${a.accountId}@example.com` },
      });
      await box(a, { terminal_tracking_failed_reason: "terminal_unreachable" });
      await box(a, { terminal_tracking_failed_reason: "terminal_unreachable" });
    }
    await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now());
    // 02:00 in Tokyo: not yet.
    expect(await buildDigests({ DB: env.DB }, clock.now())).toBe(0);
    // 07:30 in Tokyo.
    clock.set(Date.UTC(2030, 2, 4, 22, 30, 0));
    const report = await runAlertsCron({ ...env, WEBHOOK_DELIVERIES_QUEUE: recordingQueue() } as Env, clock);
    expect(report.digestsWritten).toBe(2);
    const { results } = await env.DB.prepare(
      "SELECT account_id, facts FROM alerts WHERE kind = 'digest' ORDER BY account_id",
    ).all<{ account_id: string; facts: string }>();
    for (const a of [account, other]) {
      const digest = results.filter((r) => r.account_id === a.accountId);
      expect(digest).toHaveLength(1);
      const facts = JSON.parse(digest[0]?.facts ?? "{}") as { local_date: string; alerts: { container_id: string }[] };
      expect(facts.local_date).toBe("2030-03-05");
      expect(facts.alerts).toHaveLength(2);
    }
    expect(await buildDigests({ DB: env.DB }, clock.now() + 3600_000)).toBe(0);
  });
});

async function updateAlertRuleThreshold(account: TestAccount, ruleId: string, days: number, clock: FakeClock) {
  await updateAlertRule({ db: db(), clock, allowInsecureHosts: [] }, account.accountId, ruleId, {
    threshold_days: days,
  });
}
