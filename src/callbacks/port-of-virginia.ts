/**
 * Port of Virginia availability pushes (issue 14 adapter 3: "subscriptions with a callback URL that push a change of
 * availability: use them like the carriers' push subscriptions, polling kept as the safety net"), on the generic
 * upstream subscription store of issue 13 §4 (src/callbacks/lifecycle.ts, `upstream_subscriptions`).
 *
 * - Create: when tracking starts (after the first successful lookup, src/tracking/consumers.ts), for each box whose
 *   POD terminal is one `TERMINAL_SOURCES.port_of_virginia` serves with `"subscriptions": true`, one subscription at
 *   the port per box: `POST /import-availability/subscriptions` with the container, its bill of lading and our
 *   callback URL (src/tracking/sources/terminal-operators/port-of-virginia.ts `createPortOfVirginiaSubscription`).
 *   Needs `PUBLIC_BASE_URL` and `UPSTREAM_SUBSCRIPTION_KEY`, as the carriers' subscriptions do.
 * - Rows: `provider` = `port_of_virginia:<container number>` (the port subscribes boxes, not references), `scac`,
 *   `reference_type` / `reference_number` = what the box is polled by (`tracked_equipment.request_type` /
 *   `shipment_number`), so the generic store's rules (one row per provider and reference, the sweep's "no live box
 *   polled by that reference") hold unchanged.
 * - Verify: the port documents no signature on its callbacks, so the callback URL is the credential: it ends in a
 *   random 256-bit token (hex), kept AES-GCM encrypted like a carrier's signing secret and compared in constant
 *   time. And the pushed body is never trusted: it is kept (raw, replays refused by digest) and only triggers an
 *   immediate poll of the box on `terminal-polls`, the same lookup → Tracker.applyPoll path as a scheduled poll, which
 *   asks the port itself with our key. So a leaked URL can at most cause polls, never write data.
 * - Polling is unchanged (the push covers only the availability status, not LFD, holds or the carrier's events): the
 *   push makes an availability change land at once instead of at the next scheduled poll.
 * - Delete: the every-minute sweep ({@link sweepPortOfVirginiaSubscriptions}, run before the generic one) deletes at
 *   the port the subscription of every box no longer tracked (`tracked_equipment.stopped_at`); 2xx or 404 →
 *   `deleted` (the port also expires them a few days after the box leaves, as its Event Subscription API documents).
 *   The payload format of a push is not documented: any JSON body is accepted as the trigger.
 */
import { and, eq, inArray, like, sql } from "drizzle-orm";
import { createDatabase, type Database } from "../db/client";
import { trackedEquipment, upstreamSubscriptions } from "../db/schema";
import { type Clock, systemClock, toIsoSeconds } from "../lib/clock";
import { toHex } from "../lib/crypto";
import { newId } from "../lib/ids";
import { BODY_TOO_LARGE, type PendingBody } from "../lib/request-body";
import { resolveTerminal } from "../reference/locations";
import { tokenBrokerFor } from "../tracking/sources/credentials";
import { parseTerminalSources, type TerminalProviderConfig } from "../tracking/sources/terminal-operators";
import {
  createPortOfVirginiaSubscription,
  deletePortOfVirginiaSubscription,
} from "../tracking/sources/terminal-operators/port-of-virginia";
import type { SourceContext } from "../tracking/sources/types";
import { type CallbackOutcome, callbackBaseUrl, MAX_CALLBACK_BODY_BYTES } from "./lifecycle";
import { decryptSecret, encryptSecret, subscriptionKeyFrom } from "./secrets";
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

/** `upstream_subscriptions.provider` prefix of the port's subscriptions; the container number follows. */
export const PORT_OF_VIRGINIA_PROVIDER_PREFIX = "port_of_virginia:";
/** Subscriptions the sweep deletes per run. */
const SWEEP_BATCH = 50;

/** What this module needs; tests inject the clock and the network. */
export interface PortOfVirginiaSubscriptionDeps {
  env: Pick<Env, "DB" | "TERMINAL_SOURCES" | "PUBLIC_BASE_URL" | "UPSTREAM_SUBSCRIPTION_KEY"> &
    Partial<Pick<Env, "CREDENTIALS" | "TERMINAL_POLLS_QUEUE">>;
  clock?: Clock;
  fetch?: typeof fetch;
}

/** The shipment a lookup found, as far as subscribing its boxes needs it. */
export interface PortOfVirginiaShipment {
  /** The line's own SCAC. */
  scac: string;
  /** The POD terminal as the carrier names it, and the POD's UN/LOCODE to resolve it. */
  podTerminalCode: string | null;
  portOfDischargeLocode: string | null;
  /** The bill of lading the port knows the boxes by (its API needs container AND BL); null: no subscription. */
  billOfLadingNumber: string | null;
}

/** The URL the port posts availability changes of subscription `id` to: `{base}/callbacks/port-of-virginia/{id}/{token}`. */
export const portOfVirginiaCallbackUrl = (base: string, id: string, token: string): string =>
  `${base}/callbacks/port-of-virginia/${id}/${token}`;

let configCache: { key: string; config: TerminalProviderConfig | null } | null = null;
/** The `port_of_virginia` entry of `TERMINAL_SOURCES`, parsed once per configuration. */
function portConfig(json: string | undefined): TerminalProviderConfig | null {
  const key = json ?? "";
  if (configCache?.key !== key)
    configCache = { key, config: parseTerminalSources(json).get("port_of_virginia") ?? null };
  return configCache.config;
}

const warned = new Set<string>();
function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  console.warn(message);
}

function contextOf(deps: PortOfVirginiaSubscriptionDeps): SourceContext {
  return {
    nowMs: (deps.clock ?? systemClock).now(),
    fetch: deps.fetch ?? ((input, init) => fetch(input, init)),
  };
}

/** A new callback token: 32 CSPRNG bytes, hex (URL-safe). */
function newCallbackToken(): string {
  return toHex(crypto.getRandomValues(new Uint8Array(32)));
}

/** Equality of two strings in time independent of where they differ. */
function constantTimeEqual(a: string, b: string): boolean {
  const x = new TextEncoder().encode(a);
  const y = new TextEncoder().encode(b);
  let diff = x.length ^ y.length;
  for (let i = 0; i < Math.max(x.length, y.length); i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}

/**
 * After a successful lookup: subscribes at the port each live box of `trackedEquipmentIds` when the shipment's POD
 * terminal is one the `port_of_virginia` entry of `TERMINAL_SOURCES` serves with `"subscriptions": true` and a bill
 * of lading is known. A box already subscribed (`creating`/`active`) is left alone; one `failed` or `deleted` before
 * is subscribed again with a new token. The row is written BEFORE the port is asked; on success it is `active`, on
 * failure `failed` with the reason (polling goes on as before). Never throws: pushes only speed polling up.
 */
export async function subscribePortOfVirginiaBoxes(
  deps: PortOfVirginiaSubscriptionDeps,
  shipment: PortOfVirginiaShipment,
  trackedEquipmentIds: readonly string[],
): Promise<void> {
  try {
    const config = portConfig(deps.env.TERMINAL_SOURCES);
    if (!config?.subscriptions || trackedEquipmentIds.length === 0) return;
    const terminal = resolveTerminal(shipment.podTerminalCode, shipment.portOfDischargeLocode);
    const facility = terminal?.firmsCode ?? terminal?.bicFacilityCode ?? null;
    if (!facility || !(facility in config.facilities)) return;
    const bl = shipment.billOfLadingNumber?.trim();
    if (!bl) return;
    const base = callbackBaseUrl(deps.env.PUBLIC_BASE_URL);
    const key = await subscriptionKeyFrom(deps.env.UPSTREAM_SUBSCRIPTION_KEY);
    if (!base || !key) {
      warnOnce(
        `subscriptions: port_of_virginia has "subscriptions": true but ${!base ? "PUBLIC_BASE_URL is not an https origin" : "UPSTREAM_SUBSCRIPTION_KEY is not base64 of 32 bytes"}; polling only`,
      );
      return;
    }
    const db = createDatabase(deps.env.DB);
    const boxes = await db
      .select({
        number: trackedEquipment.number,
        requestType: trackedEquipment.requestType,
        shipmentNumber: trackedEquipment.shipmentNumber,
        stoppedAt: trackedEquipment.stoppedAt,
      })
      .from(trackedEquipment)
      .where(inArray(trackedEquipment.id, [...trackedEquipmentIds]));
    for (const box of boxes) {
      // A carrier with no BL reports the container number in its place (DCSA's last resort): no pair to ask with.
      if (box.stoppedAt || !box.shipmentNumber || bl.toUpperCase() === box.number.toUpperCase()) continue;
      await subscribeBox(deps, db, config, base, key, shipment.scac, bl, {
        number: box.number,
        requestType: box.requestType ?? "bill_of_lading",
        shipmentNumber: box.shipmentNumber,
      });
    }
  } catch (err) {
    console.error("subscriptions: port_of_virginia: could not subscribe", String(err));
  }
}

async function subscribeBox(
  deps: PortOfVirginiaSubscriptionDeps,
  db: Database,
  config: TerminalProviderConfig,
  base: string,
  key: CryptoKey,
  scac: string,
  billOfLadingNumber: string,
  box: { number: string; requestType: string; shipmentNumber: string },
): Promise<void> {
  const ctx = contextOf(deps);
  const now = toIsoSeconds(ctx.nowMs);
  const provider = `${PORT_OF_VIRGINIA_PROVIDER_PREFIX}${box.number}`;
  const existing = await findSubscriptionRow(db, {
    provider,
    referenceType: box.requestType,
    referenceNumber: box.shipmentNumber,
  });
  if (existing && (existing.status === "active" || existing.status === "creating")) return;
  const id = existing?.id ?? newId();
  const token = newCallbackToken();
  const row: CreatingSubscription = {
    callbackUrl: portOfVirginiaCallbackUrl(base, id, token),
    secretCiphertext: await encryptSecret(key, id, token),
    status: "creating",
    upstreamId: null,
    lastError: null,
    deletedAt: null,
    updatedAt: now,
  };
  const subscription = { provider, scac, referenceType: box.requestType, referenceNumber: box.shipmentNumber };
  if (!(await claimSubscriptionRow(db, id, existing, subscription, row))) return;
  const outcome = await createPortOfVirginiaSubscription(
    config,
    { containerNumber: box.number, billOfLadingNumber, callbackUrl: row.callbackUrl },
    ctx,
    { tokens: tokenBrokerFor(deps.env) },
  );
  const done = toIsoSeconds((deps.clock ?? systemClock).now());
  if (outcome.kind === "created") {
    await markSubscriptionActive(db, id, outcome.subscriptionId, done);
    return;
  }
  const error = outcome.kind === "failed" ? outcome.error : "unexpected answer";
  console.warn(`subscriptions: port_of_virginia ${box.number}: port ${error}; polling only`);
  await markSubscriptionFailed(db, id, error, done);
}

/** What one sweep of the port's subscriptions did. */
export interface PortOfVirginiaSweepReport {
  deleted: number;
  deleteFailures: number;
  /** Failed subscriptions asked for again (whatever the port answered). */
  retried: number;
}

/** A subscription the port refused is asked for again after this long (ms, 1 h), once the port reports the box. */
export const PORT_OF_VIRGINIA_RETRY_AFTER_MS = 3600 * 1000;
/** Failed subscriptions the sweep retries per run. */
const RETRY_BATCH = 10;

/**
 * Asks the port again for subscriptions left `failed` at least {@link PORT_OF_VIRGINIA_RETRY_AFTER_MS} ago whose box
 * is still tracked AND now known to the port (a poll found it: `containers.availability_known`), with the BL of its
 * shipment: a box tracked while still at sea is refused by the port until its manifest reaches the terminal system, so
 * retrying before the port reports it would only repeat the refusal. At most {@link RETRY_BATCH} per run.
 */
async function retryFailedSubscriptions(deps: PortOfVirginiaSubscriptionDeps, db: Database, nowMs: number) {
  const config = portConfig(deps.env.TERMINAL_SOURCES);
  const base = callbackBaseUrl(deps.env.PUBLIC_BASE_URL);
  const key = await subscriptionKeyFrom(deps.env.UPSTREAM_SUBSCRIPTION_KEY);
  if (!config?.subscriptions || !base || !key) return 0;
  const { results } = await deps.env.DB.prepare(
    `SELECT u.scac AS scac, substr(u.provider, ?1) AS number, u.reference_type AS referenceType,
       u.reference_number AS shipmentNumber, MIN(s.bill_of_lading_number) AS bl
     FROM upstream_subscriptions u
     JOIN tracked_equipment t ON t.scac = u.scac AND t.number = substr(u.provider, ?1) AND t.stopped_at IS NULL
     JOIN containers c ON c.tracked_equipment_id = t.id AND c.availability_known = 1
     JOIN shipments s ON s.id = c.shipment_id
     WHERE u.provider LIKE ?2 AND u.status = 'failed' AND u.updated_at < ?3
     GROUP BY u.id LIMIT ?4`,
  )
    .bind(
      PORT_OF_VIRGINIA_PROVIDER_PREFIX.length + 1,
      `${PORT_OF_VIRGINIA_PROVIDER_PREFIX}%`,
      toIsoSeconds(nowMs - PORT_OF_VIRGINIA_RETRY_AFTER_MS),
      RETRY_BATCH,
    )
    .all<{ scac: string; number: string; referenceType: string; shipmentNumber: string; bl: string | null }>();
  let retried = 0;
  for (const row of results) {
    if (!row.bl) continue;
    await subscribeBox(deps, db, config, base, key, row.scac, row.bl, {
      number: row.number,
      requestType: row.referenceType,
      shipmentNumber: row.shipmentNumber,
    });
    retried++;
  }
  return retried;
}

/**
 * Deletes at the port the subscription of every box no longer tracked (no `tracked_equipment` row of its SCAC and
 * number without `stopped_at`), at most 50 per run: 2xx or 404 → `deleted`; a failure keeps the row (with
 * `last_error`) for the next run; a row without a port id is simply marked deleted. Then retries refused
 * subscriptions of boxes the port now reports ({@link PORT_OF_VIRGINIA_RETRY_AFTER_MS}). Run before the generic
 * sweep (src/index.ts), which would otherwise mark them deleted without asking the port. Never throws.
 */
export async function sweepPortOfVirginiaSubscriptions(
  deps: PortOfVirginiaSubscriptionDeps,
): Promise<PortOfVirginiaSweepReport> {
  const report: PortOfVirginiaSweepReport = { deleted: 0, deleteFailures: 0, retried: 0 };
  try {
    const db = createDatabase(deps.env.DB);
    const ctx = contextOf(deps);
    const prefixLength = PORT_OF_VIRGINIA_PROVIDER_PREFIX.length;
    const orphans = await db
      .select()
      .from(upstreamSubscriptions)
      .where(
        and(
          like(upstreamSubscriptions.provider, `${PORT_OF_VIRGINIA_PROVIDER_PREFIX}%`),
          inArray(upstreamSubscriptions.status, ["active", "creating", "failed"]),
          sql`NOT EXISTS (SELECT 1 FROM ${trackedEquipment} WHERE ${trackedEquipment.scac} = ${upstreamSubscriptions.scac}
            AND ${trackedEquipment.number} = substr(${upstreamSubscriptions.provider}, ${prefixLength + 1})
            AND ${trackedEquipment.stoppedAt} IS NULL)`,
        ),
      )
      .limit(SWEEP_BATCH);
    const config = portConfig(deps.env.TERMINAL_SOURCES);
    for (const row of orphans) {
      const now = toIsoSeconds(ctx.nowMs);
      if (row.upstreamId && config) {
        const outcome = await deletePortOfVirginiaSubscription(config, row.upstreamId, ctx, {
          tokens: tokenBrokerFor(deps.env),
        });
        if (outcome.kind === "failed") {
          report.deleteFailures++;
          console.warn(`subscriptions: deleting ${row.provider}: port ${outcome.error}`);
          await noteSubscriptionDeleteFailure(db, row.id, outcome.error, now);
          continue;
        }
      }
      await markSubscriptionDeleted(db, row.id, now);
      report.deleted++;
    }
    report.retried = await retryFailedSubscriptions(deps, db, ctx.nowMs);
  } catch (err) {
    console.error("subscriptions: port_of_virginia sweep failed", String(err));
  }
  return report;
}

/**
 * Handles a push of the port (`POST /callbacks/port-of-virginia/{id}/{token}`; `readBody` yields the exact bytes
 * received and is called only once the URL's token matched, so an unknown or forged URL costs no body read). In
 * order, each refusal writing nothing: an id that is not ours or a token that does not match → 404 (an unknown and
 * a forged URL look the same); a deleted subscription → 410; a body over {@link MAX_CALLBACK_BODY_BYTES}, declared or
 * streamed → 413;
 * `UPSTREAM_SUBSCRIPTION_KEY` unset or the stored token not decrypting → 503; a body that is not UTF-8 JSON → 400;
 * the same body already accepted within the replay window → 409. Accepted → 204: the body is kept in
 * `upstream_callback_receipts`, `last_callback_at` / `callback_count` move on, and the box (if still tracked) gets
 * an immediate poll on `terminal-polls`; the body itself is never mapped (see the module docstring).
 */
export async function handlePortOfVirginiaCallback(
  deps: PortOfVirginiaSubscriptionDeps & { env: { TERMINAL_POLLS_QUEUE: Env["TERMINAL_POLLS_QUEUE"] } },
  id: string,
  token: string,
  readBody: PendingBody,
): Promise<CallbackOutcome> {
  const notFound: CallbackOutcome = { status: 404, detail: "No such subscription." };
  if (!/^[0-9a-f-]{36}$/i.test(id) || !/^[0-9a-f]{1,128}$/i.test(token)) return notFound;
  const db = createDatabase(deps.env.DB);
  const [row] = await db.select().from(upstreamSubscriptions).where(eq(upstreamSubscriptions.id, id)).limit(1);
  if (!row?.provider.startsWith(PORT_OF_VIRGINIA_PROVIDER_PREFIX)) return notFound;
  const key = await subscriptionKeyFrom(deps.env.UPSTREAM_SUBSCRIPTION_KEY);
  const expected = key ? await decryptSecret(key, row.id, row.secretCiphertext) : null;
  if (!expected) {
    console.error(`subscriptions: cannot read the callback token of ${row.id}: check UPSTREAM_SUBSCRIPTION_KEY`);
    return { status: 503, detail: "Callbacks cannot be verified right now." };
  }
  if (!constantTimeEqual(expected, token.toLowerCase())) return notFound;
  if (row.status === "deleted") return { status: 410, detail: "This subscription was deleted." };
  const body = await readBody();
  if (body === BODY_TOO_LARGE) return { status: 413, detail: "The body is too large." };
  const parsed = parseCallbackJson(body);
  if (!parsed) return { status: 400, detail: "The body is not UTF-8 JSON." };
  const number = row.provider.slice(PORT_OF_VIRGINIA_PROVIDER_PREFIX.length);
  const scac = row.scac ?? "";
  const boxes = await acceptCallback(
    db,
    row,
    {
      body,
      text: parsed.text,
      eventCount: Array.isArray(parsed.value) ? parsed.value.length : 1,
      at: toIsoSeconds((deps.clock ?? systemClock).now()),
    },
    { scac, column: "number", value: number },
  );
  if (!boxes) return { status: 409, detail: "This callback was already received (replay)." };
  if (boxes.length === 0) return { status: 204, polled: [] };
  await deps.env.TERMINAL_POLLS_QUEUE.send({ scac, number });
  return { status: 204, polled: [number] };
}
