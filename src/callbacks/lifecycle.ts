/**
 * Upstream push subscriptions (issue 13 §4): the engine's side of "the carrier POSTs its new events to us".
 *
 * Where things are (start here):
 * - src/callbacks/lifecycle.ts (this file): create a subscription when tracking starts, delete it when tracking
 *   stops (the every-minute sweep), handle a callback (verify, refuse replays, trigger the poll).
 * - src/callbacks/routes.ts: the public endpoints `POST|HEAD|GET /callbacks/dcsa/{id}` (outside /v2, no API key:
 *   the upstream authenticates by signing the body).
 * - src/callbacks/signatures.ts: one signature check per provider scheme (DCSA `Notification-Signature`).
 * - src/callbacks/secrets.ts: random secrets, AES-GCM encrypted in D1 under `UPSTREAM_SUBSCRIPTION_KEY`.
 * - src/db/schema/upstream.ts: `upstream_subscriptions`, `upstream_callback_receipts`.
 * - src/tracking/sources/dcsa/subscriptions.ts: the carrier calls (`createDcsaSubscription`, `deleteDcsaSubscription`).
 *
 * How a push lands: a verified callback's body is kept (raw) and the boxes the subscription covers are polled at once
 * through the `terminal-polls` queue, i.e. the SAME lookup → Tracker.applyPoll path as a scheduled poll. A push carries
 * only the new events while the DCSA mapping needs the whole list (which call is the POL, the POD or a transshipment is
 * decided over all events, src/tracking/sources/dcsa/journey.ts `buildJourney`), so the pushed events are not mapped on
 * their own: the immediate poll reads the carrier's full list, which includes them. So a pushed and a polled copy of an
 * event are one event (the poll path's identity rules, src/tracking/identity.ts), a push can never drop a milestone a
 * poll had, and a push is worth one notification at most. Assumption: the carrier's `GET /v2/events` serves an event
 * once it has pushed it (DCSA publishes from one event store); if it lagged, the event lands with the next scheduled
 * poll instead.
 *
 * While a subscription is active, its boxes are polled {@link PUSH_POLL_INTERVAL_FACTOR} times less often
 * (src/tracking/tracker-state.ts). Needs `PUBLIC_BASE_URL` (the callback URL's origin) and `UPSTREAM_SUBSCRIPTION_KEY`;
 * without either, no subscription is created and a line in the log says why, once per isolate.
 */
import { and, eq, inArray, isNull, like, lt, or, sql } from "drizzle-orm";
import { createDatabase, type Database } from "../db/client";
import {
  trackedEquipment,
  type UpstreamSubscriptionRow,
  upstreamCallbackReceipts,
  upstreamSubscriptions,
} from "../db/schema";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { newId } from "../lib/ids";
import { BODY_TOO_LARGE, type PendingBody } from "../lib/request-body";
import { tokenBrokerFor } from "../tracking/sources/credentials";
import {
  createDcsaSubscription,
  type DcsaSourceConfig,
  deleteDcsaSubscription,
  parseDcsaSources,
} from "../tracking/sources/dcsa";
import type { SourceContext } from "../tracking/sources/types";
import { PUSH_POLL_INTERVAL_FACTOR, trackerName } from "../tracking/tracker-state";
import { decryptSecret, encryptSecret, newSubscriptionSecret, subscriptionKeyFrom } from "./secrets";
import { verifyDcsaNotificationSignature } from "./signatures";
import {
  acceptCallback,
  type CreatingSubscription,
  claimSubscriptionRow,
  findSubscriptionRow,
  markSubscriptionActive,
  markSubscriptionDeleted,
  markSubscriptionFailed,
  noteSubscriptionDeleteFailure,
  parseCallbackJson,
} from "./subscription-rows";

export { PUSH_POLL_INTERVAL_FACTOR };

/** A callback body seen before for the same subscription within this window (ms, 30 days) is refused as a replay. */
export const CALLBACK_REPLAY_WINDOW_MS = 30 * 24 * 3600 * 1000;
/** Largest callback body accepted, bytes (a DCSA push is a few events; 1 MB is hundreds). */
export const MAX_CALLBACK_BODY_BYTES = 1_000_000;
/** Subscriptions the sweep deletes per run (the cron runs every minute). */
const SWEEP_BATCH = 50;
/** A subscription the carrier refused (or never answered) is asked for again after this long (ms, 1 h). */
export const SUBSCRIPTION_RETRY_AFTER_MS = 3600 * 1000;
/** Failed subscriptions the sweep retries per run. */
const RETRY_BATCH = 10;

/** What the subscription code needs; tests inject the clock and the network. */
export interface SubscriptionDeps {
  env: Pick<Env, "DB" | "TRACKER" | "DCSA_SOURCES" | "PUBLIC_BASE_URL" | "UPSTREAM_SUBSCRIPTION_KEY"> &
    Partial<Pick<Env, "CREDENTIALS" | "TERMINAL_POLLS_QUEUE">>;
  clock?: Clock;
  fetch?: typeof fetch;
}

/** The provider name of a DCSA carrier's subscriptions. */
export const dcsaProvider = (scac: string): string => `dcsa:${scac}`;

/**
 * The callback origin from `PUBLIC_BASE_URL`: an absolute https URL (http only for localhost / 127.0.0.1) without
 * credentials, query or fragment, trailing slashes removed; null when unset or not that.
 */
export function callbackBaseUrl(value: string | undefined): string | null {
  if (!value?.trim()) return null;
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return null;
  }
  const local = url.hostname === "localhost" || url.hostname === "127.0.0.1";
  if (!(url.protocol === "https:" || (url.protocol === "http:" && local))) return null;
  if (url.username || url.password || url.search || url.hash) return null;
  return url.href.replace(/\/+$/, "");
}

/** The URL an upstream posts the callbacks of subscription `id` to. */
export const dcsaCallbackUrl = (base: string, id: string): string => `${base}/callbacks/dcsa/${id}`;

let configCache: { key: string; configs: Map<string, DcsaSourceConfig> } | null = null;
function dcsaConfigs(json: string | undefined): Map<string, DcsaSourceConfig> {
  const key = json ?? "";
  if (configCache?.key !== key) configCache = { key, configs: parseDcsaSources(json) };
  return configCache.configs;
}

const warned = new Set<string>();
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  console.warn(message);
}

function contextOf(deps: SubscriptionDeps): SourceContext {
  const nowMs = (deps.clock ?? systemClock).now();
  return { nowMs, fetch: deps.fetch ?? ((input, init) => fetch(input, init)) };
}

/** Live boxes (not stopped) of a line polled by `referenceNumber`: the ones a subscription covers. */
function liveBoxes(db: Database, scac: string, referenceNumber: string) {
  return db
    .select({ number: trackedEquipment.number })
    .from(trackedEquipment)
    .where(
      and(
        eq(trackedEquipment.scac, scac),
        eq(trackedEquipment.shipmentNumber, referenceNumber),
        isNull(trackedEquipment.stoppedAt),
      ),
    );
}

async function tellTrackers(deps: SubscriptionDeps, scac: string, numbers: string[], active: boolean): Promise<void> {
  for (const number of numbers) {
    await deps.env.TRACKER.get(deps.env.TRACKER.idFromName(trackerName(scac, number))).setPushSubscription(active);
  }
}

/**
 * After a successful lookup (tracking starts): for a SCAC configured with `subscriptions: true` in `DCSA_SOURCES`,
 * makes sure one subscription exists at the carrier per reference the boxes are polled by
 * (`tracked_equipment.request_type` + `shipment_number` of `trackedEquipmentIds`). A reference already subscribed
 * (`creating`/`active`) is left alone (its new boxes are told to poll slower); one `failed` or `deleted` before is
 * subscribed again with a new secret. The row (with the secret encrypted) is written BEFORE the carrier is asked,
 * so the callback URL resolves when the carrier checks it. On success the row is `active` and the covered Trackers
 * poll {@link PUSH_POLL_INTERVAL_FACTOR}× slower; on failure it is `failed` with the reason and polling stays as it
 * was. Never throws: subscriptions are an optimisation over polling, which keeps tracking whatever happens here.
 */
export async function subscribeTrackedBoxes(
  deps: SubscriptionDeps,
  scac: string,
  trackedEquipmentIds: readonly string[],
): Promise<void> {
  try {
    const config = dcsaConfigs(deps.env.DCSA_SOURCES).get(scac);
    if (!config?.subscriptions || trackedEquipmentIds.length === 0) return;
    const base = callbackBaseUrl(deps.env.PUBLIC_BASE_URL);
    const key = await subscriptionKeyFrom(deps.env.UPSTREAM_SUBSCRIPTION_KEY);
    if (!base || !key) {
      warnOnce(
        `subscriptions: ${scac} has "subscriptions": true but ${!base ? "PUBLIC_BASE_URL is not an https origin" : "UPSTREAM_SUBSCRIPTION_KEY is not base64 of 32 bytes"}; polling only`,
      );
      return;
    }
    const db = createDatabase(deps.env.DB);
    const boxes = await db
      .select({ requestType: trackedEquipment.requestType, shipmentNumber: trackedEquipment.shipmentNumber })
      .from(trackedEquipment)
      .where(inArray(trackedEquipment.id, [...trackedEquipmentIds]));
    const references = new Map<string, { requestType: string; number: string }>();
    for (const b of boxes) {
      if (!b.shipmentNumber) continue;
      const requestType = b.requestType ?? "bill_of_lading";
      references.set(`${requestType}|${b.shipmentNumber}`, { requestType, number: b.shipmentNumber });
    }
    for (const reference of references.values()) {
      await subscribeReference(deps, db, scac, config, base, key, reference);
    }
  } catch (err) {
    console.error(`subscriptions: ${scac}: could not subscribe`, String(err));
  }
}

async function subscribeReference(
  deps: SubscriptionDeps,
  db: Database,
  scac: string,
  config: DcsaSourceConfig,
  base: string,
  key: CryptoKey,
  reference: { requestType: string; number: string },
): Promise<void> {
  const ctx = contextOf(deps);
  const now = toIsoSeconds(ctx.nowMs);
  const provider = dcsaProvider(scac);
  const existing = await findSubscriptionRow(db, {
    provider,
    referenceType: reference.requestType,
    referenceNumber: reference.number,
  });
  const boxes = (await liveBoxes(db, scac, reference.number)).map((b) => b.number);
  // A `creating` row older than the retry delay was abandoned (the isolate died before the carrier answered).
  const creating =
    existing?.status === "creating" && Date.parse(existing.updatedAt) > ctx.nowMs - SUBSCRIPTION_RETRY_AFTER_MS;
  if (existing && (existing.status === "active" || creating)) {
    if (existing.status === "active") await tellTrackers(deps, scac, boxes, true);
    return;
  }
  const id = existing?.id ?? newId();
  const secret = newSubscriptionSecret();
  const row: CreatingSubscription = {
    callbackUrl: dcsaCallbackUrl(base, id),
    secretCiphertext: await encryptSecret(key, id, secret),
    status: "creating",
    upstreamId: null,
    lastError: null,
    deletedAt: null,
    updatedAt: now,
  };
  // Taken over only from the state read (a concurrent lookup that got there first wins).
  const subscription = { provider, scac, referenceType: reference.requestType, referenceNumber: reference.number };
  if (!(await claimSubscriptionRow(db, id, existing, subscription, row))) return;
  const outcome = await createDcsaSubscription(
    scac,
    config,
    {
      requestType: reference.requestType,
      number: reference.number,
      callbackUrl: row.callbackUrl,
      secretBase64: secret,
    },
    ctx,
    { tokens: tokenBrokerFor(deps.env) },
  );
  const done = toIsoSeconds((deps.clock ?? systemClock).now());
  if (outcome.kind === "created") {
    await markSubscriptionActive(db, id, outcome.subscriptionId, done);
    await tellTrackers(deps, scac, boxes, true);
    return;
  }
  const error = outcome.kind === "failed" ? outcome.error : "unexpected answer";
  console.warn(`subscriptions: ${scac} ${reference.requestType} ${reference.number}: carrier ${error}; polling only`);
  await markSubscriptionFailed(db, id, error, done);
}

/** What one sweep did. */
export interface SweepReport {
  deleted: number;
  deleteFailures: number;
  receiptsPruned: number;
  /** Failed subscriptions asked for again (whatever the carrier answered). */
  retried: number;
}

/**
 * The every-minute cleanup (src/index.ts `scheduled`) of DCSA subscriptions (`dcsa:*` rows only; other providers
 * sweep their own): deletes at the carrier every subscription whose reference no
 * live box is polled by any more (tracking stopped: `PATCH /shipments/{id}/stop_tracking`, archiving, the automatic
 * stops of src/tracking/maintenance.ts: all end in `tracked_equipment.stopped_at`), at most 50 per run; a carrier
 * that answers 2xx or 404 → `deleted`; one that fails keeps the row as it was (with `last_error`) and is asked again
 * next run. A `failed` or `creating` row without an upstream id is simply marked deleted. Retries subscriptions the
 * carrier refused ({@link SUBSCRIPTION_RETRY_AFTER_MS}) and prunes callback receipts older than
 * {@link CALLBACK_REPLAY_WINDOW_MS}. Never throws.
 */
export async function sweepUpstreamSubscriptions(deps: SubscriptionDeps): Promise<SweepReport> {
  const report: SweepReport = { deleted: 0, deleteFailures: 0, receiptsPruned: 0, retried: 0 };
  try {
    const db = createDatabase(deps.env.DB);
    const ctx = contextOf(deps);
    const orphans = await db
      .select()
      .from(upstreamSubscriptions)
      .where(
        and(
          like(upstreamSubscriptions.provider, "dcsa:%"),
          inArray(upstreamSubscriptions.status, ["active", "creating", "failed"]),
          sql`NOT EXISTS (SELECT 1 FROM ${trackedEquipment} WHERE ${trackedEquipment.scac} = ${upstreamSubscriptions.scac}
            AND ${trackedEquipment.shipmentNumber} = ${upstreamSubscriptions.referenceNumber}
            AND ${trackedEquipment.stoppedAt} IS NULL)`,
        ),
      )
      .limit(SWEEP_BATCH);
    const configs = dcsaConfigs(deps.env.DCSA_SOURCES);
    for (const row of orphans) {
      const now = toIsoSeconds(ctx.nowMs);
      const config = row.scac ? configs.get(row.scac) : undefined;
      if (row.upstreamId && row.provider.startsWith("dcsa:") && config && row.scac) {
        const outcome = await deleteDcsaSubscription(row.scac, config, row.upstreamId, ctx, {
          tokens: tokenBrokerFor(deps.env),
        });
        if (outcome.kind === "failed") {
          report.deleteFailures++;
          console.warn(`subscriptions: deleting ${row.provider} ${row.referenceNumber}: carrier ${outcome.error}`);
          await noteSubscriptionDeleteFailure(db, row.id, outcome.error, now);
          continue;
        }
      }
      await markSubscriptionDeleted(db, row.id, now);
      report.deleted++;
      // Its boxes (stopped) poll at their own rate again if tracking resumes, until a new subscription is active.
      if (row.scac) {
        const covered = await db
          .select({ number: trackedEquipment.number })
          .from(trackedEquipment)
          .where(and(eq(trackedEquipment.scac, row.scac), eq(trackedEquipment.shipmentNumber, row.referenceNumber)));
        await tellTrackers(
          deps,
          row.scac,
          covered.map((b) => b.number),
          false,
        );
      }
    }
    report.retried = await retryFailedSubscriptions(deps, db, ctx.nowMs);
    const pruned = await db
      .delete(upstreamCallbackReceipts)
      .where(lt(upstreamCallbackReceipts.receivedAt, toIsoSeconds(ctx.nowMs - CALLBACK_REPLAY_WINDOW_MS)))
      .returning({ id: upstreamCallbackReceipts.subscriptionId });
    report.receiptsPruned = pruned.length;
  } catch (err) {
    console.error("subscriptions: sweep failed", String(err));
  }
  return report;
}

/**
 * Asks the carrier again, with a new secret, for DCSA subscriptions whose reference is tracked (a live box) but that
 * are not active: `failed` or abandoned `creating` ones at least {@link SUBSCRIPTION_RETRY_AFTER_MS} old, and
 * `deleted` ones (tracking resumed after the sweep deleted them). At most 10 per run. Returns how many were retried.
 */
async function retryFailedSubscriptions(deps: SubscriptionDeps, db: Database, nowMs: number): Promise<number> {
  const base = callbackBaseUrl(deps.env.PUBLIC_BASE_URL);
  const key = await subscriptionKeyFrom(deps.env.UPSTREAM_SUBSCRIPTION_KEY);
  if (!base || !key) return 0;
  const due = await db
    .select()
    .from(upstreamSubscriptions)
    .where(
      and(
        like(upstreamSubscriptions.provider, "dcsa:%"),
        or(
          eq(upstreamSubscriptions.status, "deleted"),
          and(
            inArray(upstreamSubscriptions.status, ["failed", "creating"]),
            lt(upstreamSubscriptions.updatedAt, toIsoSeconds(nowMs - SUBSCRIPTION_RETRY_AFTER_MS)),
          ),
        ),
        sql`EXISTS (SELECT 1 FROM ${trackedEquipment} WHERE ${trackedEquipment.scac} = ${upstreamSubscriptions.scac}
          AND ${trackedEquipment.shipmentNumber} = ${upstreamSubscriptions.referenceNumber}
          AND ${trackedEquipment.stoppedAt} IS NULL)`,
      ),
    )
    .limit(RETRY_BATCH);
  const configs = dcsaConfigs(deps.env.DCSA_SOURCES);
  let retried = 0;
  for (const row of due) {
    const config = row.scac ? configs.get(row.scac) : undefined;
    if (!row.scac || !config?.subscriptions || !row.provider.startsWith("dcsa:")) continue;
    await subscribeReference(deps, db, row.scac, config, base, key, {
      requestType: row.referenceType,
      number: row.referenceNumber,
    });
    retried++;
  }
  return retried;
}

/** The answer to a callback: HTTP status and, for a refusal, why (no secret, no body echoed). */
export interface CallbackOutcome {
  status: 204 | 400 | 401 | 404 | 409 | 410 | 413 | 503;
  detail?: string;
  /** Boxes whose immediate poll was queued (accepted callbacks only). */
  polled?: string[];
}

/** Looks a subscription up for the endpoint check (`HEAD`/`GET`): known and not deleted. */
export async function findLiveSubscription(
  env: Pick<Env, "DB">,
  provider: "dcsa",
  id: string,
): Promise<UpstreamSubscriptionRow | null> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return null;
  const [row] = await createDatabase(env.DB)
    .select()
    .from(upstreamSubscriptions)
    .where(eq(upstreamSubscriptions.id, id))
    .limit(1);
  if (!row?.provider.startsWith(`${provider}:`) || row.status === "deleted") return null;
  return row;
}

/**
 * Handles one DCSA TNT 2.2 callback (`POST` to a subscription's callback URL); `readBody` yields the exact bytes
 * received and is called only once the subscription is found live, so a callback to an unknown or deleted one costs no
 * body read. In order, each refusal writing nothing:
 * unknown subscription → 404; deleted → 410 (the carrier should stop); body over {@link MAX_CALLBACK_BODY_BYTES},
 * declared or streamed → 413; `UPSTREAM_SUBSCRIPTION_KEY` unset or the stored secret not decrypting → 503 (our configuration; the carrier
 * retries); `Notification-Signature` missing, malformed, not `sha256` or not matching → 401
 * (src/callbacks/signatures.ts); a `Subscription-ID` header other than the carrier's id of this subscription → 401;
 * a body that is not a JSON array (the spec's payload: a list of events) → 400; the same body already accepted for
 * this subscription within {@link CALLBACK_REPLAY_WINDOW_MS} → 409 (replay). Accepted → 204 (as TNT 2.2 asks): the
 * body is kept in `upstream_callback_receipts`, `last_callback_at` / `callback_count` move on, and each live box the
 * subscription covers gets an immediate poll on `terminal-polls` (see the module docstring for why).
 */
export async function handleDcsaCallback(
  deps: SubscriptionDeps & { env: { TERMINAL_POLLS_QUEUE: Env["TERMINAL_POLLS_QUEUE"] } },
  id: string,
  headers: Headers,
  readBody: PendingBody,
): Promise<CallbackOutcome> {
  if (!/^[0-9a-f-]{36}$/i.test(id)) return { status: 404, detail: "No such subscription." };
  const db = createDatabase(deps.env.DB);
  const [row] = await db.select().from(upstreamSubscriptions).where(eq(upstreamSubscriptions.id, id)).limit(1);
  if (!row?.provider.startsWith("dcsa:")) return { status: 404, detail: "No such subscription." };
  if (row.status === "deleted") return { status: 410, detail: "This subscription was deleted." };
  const body = await readBody();
  if (body === BODY_TOO_LARGE) return { status: 413, detail: "The body is too large." };
  const key = await subscriptionKeyFrom(deps.env.UPSTREAM_SUBSCRIPTION_KEY);
  const secret = key ? await decryptSecret(key, row.id, row.secretCiphertext) : null;
  if (!secret) {
    console.error(`subscriptions: cannot read the secret of ${row.id}: check UPSTREAM_SUBSCRIPTION_KEY`);
    return { status: 503, detail: "Callbacks cannot be verified right now." };
  }
  const verdict = await verifyDcsaNotificationSignature(body, headers, secret);
  if (!verdict.ok) return { status: 401, detail: `Notification-Signature refused: ${verdict.reason}.` };
  const subscriptionHeader = headers.get("Subscription-ID")?.trim();
  if (subscriptionHeader && row.upstreamId && subscriptionHeader !== row.upstreamId) {
    return { status: 401, detail: "Subscription-ID does not name this subscription." };
  }
  const parsed = parseCallbackJson(body);
  if (!parsed) return { status: 400, detail: "The body is not UTF-8 JSON." };
  if (!Array.isArray(parsed.value)) return { status: 400, detail: "The body is not a list of events." };
  const scac = row.scac ?? row.provider.slice("dcsa:".length);
  const boxes = await acceptCallback(
    db,
    row,
    { body, text: parsed.text, eventCount: parsed.value.length, at: toIsoSeconds((deps.clock ?? systemClock).now()) },
    { scac, column: "shipmentNumber", value: row.referenceNumber },
  );
  if (!boxes) return { status: 409, detail: "This callback was already received (replay)." };
  if (boxes.length > 0)
    await deps.env.TERMINAL_POLLS_QUEUE.sendBatch(boxes.map((number) => ({ body: { scac, number } })));
  return { status: 204, polled: boxes };
}
