import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { sweepAlertOutbox } from "../../src/alerts/delivery";
import { FakeClock, toIsoSeconds } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { runMaintenance } from "../../src/tracking/maintenance";
import type { TrackingRequestMessage } from "../../src/tracking-requests/queue-message";
import type { WebhookDeliveryMessage } from "../../src/webhooks/outbox";
import { recordingQueue } from "../helpers/engine";
import { newSecret } from "../helpers/receiver";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";

// The every-minute cron over two shards (issue 29 §3): its sweeps of account rows reach shard 1 (`DB_1`) as well as
// the primary, and the messages they send name the shard of their row.

const T0 = Date.UTC(2030, 2, 1, 12, 0, 0);
const LONG_AGO = toIsoSeconds(T0 - 60 * 60 * 1000);

beforeAll(async () => {
  await prepareSecondShard();
});

const shard1 = () => env.DB_1 as D1Database;

/** A pending notification of a new webhook of `accountId` on shard 1, due an hour ago (its message was lost). */
async function lostNotificationOnShard1(accountId: string): Promise<string> {
  const webhookId = newId();
  const id = newId();
  await shard1().batch([
    shard1()
      .prepare(
        `INSERT INTO webhooks (id, account_id, url, active, events, headers, secret, created_at, updated_at)
         VALUES (?1, ?2, 'https://hooks.example.com/one', 1, '["container.updated"]', '[]', ?3, ?4, ?4)`,
      )
      .bind(webhookId, accountId, newSecret(), LONG_AGO),
    shard1()
      .prepare(
        `INSERT INTO webhook_notifications (id, account_id, webhook_id, event, reference_object_type,
           reference_object_id, payload, delivery_status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?1, ?2, ?3, 'container.updated', 'container_updated_event', ?4, '{}', 'pending', 0, ?5, ?5, ?5)`,
      )
      .bind(id, accountId, webhookId, newId(), LONG_AGO),
  ]);
  return id;
}

describe("cron sweeps over shards", () => {
  it("runMaintenance re-queues a lost notification and a lost tracking request of a shard-1 account", async () => {
    const account = await createAccountOnShard(1, "Swept");
    const notificationId = await lostNotificationOnShard1(account.accountId);
    const requestId = newId();
    await shard1()
      .prepare(
        `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac,
           line_scac, status, next_attempt_at, created_at, updated_at)
         VALUES (?1, ?2, 'bill_of_lading', 'SWEPTBL1', 'SWEPTBL1', 'TEST', 'TEST', 'pending', ?3, ?3, ?3)`,
      )
      .bind(requestId, account.accountId, LONG_AGO)
      .run();
    const deliveries = recordingQueue<WebhookDeliveryMessage>();
    const lookups = recordingQueue<TrackingRequestMessage>();
    const report = await runMaintenance(
      { ...env, WEBHOOK_DELIVERIES_QUEUE: deliveries, TRACKING_REQUESTS_QUEUE: lookups },
      new FakeClock(T0),
    );
    expect(report.notificationsRequeued).toBe(1);
    expect(deliveries.sent.map((m) => m.body)).toEqual([{ notificationId, shard: 1 }]);
    expect(report.requestsRequeued).toBe(1);
    expect(lookups.sent.map((m) => m.body)).toEqual([{ trackingRequestId: requestId, accountId: account.accountId }]);
    // Both rows were moved on in shard 1, so the next run does not send them again.
    const notification = await shard1()
      .prepare("SELECT next_attempt_at AS at FROM webhook_notifications WHERE id = ?1")
      .bind(notificationId)
      .first<{ at: string }>();
    expect(notification?.at).toBe(toIsoSeconds(T0));
    const again = await runMaintenance(
      { ...env, WEBHOOK_DELIVERIES_QUEUE: deliveries, TRACKING_REQUESTS_QUEUE: lookups },
      new FakeClock(T0 + 30_000),
    );
    expect(again.notificationsRequeued).toBe(0);
    expect(again.requestsRequeued).toBe(0);
  });

  it("the alert outbox sweep re-queues a shard-1 alert with its shard", async () => {
    const account = await createAccountOnShard(1, "Alerted");
    const alertId = newId();
    await shard1()
      .prepare(
        `INSERT INTO alerts (id, account_id, kind, rule_id, container_id, condition, episode_key, facts, channel_type,
           channel_target, status, attempts, next_attempt_at, created_at, updated_at)
         VALUES (?1, ?2, 'alert', ?3, ?4, 'hold_changed', 'hold:CUSTOMS:placed', '{}', 'email', 'ops@example.com',
           'pending', 0, ?5, ?5, ?5)`,
      )
      .bind(alertId, account.accountId, newId(), newId(), LONG_AGO)
      .run();
    const deliveries = recordingQueue<WebhookDeliveryMessage>();
    expect(await sweepAlertOutbox({ ...env, WEBHOOK_DELIVERIES_QUEUE: deliveries }, T0)).toBe(1);
    expect(deliveries.sent.map((m) => m.body)).toEqual([{ alertId, shard: 1 }]);
  });
});
