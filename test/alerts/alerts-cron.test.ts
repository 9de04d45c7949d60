import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { buildDigests, evaluateTimeDrivenAlerts, runAlertsCron } from "../../src/alerts/cron";
import { createAlertRule, updateAlertRule, updateAlertSettings } from "../../src/alerts/rule-service";
import { chargesWebhookEvents } from "../../src/alerts/webhook-events";
import { createDatabase } from "../../src/db/client";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { createTariff, updateTariff } from "../../src/tariffs/service";
import { createAccount, type TestAccount } from "../helpers/api";
import { recordingQueue } from "../helpers/engine";
import { insertWebhook, notificationsOf } from "../helpers/receiver";

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
    // The empty return is due 4 calendar days after the full-out's local date (a detention tariff of the account);
    // demurrage is priced only at USOAK (5 calendar free days from discharge): elsewhere the terminal LFD alone.
    const detention = await createTariff(deps, account.accountId, {
      kind: "detention",
      free_days: 4,
      clock_starts_at: "full_out",
      tiers: [{ from_day: 1, to_day: null, rate_per_day: "100.00", currency_code: "USD" }],
    });
    const oakland = await createTariff(deps, account.accountId, {
      kind: "demurrage",
      name: "Oakland",
      port_code: "USOAK",
      free_days: 4,
      clock_starts_at: "discharged",
      tiers: [{ from_day: 1, to_day: null, rate_per_day: "150.00", currency_code: "USD" }],
    });
    const discharged = "2030-02-28T18:00:00Z";
    // LFD 2030-03-05 local at each port (the terminal's, local midnight as UTC).
    const lax = await box(account, {
      pod_timezone: "America/Los_Angeles",
      pod_locode: "USLAX",
      pod_discharged_at: discharged,
      pickup_lfd_terminal: "2030-03-05T08:00:00Z",
    });
    const rtm = await box(account, {
      pod_timezone: "Europe/Amsterdam",
      pod_locode: "NLRTM",
      pod_discharged_at: discharged,
      pickup_lfd_terminal: "2030-03-04T23:00:00Z",
    });
    const sha = await box(account, {
      pod_timezone: "Asia/Shanghai",
      pod_locode: "CNSHA",
      pod_discharged_at: discharged,
      pickup_lfd_terminal: "2030-03-04T16:00:00Z",
    });
    // Past its LFD (2030-03-02 local) and not out: charges accrue.
    const late = await box(account, {
      pod_timezone: "America/Los_Angeles",
      pod_discharged_at: "2030-02-25T18:00:00Z",
      pickup_lfd_terminal: "2030-03-02T08:00:00Z",
    });
    // No terminal LFD at USOAK: the tariff's 4 free days from 02-28 (local) end on 03-04, today in Los Angeles.
    const calculated = await box(account, {
      pod_timezone: "America/Los_Angeles",
      pod_locode: "USOAK",
      pod_discharged_at: discharged,
    });
    // No terminal LFD and no tariff of its port: no known free time, nothing.
    const unknown = await box(account, {
      pod_timezone: "America/Los_Angeles",
      pod_locode: "USLAX",
      pod_discharged_at: "2030-02-20T18:00:00Z",
    });
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
    expect(of(calculated)).toEqual(["free_time_ending"]);
    expect(of(unknown)).toEqual([]);
    expect(of(out)).toEqual(["empty_return_due"]);
    expect(of(failing)).toEqual(["tracking_failed"]);
    expect(written).toBe(5);
    expect(queue.sent).toHaveLength(5);
    expect(keys.find((k) => k.container_id === calculated)?.episode_key).toBe("free_time:2030-03-04");
    expect(keys.find((k) => k.container_id === sha)?.episode_key).toBe("free_time:2030-03-05");
    // The message carries the calculator's amounts: the empty return's detention, the tariff's free time.
    const facts = async (id: string) =>
      JSON.parse(
        (await env.DB.prepare("SELECT facts FROM alerts WHERE container_id = ?1").bind(id).first<{ facts: string }>())
          ?.facts ?? "{}",
      ) as { cost: string | null; charge: { basis: string; tariff_id: string | null } | null };
    expect(await facts(out)).toMatchObject({
      cost: "USD 0.00 in detention to date; USD 0.00 if returned tomorrow",
      charge: { basis: "tariff", tariff_id: detention.id },
    });
    expect(await facts(calculated)).toMatchObject({
      cost: "USD 0.00 in demurrage to date; USD 150.00 if out tomorrow",
      charge: { basis: "tariff", tariff_id: oakland.id },
    });
    expect(await facts(late)).toMatchObject({ cost: null, charge: { basis: "terminal_lfd", tariff_id: null } });
    // Again: nothing new.
    expect(await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now())).toBe(0);
    // The next local day: Los Angeles and Rotterdam are at their LFD; Shanghai's and USOAK's episodes are not raised
    // again.
    clock.set(Date.UTC(2030, 2, 5, 17, 0, 0));
    await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now());
    const next = await alertKeys(account.accountId);
    expect(
      next
        .filter((k) => k.condition === "free_time_ending")
        .map((k) => k.container_id)
        .sort(),
    ).toEqual([lax, rtm, sha, calculated].sort());
    // Shanghai's free time has ended now (03-06 local): charges accrue there.
    expect(
      next
        .filter((k) => k.container_id === sha)
        .map((k) => k.condition)
        .sort(),
    ).toEqual(["charges_accruing", "free_time_ending"]);
    // The calculated LFD has passed: demurrage accrues at USOAK (03-05 local, the first chargeable day).
    expect(
      next
        .filter((k) => k.container_id === calculated)
        .map((k) => k.episode_key)
        .sort(),
    ).toEqual(["charges:2030-03-04", "free_time:2030-03-04"]);
    // A new LFD for Los Angeles (the tracker writes the row) is a new episode.
    clock.set(Date.UTC(2030, 2, 5, 17, 1, 0));
    await env.DB.prepare(
      "UPDATE containers SET pickup_lfd_terminal = '2030-03-07T08:00:00Z', updated_at = ?2 WHERE id = ?1",
    )
      .bind(lax, toIsoSeconds(clock.now()))
      .run();
    await updateAlertRuleThreshold(account, ending.id, 2, clock);
    // A tariff edit that moves the calculated LFD (6 free days: 03-06) alerts again, once.
    await updateTariff(deps, account.accountId, oakland.id, { free_days: 6 });
    clock.set(Date.UTC(2030, 2, 5, 17, 2, 0));
    await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now());
    const lfds = (await alertKeys(account.accountId)).filter((k) => k.container_id === lax).map((k) => k.episode_key);
    expect(lfds).toEqual(["free_time:2030-03-05", "free_time:2030-03-07"]);
    const moved = (await alertKeys(account.accountId)).filter((k) => k.container_id === calculated);
    expect(moved.map((k) => k.episode_key)).toEqual([
      "charges:2030-03-04",
      "free_time:2030-03-04",
      "free_time:2030-03-06",
    ]);
    clock.set(Date.UTC(2030, 2, 5, 17, 3, 0));
    expect(await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now())).toBe(0);
    expect((await alertKeys(account.accountId)).filter((k) => k.container_id === calculated)).toHaveLength(3);
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

describe("the charges webhook events", () => {
  it("announce a calculated LFD once per event and LFD; without a tariff or terminal LFD, nothing", async () => {
    const account = await createAccount();
    const bare = await createAccount("No tariffs");
    const clock = new FakeClock(Date.UTC(2030, 2, 4, 17, 0, 0));
    const deps = { db: db(), clock, allowInsecureHosts: [] };
    const events = ["container.free_time.ending_soon", "container.charges.started"];
    const hook = await insertWebhook(account, { events });
    const bareHook = await insertWebhook(bare, { events });
    await createTariff(deps, account.accountId, {
      kind: "demurrage",
      free_days: 4,
      clock_starts_at: "discharged",
      tiers: [{ from_day: 1, to_day: null, rate_per_day: "150.00", currency_code: "USD" }],
    });
    // Discharged 02-28 local in Los Angeles: free time ends at 03-05 00:00 local (08:00Z), within 24 h.
    const columns = { pod_timezone: "America/Los_Angeles", pod_discharged_at: "2030-02-28T18:00:00Z" };
    const id = await box(account, columns);
    await box(bare, columns);
    expect(await chargesWebhookEvents({ DB: env.DB }, clock.now())).toBe(1);
    expect(await chargesWebhookEvents({ DB: env.DB }, clock.now())).toBe(0);
    clock.set(Date.UTC(2030, 2, 5, 17, 0, 0));
    expect(await chargesWebhookEvents({ DB: env.DB }, clock.now())).toBe(1);
    clock.set(Date.UTC(2030, 2, 5, 17, 5, 0));
    expect(await chargesWebhookEvents({ DB: env.DB }, clock.now())).toBe(0);
    const notices = await notificationsOf(hook.id);
    expect(notices.map((n) => [n.event, n.reference_object_id])).toEqual([
      ["container.free_time.ending_soon", id],
      ["container.charges.started", id],
    ]);
    expect(await notificationsOf(bareHook.id)).toEqual([]);
    // No detention tariff: an empty out for weeks has no known due date, so no empty_return_due alert.
    await createAlertRule(deps, bare.accountId, {
      condition: "empty_return_due",
      threshold_days: 3,
      channel: { type: "email", address: "ops@example.com" },
    });
    await box(bare, { pod_timezone: "America/Los_Angeles", pod_full_out_at: "2030-02-01T20:00:00Z" });
    await evaluateTimeDrivenAlerts({ DB: env.DB }, clock.now());
    expect(await alertKeys(bare.accountId)).toEqual([]);
  });
});

async function updateAlertRuleThreshold(account: TestAccount, ruleId: string, days: number, clock: FakeClock) {
  await updateAlertRule({ db: db(), clock, allowInsecureHosts: [] }, account.accountId, ruleId, {
    threshold_days: days,
  });
}
