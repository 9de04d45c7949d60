import { env } from "cloudflare:test";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import type { TransportSettings } from "../../src/alerts/channels";
import { buildDigests, evaluateTimeDrivenAlerts } from "../../src/alerts/cron";
import { deliverAlerts } from "../../src/alerts/delivery";
import { createAlertRule, updateAlertSettings } from "../../src/alerts/rule-service";
import { chargesWebhookEvents } from "../../src/alerts/webhook-events";
import { createDatabase } from "../../src/db/client";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { createTariff } from "../../src/tariffs/service";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { pollBox } from "../../src/tracking/poll-consumer";
import { SANDBOX_LIFECYCLE_CONTAINER_NUMBERS } from "../../src/tracking/sources/sandbox";
import { localTransport, received, receiverUrl } from "../helpers/alert-receivers";
import { apiJson, createAccount } from "../helpers/api";
import { containersOfShipment, FUTURE_T0, insertRequest, recordingQueue, requestRow } from "../helpers/engine";
import { insertWebhook, notificationsOf } from "../helpers/receiver";

// End to end: the sandbox's TEST-LIFECYCLE journey (discharge, customs hold placed and released, available, LFD set,
// demurrage, full out, empty in) played at one simulated day per 6 s of a fake clock, with alert rules on holds
// (Slack, and an e-mail digest), availability (Teams, and our signed webhook) and the LFD (e-mail). The box updates
// write the event-driven alerts, the cron step writes the date-driven ones and the charges webhook events, and the
// outbox is delivered on the fake clock (as the queue consumer does) to the local receivers: each alert arrives once.

interface AlertRowDb {
  id: string;
  kind: string;
  rule_id: string;
  condition: string | null;
  episode_key: string;
  status: string;
  attempts: number;
}

async function alertsOf(accountId: string): Promise<AlertRowDb[]> {
  const { results } = await env.DB.prepare("SELECT * FROM alerts WHERE account_id = ?1 ORDER BY created_at, id")
    .bind(accountId)
    .all<AlertRowDb>();
  return results;
}

/** Delivers the account's due alerts on the fake clock, as the `webhook-deliveries` consumer does. */
async function deliverDue(accountId: string, clock: FakeClock, transport: TransportSettings) {
  const { results } = await env.DB.prepare(
    "SELECT id FROM alerts WHERE account_id = ?1 AND status = 'pending' AND next_attempt_at <= ?2",
  )
    .bind(accountId, toIsoSeconds(clock.now()))
    .all<{ id: string }>();
  await deliverAlerts(
    { env, clock, transport },
    results.map((r) => r.id),
  );
}

describe("alerts on a simulated journey, at local Slack, Teams, webhook and SMTP receivers", () => {
  it("each (rule, box, episode) is delivered once, and the digest gathers the digest rule's alerts", async () => {
    const account = await createAccount();
    const tag = account.accountId;
    const clock = new FakeClock(FUTURE_T0);
    const db = createDatabase(env.DB);
    const transport: TransportSettings = { smtp: null, allowInsecureHosts: [], ...localTransport() };
    const deps = { db, clock, allowInsecureHosts: ["127.0.0.1"] };
    // 2030-01-06 22:00 in Los Angeles when the journey starts; the digest is due at 23:00 local.
    await updateAlertSettings(deps, account.accountId, { time_zone: "America/Los_Angeles", digest_hour: 23 });
    const holds = await createAlertRule(deps, account.accountId, {
      condition: "hold_changed",
      channel: { type: "slack", url: receiverUrl(`/slack/${tag}`) },
    });
    const available = await createAlertRule(deps, account.accountId, {
      condition: "available_for_pickup",
      channel: { type: "teams", url: receiverUrl(`/teams/${tag}`) },
    });
    const signed = await createAlertRule(deps, account.accountId, {
      condition: "available_for_pickup",
      channel: { type: "webhook", url: receiverUrl(`/hook/${tag}`) },
    });
    const lfd = await createAlertRule(deps, account.accountId, {
      condition: "free_time_ending",
      threshold_days: 2,
      scope: { scacs: ["TEST"] },
      channel: { type: "email", address: `lfd-${tag}@example.com` },
    });
    const digest = await createAlertRule(deps, account.accountId, {
      condition: "hold_changed",
      delivery: "digest",
      channel: { type: "email", address: `digest-${tag}@example.com` },
    });
    // Out of scope: never alerts.
    await createAlertRule(deps, account.accountId, {
      condition: "free_time_ending",
      threshold_days: 2,
      scope: { ports: ["NLRTM"] },
      channel: { type: "email", address: `rotterdam-${tag}@example.com` },
    });
    // The account's demurrage tariff for the line: the messages state its amounts (the terminal's LFD stands).
    const tariff = await createTariff(deps, account.accountId, {
      kind: "demurrage",
      name: "TEST line",
      scac: "TEST",
      free_days: 4,
      clock_starts_at: "discharged",
      tiers: [{ from_day: 1, to_day: null, rate_per_day: "120.00", currency_code: "USD" }],
    });
    const hook = await insertWebhook(account, {
      events: ["container.free_time.ending_soon", "container.charges.started"],
    });
    // Another account with the same rules and webhook: none of this account's boxes alerts it.
    const other = await createAccount("Other");
    for (const condition of ["hold_changed", "available_for_pickup", "tracking_failed"]) {
      await createAlertRule(deps, other.accountId, {
        condition,
        channel: { type: "slack", url: receiverUrl(`/slack/${other.accountId}`) },
      });
    }
    await createAlertRule(deps, other.accountId, {
      condition: "free_time_ending",
      threshold_days: 5,
      channel: { type: "slack", url: receiverUrl(`/slack/${other.accountId}`) },
    });
    const otherHook = await insertWebhook(other, {
      events: ["container.free_time.ending_soon", "container.charges.started"],
    });

    const requestId = await insertRequest(account, { number: "TEST-LIFECYCLE", createdAtMs: clock.now() });
    await processTrackingRequest(
      { env: { ...env, TRACKING_REQUESTS_QUEUE: recordingQueue(), WEBHOOK_DELIVERIES_QUEUE: recordingQueue() }, clock },
      { trackingRequestId: requestId, accountId: account.accountId },
    );
    const boxes = await containersOfShipment((await requestRow(requestId)).shipment_id ?? "");
    expect(boxes).toHaveLength(2);
    const cronEnv = { DB: env.DB };
    for (let k = 0; k < 120; k++) {
      clock.set(FUTURE_T0 + (k + 0.5) * 6000);
      for (const number of SANDBOX_LIFECYCLE_CONTAINER_NUMBERS) await pollBox({ env, clock }, { scac: "TEST", number });
      await evaluateTimeDrivenAlerts(cronEnv, clock.now());
      await chargesWebhookEvents(cronEnv, clock.now());
      await deliverDue(account.accountId, clock, transport);
    }
    // The cron and the delivery again change nothing: every episode already alerted, every alert delivered.
    expect(await evaluateTimeDrivenAlerts(cronEnv, clock.now())).toBe(0);
    expect(await chargesWebhookEvents(cronEnv, clock.now())).toBe(0);
    await deliverDue(account.accountId, clock, transport);

    const rows = await alertsOf(account.accountId);
    const of = (ruleId: string) => rows.filter((r) => r.rule_id === ruleId && r.kind === "alert");
    // Customs hold placed and released on each of the two boxes.
    expect(
      of(holds.id)
        .map((r) => r.episode_key.split(":").slice(0, 3).join(":"))
        .sort(),
    ).toEqual(["hold:customs:placed", "hold:customs:placed", "hold:customs:released", "hold:customs:released"]);
    expect(of(available.id)).toHaveLength(2);
    expect(of(signed.id)).toHaveLength(2);
    expect(of(lfd.id)).toHaveLength(2);
    expect(of(lfd.id).every((r) => r.episode_key.startsWith("free_time:"))).toBe(true);
    for (const r of [...of(holds.id), ...of(available.id), ...of(signed.id), ...of(lfd.id)]) {
      expect(r.status, r.episode_key).toBe("succeeded");
      expect(r.attempts).toBe(1);
    }
    expect(of(digest.id).map((r) => r.status)).toEqual(["digest", "digest", "digest", "digest"]);
    expect(rows.filter((r) => r.condition === "free_time_ending" && r.rule_id !== lfd.id)).toEqual([]);

    const got = await received();
    const once = (path: string, ids: string[]) => {
      const hits = got.filter((m) => m.channel === "http" && m.to === path);
      expect(hits.map((m) => m.headers["webhook-id"]).sort()).toEqual([...ids].sort());
      return hits;
    };
    const slack = once(
      `/slack/${tag}`,
      of(holds.id).map((r) => r.id),
    );
    expect(JSON.parse(slack[0]?.body ?? "{}").blocks[0].text.text).toMatch(/^Hold changed: /);
    const teams = once(
      `/teams/${tag}`,
      of(available.id).map((r) => r.id),
    );
    expect(JSON.parse(teams[0]?.body ?? "{}").attachments[0].content.type).toBe("AdaptiveCard");
    const hooks = once(
      `/hook/${tag}`,
      of(signed.id).map((r) => r.id),
    );
    const first = hooks[0];
    const verified = new Webhook(signed.secret ?? "").verify(first?.body ?? "", first?.headers ?? {}) as {
      event: string;
      data: { container_number: string; what: string; cost: string | null; charge: { tariff_id: string } | null };
    };
    expect(verified.event).toBe("alert.triggered");
    // An event-driven alert (written in the box update) states the calculator's cost too.
    expect(verified.data.charge?.tariff_id).toBe(tariff.id);
    expect(verified.data.cost).toMatch(/^USD \d+\.\d{2} in demurrage to date; USD \d+\.\d{2} if out tomorrow$/);
    expect(SANDBOX_LIFECYCLE_CONTAINER_NUMBERS).toContain(verified.data.container_number);
    const mails = got.filter((m) => m.channel === "smtp" && m.to === `lfd-${tag}@example.com`);
    expect(mails.map((m) => m.headers["x-alert-id"]).sort()).toEqual(
      of(lfd.id)
        .map((r) => r.id)
        .sort(),
    );
    expect(mails[0]?.subject).toMatch(/^Free time ending: /);
    expect(mails[0]?.body).toContain("What to do: Book a pickup appointment and dispatch a truck");
    expect(mails[0]?.body).toMatch(/Cost: USD \d+\.\d{2} in demurrage to date/);
    expect(mails[0]?.body).toContain('rates of tariff "TEST line"');
    expect(got.filter((m) => m.to === `rotterdam-${tag}@example.com`)).toEqual([]);
    expect(await alertsOf(other.accountId)).toEqual([]);
    expect(got.filter((m) => m.to === `/slack/${other.accountId}`)).toEqual([]);
    expect(await notificationsOf(otherHook.id)).toEqual([]);

    // The charges extension event: once per box and LFD, whatever the number of cron runs.
    const notices = await notificationsOf(hook.id);
    const soon = notices.filter((n) => n.event === "container.free_time.ending_soon");
    expect(soon.map((n) => n.reference_object_id).sort()).toEqual(boxes.map((b) => b.id).sort());

    // The digest: not before 23:00 in Los Angeles; at 23:05 one e-mail with the four hold alerts; once a day.
    expect(await buildDigests(cronEnv, clock.now())).toBe(0);
    clock.set(FUTURE_T0 + 65 * 60_000);
    expect(await buildDigests(cronEnv, clock.now())).toBe(1);
    expect(await buildDigests(cronEnv, clock.now())).toBe(0);
    await deliverDue(account.accountId, clock, transport);
    await deliverDue(account.accountId, clock, transport);
    const digests = (await received()).filter((m) => m.channel === "smtp" && m.to === `digest-${tag}@example.com`);
    expect(digests).toHaveLength(1);
    expect(digests[0]?.subject).toBe("Daily digest 2030-01-06: 4 alerts");
    expect(digests[0]?.body.match(/^Hold changed: /gm)).toHaveLength(4);
    expect(
      (await alertsOf(account.accountId))
        .filter((r) => r.rule_id === digest.id && r.kind === "alert")
        .map((r) => r.status),
    ).toEqual(["digested", "digested", "digested", "digested"]);

    // The rules show their channel's state.
    const rule = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/alert_rules/${holds.id}`, {
      key: account.key,
    });
    expect(rule.json.data.attributes).toMatchObject({
      last_delivery_status: "succeeded",
      last_error: null,
      failing_since: null,
    });
  });
});
