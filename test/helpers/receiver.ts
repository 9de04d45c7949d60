import { env } from "cloudflare:test";
import type { Clock } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import { consumeWebhookDeliveries, type DeliveryDeps } from "../../src/webhooks/delivery";
import type { WebhookDeliveryMessage } from "../../src/webhooks/outbox";
import type { TestAccount } from "./api";

// Webhook delivery test doubles: a recording receiver used as the injected fetch (never the network), rows written
// straight into D1, and a queue simulator that replays the webhook-deliveries queue on a fake clock.

/** One request the receiver got. */
export interface ReceivedRequest {
  url: string;
  method: string;
  headers: Headers;
  body: string;
  /** `webhook-id` header (the notification id). */
  notificationId: string;
  redirect: string | undefined;
  /** The status answered, or null when the receiver refused the connection / never answered. */
  status: number | null;
}

/** How the receiver answers one request: a status, a full Response, a refused connection, or no answer at all. */
export type Reply = number | Response | "refuse" | "hang";

/**
 * A recording webhook receiver used as the delivery fetch (`deps.fetch`, or `setWebhookFetch(receiver.fetch)`):
 * keeps every request, answers with `reply(request, index)`, and keeps a dedup log — how many times each
 * notification id was acknowledged (2xx) — as a receiver deduplicating on `data.id` would.
 */
export class RecordingReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** Notification id → number of acknowledged (200/201/202/204) deliveries. */
  readonly acknowledged = new Map<string, number>();
  constructor(public reply: (request: ReceivedRequest, index: number) => Reply | Promise<Reply> = () => 200) {}

  /** The fetch to inject. A "hang" reply resolves only when the request's signal aborts (then it rejects). */
  readonly fetch: typeof fetch = async (input, init) => {
    const request: ReceivedRequest = {
      url: input instanceof Request ? input.url : String(input),
      method: init?.method ?? "GET",
      headers: new Headers(init?.headers),
      body: typeof init?.body === "string" ? init.body : "",
      notificationId: new Headers(init?.headers).get("webhook-id") ?? "",
      redirect: init?.redirect,
      status: null,
    };
    const index = this.requests.length;
    this.requests.push(request);
    const reply = await this.reply(request, index);
    if (reply === "refuse") throw new TypeError("Network connection lost: connect ECONNREFUSED");
    if (reply === "hang") {
      return new Promise<Response>((_, reject) => {
        const signal = init?.signal;
        if (signal?.aborted) reject(signal.reason);
        signal?.addEventListener("abort", () => reject(signal.reason ?? new Error("aborted")));
      });
    }
    const response =
      typeof reply === "number"
        ? new Response([204, 205, 304].includes(reply) ? null : "ok", { status: reply })
        : reply;
    request.status = response.status;
    if ([200, 201, 202, 204].includes(response.status)) {
      this.acknowledged.set(request.notificationId, (this.acknowledged.get(request.notificationId) ?? 0) + 1);
    }
    return response;
  };

  /** The requests for one notification, in order. */
  for(notificationId: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.notificationId === notificationId);
  }
}

/** A generated-style secret: `whsec_` + base64 of 32 random bytes (docs/decisions.md §Webhooks). */
export function newSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** Options of {@link insertWebhook}. */
export interface WebhookOptions {
  url?: string;
  events?: string[];
  active?: boolean;
  headers?: { name: string; value: string }[];
  secret?: string;
  failingSince?: string | null;
  nowIso?: string;
}

/** A webhook row written straight into D1. */
export interface TestWebhook {
  id: string;
  accountId: string;
  url: string;
  secret: string;
}

/** Writes a webhook for `account` directly into D1 (the REST API is another module's business). */
export async function insertWebhook(account: TestAccount, options: WebhookOptions = {}): Promise<TestWebhook> {
  const id = newId();
  const url = options.url ?? "https://hooks.acme-logistics.com/container-events";
  const secret = options.secret ?? newSecret();
  const now = options.nowIso ?? "2030-01-01T00:00:00Z";
  await env.DB.prepare(
    `INSERT INTO webhooks (id, account_id, url, active, events, headers, secret, failing_since, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)`,
  )
    .bind(
      id,
      account.accountId,
      url,
      options.active === false ? 0 : 1,
      JSON.stringify(options.events ?? ["container.updated"]),
      JSON.stringify(options.headers ?? []),
      secret,
      options.failingSince ?? null,
      now,
    )
    .run();
  return { id, accountId: account.accountId, url, secret };
}

/** Writes a pending notification of `webhook` directly into D1 (due at `nextAttemptAt`); returns its id and body. */
export async function insertNotification(
  webhook: TestWebhook,
  options: { event?: string; nextAttemptAt?: string; createdAt?: string; status?: string; attempts?: number } = {},
): Promise<{ id: string; body: string }> {
  const id = newId();
  const createdAt = options.createdAt ?? "2030-01-01T00:00:00Z";
  const event = options.event ?? "container.updated";
  const body = JSON.stringify({
    data: {
      id,
      type: "webhook_notification",
      attributes: { id, event, delivery_status: "pending", created_at: createdAt },
      relationships: {
        reference_object: { data: { id: newId(), type: "container_updated_event" } },
        webhook: { data: { id: webhook.id, type: "webhook" } },
        webhook_notification_logs: { data: [] },
      },
    },
    included: [],
  });
  await env.DB.prepare(
    `INSERT INTO webhook_notifications (id, account_id, webhook_id, event, reference_object_type, reference_object_id,
       payload, delivery_status, attempts, next_attempt_at, created_at, updated_at)
     VALUES (?1, ?2, ?3, ?4, 'container_updated_event', ?5, ?6, ?7, ?8, ?9, ?10, ?10)`,
  )
    .bind(
      id,
      webhook.accountId,
      webhook.id,
      event,
      newId(),
      body,
      options.status ?? "pending",
      options.attempts ?? 0,
      options.nextAttemptAt ?? createdAt,
      createdAt,
    )
    .run();
  return { id, body };
}

/** A notification row as D1 holds it. */
export interface NotificationRow {
  id: string;
  account_id: string;
  webhook_id: string;
  event: string;
  reference_object_type: string | null;
  reference_object_id: string | null;
  payload: string;
  delivery_status: string;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
}

/** One notification row. */
export async function notificationRow(id: string): Promise<NotificationRow> {
  const row = await env.DB.prepare("SELECT * FROM webhook_notifications WHERE id = ?1")
    .bind(id)
    .first<NotificationRow>();
  if (!row) throw new Error(`no notification ${id}`);
  return row;
}

/** The notifications of a webhook, oldest first. */
export async function notificationsOf(webhookId: string): Promise<NotificationRow[]> {
  const { results } = await env.DB.prepare(
    "SELECT * FROM webhook_notifications WHERE webhook_id = ?1 ORDER BY created_at, event, reference_object_id",
  )
    .bind(webhookId)
    .all<NotificationRow>();
  return results;
}

/** A `webhook_deliveries` row (one attempt). */
export interface AttemptRow {
  attempt: number;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  created_at: string;
}

/** The attempts of a notification, in order. */
export async function attemptsOf(notificationId: string): Promise<AttemptRow[]> {
  const { results } = await env.DB.prepare(
    "SELECT attempt, status_code, latency_ms, error, created_at FROM webhook_deliveries WHERE notification_id = ?1 ORDER BY attempt, created_at",
  )
    .bind(notificationId)
    .all<AttemptRow>();
  return results;
}

/** A webhook row as D1 holds it. */
export async function webhookRow(
  id: string,
): Promise<{ active: number; disabled_reason: string | null; failing_since: string | null }> {
  const row = await env.DB.prepare("SELECT active, disabled_reason, failing_since FROM webhooks WHERE id = ?1")
    .bind(id)
    .first<{ active: number; disabled_reason: string | null; failing_since: string | null }>();
  if (!row) throw new Error(`no webhook ${id}`);
  return row;
}

let sequence = 0;

/** What one consumer run did with each message. */
export interface BatchOutcome {
  acked: string[];
  retried: { notificationId: string; delaySeconds: number | undefined }[];
}

/**
 * A `MessageBatch` that records what the consumer does with each message, delays included (the test pool's
 * `getQueueResult` reports retries without their `delaySeconds`, which the retry schedule is all about).
 */
export function recordingBatch<T>(
  queue: string,
  bodies: T[],
): { batch: MessageBatch<T>; acked: string[]; retried: { id: string; delaySeconds: number | undefined }[] } {
  const acked: string[] = [];
  const retried: { id: string; delaySeconds: number | undefined }[] = [];
  const messages: Message<T>[] = bodies.map((body) => {
    const id = `msg-${++sequence}`;
    return {
      id,
      timestamp: new Date(),
      attempts: 1,
      body,
      ack: () => {
        acked.push(id);
      },
      retry: (options?: QueueRetryOptions) => {
        retried.push({ id, delaySeconds: options?.delaySeconds });
      },
    };
  });
  const batch = {
    queue,
    messages,
    metadata: { metrics: { backlogCount: 0, backlogBytes: 0, oldestMessageTimestamp: new Date(0) } },
    ackAll: () => {
      for (const m of messages) acked.push(m.id);
    },
    retryAll: (options?: QueueRetryOptions) => {
      for (const m of messages) retried.push({ id: m.id, delaySeconds: options?.delaySeconds });
    },
  } as unknown as MessageBatch<T>;
  return { batch, acked, retried };
}

/**
 * Runs the `webhook-deliveries` consumer on one batch of messages (as the Queues runtime would) with injected
 * deps, and reports which messages were acked and which retried with what delay.
 */
export async function runDeliveryBatch(
  notificationIds: string[],
  deps: Omit<DeliveryDeps, "env"> = {},
  testEnv: Env = env,
): Promise<BatchOutcome> {
  const { batch, acked, retried } = recordingBatch<WebhookDeliveryMessage>(
    "webhook-deliveries",
    notificationIds.map((notificationId) => ({ notificationId })),
  );
  await consumeWebhookDeliveries(batch, testEnv, deps);
  const byMessage = new Map(batch.messages.map((m) => [m.id, m.body.notificationId]));
  return {
    acked: acked.map((id) => byMessage.get(id) ?? id),
    retried: retried.map((r) => ({ notificationId: byMessage.get(r.id) ?? r.id, delaySeconds: r.delaySeconds })),
  };
}

/**
 * The `webhook-deliveries` queue replayed on a fake clock: messages become visible at their delay, the consumer runs
 * on every batch of visible messages, acked messages leave, retried ones come back after their delay — the way the
 * Queues runtime moves them, without waiting for real time.
 */
export class QueueSimulator {
  private pending: { notificationId: string; visibleAtMs: number }[] = [];
  /** Every batch run: the clock time and the outcome. */
  readonly runs: { atMs: number; outcome: BatchOutcome }[] = [];
  constructor(
    private readonly clock: Clock & { set(ms: number): void },
    private readonly deps: Omit<DeliveryDeps, "env" | "clock">,
    private readonly testEnv: Env = env,
  ) {}

  /** Puts messages on the queue, visible after `delaySeconds`. */
  send(notificationIds: string[], delaySeconds = 0): void {
    for (const notificationId of notificationIds) {
      this.pending.push({ notificationId, visibleAtMs: this.clock.now() + delaySeconds * 1000 });
    }
  }

  get size(): number {
    return this.pending.length;
  }

  /**
   * Moves the clock to the next visible message and runs the consumer on up to `batchSize` visible messages.
   * @returns false when the queue is empty.
   */
  async step(batchSize = 10): Promise<boolean> {
    if (this.pending.length === 0) return false;
    const next = Math.min(...this.pending.map((m) => m.visibleAtMs));
    if (next > this.clock.now()) this.clock.set(next);
    const now = this.clock.now();
    const visible = this.pending.filter((m) => m.visibleAtMs <= now).slice(0, batchSize);
    this.pending = this.pending.filter((m) => !visible.includes(m));
    const outcome = await runDeliveryBatch(
      visible.map((m) => m.notificationId),
      { ...this.deps, clock: this.clock },
      this.testEnv,
    );
    this.runs.push({ atMs: now, outcome });
    for (const r of outcome.retried) this.send([r.notificationId], r.delaySeconds ?? 0);
    return true;
  }

  /** Steps until the queue is empty (or `maxSteps` runs, which fails the test). */
  async drain(maxSteps = 1000): Promise<void> {
    for (let i = 0; i < maxSteps; i++) if (!(await this.step())) return;
    throw new Error(`queue not drained after ${maxSteps} batches (${this.pending.length} left)`);
  }
}
