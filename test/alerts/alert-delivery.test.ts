import { createExecutionContext, createMessageBatch, env, getQueueResult } from "cloudflare:test";
import { afterEach, describe, expect, it } from "vitest";
import { setAlertTransport, type TransportSettings } from "../../src/alerts/channels";
import {
  type AlertDeliveryMessage,
  alertInserts,
  alertRow,
  deliverAlerts,
  sweepAlertOutbox,
} from "../../src/alerts/delivery";
import { alertFacts } from "../../src/alerts/messages";
import {
  type AlertRuleRow,
  createAlertRule,
  defaultAlertSettings,
  updateAlertRule,
} from "../../src/alerts/rule-service";
import type { ContainerRow } from "../../src/containers/serializer";
import { createDatabase } from "../../src/db/client";
import worker from "../../src/index";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { localTransport, received, receiverUrl } from "../helpers/alert-receivers";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { recordingQueue } from "../helpers/engine";

// Delivery of alerts: the webhook retry schedule, a failing channel visible on its rule, 410 Gone, an inactive rule,
// the shared queue's consumer routing `{alertId}` messages, quiet hours holding a delivery, the sweep.

const T0 = Date.UTC(2030, 0, 7, 12, 0, 0);
const db = () => createDatabase(env.DB);

async function rule(account: TestAccount, url: string, clock: FakeClock): Promise<AlertRuleRow> {
  return createAlertRule({ db: db(), clock, allowInsecureHosts: ["127.0.0.1"] }, account.accountId, {
    condition: "available_for_pickup",
    channel: { type: "slack", url },
  });
}

async function writeAlert(r: AlertRuleRow, nowMs: number, settings = defaultAlertSettings(r.accountId)) {
  const id = newId();
  const container = {
    id: newId(),
    number: "MSCU1234565",
    scac: "MSCU",
    podLocode: "USLAX",
    feesAtPodTerminal: [],
  } as unknown as ContainerRow;
  const candidate = {
    ruleId: r.id,
    containerId: container.id,
    condition: "available_for_pickup" as const,
    episodeKey: `available:${id}`,
    what: "Available.",
  };
  const row = alertRow(
    r,
    candidate,
    id,
    alertFacts(id, candidate, container, null, toIsoSeconds(nowMs)),
    settings,
    nowMs,
  );
  await db().batch(alertInserts(db(), [row]) as never);
  return row;
}

async function alertState(id: string) {
  return env.DB.prepare("SELECT status, attempts, next_attempt_at, last_error FROM alerts WHERE id = ?1")
    .bind(id)
    .first<{ status: string; attempts: number; next_attempt_at: string | null; last_error: string | null }>();
}

const transport = (): TransportSettings => ({ smtp: null, allowInsecureHosts: [], ...localTransport() });

afterEach(() => setAlertTransport(null));

describe("alert delivery", () => {
  it("retries a failing channel on the webhook schedule and shows the failure on the rule; a success clears it", async () => {
    const account = await createAccount();
    const clock = new FakeClock(T0);
    const r = await rule(account, receiverUrl(`/fail/${account.accountId}`), clock);
    const a = await writeAlert(r, T0);
    const out = await deliverAlerts({ env, clock, transport: transport(), random: () => 0.5 }, [a.id]);
    expect(out.get(a.id)).toEqual({ kind: "retry", delaySeconds: 5, error: "HTTP 500" });
    expect(await alertState(a.id)).toMatchObject({
      status: "pending",
      attempts: 1,
      next_attempt_at: toIsoSeconds(T0 + 5000),
      last_error: "HTTP 500",
    });
    const shown = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/alert_rules/${r.id}`, {
      key: account.key,
    });
    expect(shown.json.data.attributes).toMatchObject({
      last_delivery_status: "failed",
      last_error: "HTTP 500",
      failing_since: toIsoSeconds(T0),
    });
    // Not due yet: nothing is sent.
    expect((await deliverAlerts({ env, clock, transport: transport() }, [a.id])).get(a.id)?.kind).toBe("not_due");
    // The channel is fixed (the pending alert follows the rule to it); the retry succeeds and clears the failure.
    await updateAlertRule({ db: db(), clock, allowInsecureHosts: ["127.0.0.1"] }, account.accountId, r.id, {
      channel: { type: "slack", url: receiverUrl(`/slack/fixed-${account.accountId}`) },
    });
    clock.set(T0 + 6000);
    expect((await deliverAlerts({ env, clock, transport: transport() }, [a.id])).get(a.id)).toEqual({
      kind: "succeeded",
    });
    const fixed = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/alert_rules/${r.id}`, {
      key: account.key,
    });
    expect(fixed.json.data.attributes).toMatchObject({
      last_delivery_status: "succeeded",
      last_error: null,
      failing_since: null,
    });
    expect((await received()).filter((m) => m.to === `/slack/fixed-${account.accountId}`)).toHaveLength(1);
    // Delivered: a redelivered message sends nothing.
    expect((await deliverAlerts({ env, clock, transport: transport() }, [a.id])).get(a.id)).toEqual({ kind: "done" });
  });

  it("410 Gone fails at once; an inactive rule's alert is failed without sending", async () => {
    const account = await createAccount();
    const clock = new FakeClock(T0);
    const gone = await rule(account, receiverUrl(`/gone/${account.accountId}`), clock);
    const a = await writeAlert(gone, T0);
    expect((await deliverAlerts({ env, clock, transport: transport() }, [a.id])).get(a.id)?.kind).toBe("failed");
    expect((await alertState(a.id))?.status).toBe("failed");
    const off = await rule(account, receiverUrl(`/slack/off-${account.accountId}`), clock);
    await updateAlertRule({ db: db(), clock, allowInsecureHosts: ["127.0.0.1"] }, account.accountId, off.id, {
      active: false,
    });
    const b = await writeAlert(off, T0);
    expect((await deliverAlerts({ env, clock, transport: transport() }, [b.id])).get(b.id)).toEqual({
      kind: "failed",
      reason: "rule inactive",
    });
    expect((await received()).filter((m) => m.to === `/slack/off-${account.accountId}`)).toEqual([]);
  });

  it("an alert whose last attempt was claimed but never recorded (a crash) is failed, not retried forever", async () => {
    const account = await createAccount();
    const clock = new FakeClock(T0);
    const r = await rule(account, receiverUrl(`/slack/crash-${account.accountId}`), clock);
    const a = await writeAlert(r, T0);
    await env.DB.prepare("UPDATE alerts SET attempts = 13, next_attempt_at = ?1 WHERE id = ?2")
      .bind(toIsoSeconds(T0 - 1000), a.id)
      .run();
    expect((await deliverAlerts({ env, clock, transport: transport() }, [a.id])).get(a.id)).toEqual({
      kind: "failed",
      reason: "retries exhausted",
    });
    expect(await alertState(a.id)).toMatchObject({ status: "failed", last_error: "not sent: retries exhausted" });
    expect((await received()).filter((m) => m.to === `/slack/crash-${account.accountId}`)).toEqual([]);
  });

  it("the Worker's webhook-deliveries handler routes {alertId} messages to alert delivery", async () => {
    const account = await createAccount();
    setAlertTransport(localTransport());
    const now = Date.now();
    const r = await rule(account, receiverUrl(`/slack/queue-${account.accountId}`), new FakeClock(now));
    const a = await writeAlert(r, now - 1000);
    const batch = createMessageBatch<AlertDeliveryMessage>("webhook-deliveries", [
      { id: "a-1", timestamp: new Date(), attempts: 1, body: { alertId: a.id } },
    ]);
    const ctx = createExecutionContext();
    await (worker as ExportedHandler<Env, AlertDeliveryMessage>).queue?.(batch, env, ctx);
    const result = await getQueueResult(batch, ctx);
    expect(result.explicitAcks).toEqual(["a-1"]);
    expect((await alertState(a.id))?.status).toBe("succeeded");
    expect((await received()).filter((m) => m.to === `/slack/queue-${account.accountId}`)).toHaveLength(1);
  });

  it("quiet hours hold an alert until they end; the sweep then queues it", async () => {
    const account = await createAccount();
    const clock = new FakeClock(T0);
    const r = await rule(account, receiverUrl(`/slack/quiet-${account.accountId}`), clock);
    // 12:00Z is 21:00 in Tokyo: quiet from 20 to 7 → due at 07:00 JST = 22:00Z.
    const settings = {
      ...defaultAlertSettings(account.accountId),
      timeZone: "Asia/Tokyo",
      quietHoursStart: 20,
      quietHoursEnd: 7,
    };
    const a = await writeAlert(r, T0, settings);
    expect(a.nextAttemptAt).toBe("2030-01-07T22:00:00Z");
    expect((await deliverAlerts({ env, clock, transport: transport() }, [a.id])).get(a.id)?.kind).toBe("not_due");
    const queue = recordingQueue<never>();
    expect(
      await sweepAlertOutbox({ DB: env.DB, WEBHOOK_DELIVERIES_QUEUE: queue }, Date.parse("2030-01-07T21:59:00Z")),
    ).toBe(0);
    expect(
      await sweepAlertOutbox({ DB: env.DB, WEBHOOK_DELIVERIES_QUEUE: queue }, Date.parse("2030-01-07T22:01:30Z")),
    ).toBeGreaterThanOrEqual(1);
    expect(queue.sent.map((m) => m.body)).toContainEqual({ alertId: a.id, shard: 0 });
  });
});
