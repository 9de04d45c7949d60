import { env } from "cloudflare:test";
import { withCheckDigit } from "../../src/infer/iso6346";
import { toIsoSeconds } from "../../src/lib/clock";
import { newId } from "../../src/lib/ids";
import type { SourceRegistry } from "../../src/tracking/sources";
import type {
  CarrierSource,
  LookupRequest,
  LookupResult,
  SourceContext,
  TerminalPollResult,
  TerminalSource,
} from "../../src/tracking/sources/types";
import { trackerName } from "../../src/tracking/tracker-state";
import type { TestAccount } from "./api";

// Test doubles and D1 readers for the tracking engine: a queue that records instead of delivering, fake
// carrier and terminal sources that count their calls, fact builders, and raw row readers.

/**
 * A start time years ahead of the real clock: every alarm a Tracker sets from a FakeClock based on it lies in the
 * future, so no alarm fires (and no background poll runs on the real clock) while a test runs.
 */
export const FUTURE_T0 = Date.UTC(2030, 0, 7, 6, 0, 0);

/** A queue that keeps what is sent instead of delivering it. */
export interface RecordingQueue<T> extends Queue<T> {
  sent: { body: T; delaySeconds: number | undefined }[];
}

/** A `Queue` that records every message (and its delay) and delivers nothing. */
export function recordingQueue<T>(): RecordingQueue<T> {
  const sent: { body: T; delaySeconds: number | undefined }[] = [];
  const metadata = { metrics: { backlogCount: 0, backlogBytes: 0 } };
  return {
    sent,
    async metrics() {
      return { backlogCount: sent.length, backlogBytes: 0 };
    },
    async send(body: T, options?: QueueSendOptions) {
      sent.push({ body, delaySeconds: options?.delaySeconds });
      return { metadata };
    },
    async sendBatch(messages: Iterable<MessageSendRequest<T>>, options?: QueueSendBatchOptions) {
      for (const m of messages) sent.push({ body: m.body, delaySeconds: m.delaySeconds ?? options?.delaySeconds });
      return { metadata };
    },
  };
}

/** The test env with the tracking-requests producer swapped for a recorder (no background lookups). */
export function envWithQueue(queue: RecordingQueue<{ trackingRequestId: string; accountId: string }>): Env {
  return { ...env, TRACKING_REQUESTS_QUEUE: queue };
}

/** Options of `insertRequest`. */
export interface InsertRequestOptions {
  number: string;
  scac?: string;
  requestType?: string;
  createdAtMs: number;
  status?: string;
  nextAttemptAtMs?: number | null;
  updatedAtMs?: number;
}

/**
 * Writes a tracking request straight into D1 (no queue message, so nothing processes it behind the test's back).
 * Returns its id.
 */
export async function insertRequest(account: TestAccount, options: InsertRequestOptions): Promise<string> {
  const id = newId();
  const scac = options.scac ?? "TEST";
  const created = toIsoSeconds(options.createdAtMs);
  await env.DB.batch([
    env.DB.prepare(
      `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, line_scac,
         status, next_attempt_at, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?5, ?6, ?7, ?8, ?9)`,
    ).bind(
      id,
      account.accountId,
      options.requestType ?? "bill_of_lading",
      options.number,
      scac,
      options.status ?? "pending",
      options.nextAttemptAtMs == null ? null : toIsoSeconds(options.nextAttemptAtMs),
      created,
      toIsoSeconds(options.updatedAtMs ?? options.createdAtMs),
    ),
    env.DB.prepare(
      `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?1, 'tracking_request', 1)
       ON CONFLICT (account_id, resource) DO UPDATE SET count = count + 1`,
    ).bind(account.accountId),
  ]);
  return id;
}

/** A tracking request row as D1 holds it (snake_case). */
export interface RequestRow {
  status: string;
  failed_reason: string | null;
  is_retrying: number;
  retry_count: number | null;
  shipment_id: string | null;
  next_attempt_at: string | null;
}

/** Reads one tracking request row. */
export async function requestRow(id: string): Promise<RequestRow> {
  const row = await env.DB.prepare(
    "SELECT status, failed_reason, is_retrying, retry_count, shipment_id, next_attempt_at FROM tracking_requests WHERE id = ?1",
  )
    .bind(id)
    .first<RequestRow>();
  if (!row) throw new Error(`no tracking request ${id}`);
  return row;
}

/** A container row as D1 holds it (snake_case; JSON columns still strings). */
export type ContainerRow = Record<string, unknown> & {
  id: string;
  number: string;
  current_status: string;
  holds_at_pod_terminal: string;
  fees_at_pod_terminal: string;
  updated_at: string;
};

/** The container rows of a shipment, by number. */
export async function containersOfShipment(shipmentId: string): Promise<ContainerRow[]> {
  const { results } = await env.DB.prepare("SELECT * FROM containers WHERE shipment_id = ?1 ORDER BY number")
    .bind(shipmentId)
    .all<ContainerRow>();
  return results;
}

/** One container row. */
export async function containerRow(id: string): Promise<ContainerRow> {
  const row = await env.DB.prepare("SELECT * FROM containers WHERE id = ?1").bind(id).first<ContainerRow>();
  if (!row) throw new Error(`no container ${id}`);
  return row;
}

/** The transport events of a container, oldest first: `[event, timestamp, value]`. */
export async function transportEventsOf(
  containerId: string,
): Promise<{ event: string; timestamp: string | null; value: string | null }[]> {
  const { results } = await env.DB.prepare(
    "SELECT event, timestamp, value FROM transport_events WHERE container_id = ?1 ORDER BY timestamp, event",
  )
    .bind(containerId)
    .all<{ event: string; timestamp: string | null; value: string | null }>();
  return results;
}

/** How many rows `table` holds for a container. */
export async function countRows(
  table: "transport_events" | "raw_events" | "container_updated_events",
  containerId: string,
): Promise<number> {
  const row = await env.DB.prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE container_id = ?1`)
    .bind(containerId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

/** The Tracker stub of a box. */
export function trackerStub(scac: string, number: string) {
  return env.TRACKER.get(env.TRACKER.idFromName(trackerName(scac, number)));
}

/** A carrier source that answers with `respond` and keeps every request it was asked. */
export class FakeCarrier implements CarrierSource {
  readonly name = "Shipping line";
  readonly calls: LookupRequest[] = [];
  constructor(
    readonly scac: string,
    public respond: (request: LookupRequest, ctx: SourceContext) => LookupResult | Promise<LookupResult>,
  ) {}
  supports(scac: string): boolean {
    return scac === this.scac;
  }
  async lookup(request: LookupRequest, ctx: SourceContext): Promise<LookupResult> {
    this.calls.push(request);
    return this.respond(request, ctx);
  }
  /** Polls (lookups of an already created box), as opposed to tracking-request lookups. */
  get polls(): LookupRequest[] {
    return this.calls.filter((c) => c.status === "created");
  }
}

/** A terminal source that answers with `respond` and counts its polls. */
export class FakeTerminal implements TerminalSource {
  readonly name = "Terminal";
  calls = 0;
  constructor(
    readonly facilityCode: string,
    public respond: (
      query: { containerNumber: string; facilityCode: string; scac: string },
      ctx: SourceContext,
    ) => TerminalPollResult | Promise<TerminalPollResult>,
  ) {}
  supports(facilityCode: string): boolean {
    return facilityCode === this.facilityCode;
  }
  async poll(
    query: { containerNumber: string; facilityCode: string; scac: string },
    ctx: SourceContext,
  ): Promise<TerminalPollResult> {
    this.calls++;
    return this.respond(query, ctx);
  }
}

/** A source registry of exactly these sources, at real-time speed. */
export function registryOf(carriers: CarrierSource[], terminals: TerminalSource[] = []): SourceRegistry {
  const supportedScacs = new Set<string>();
  for (const c of carriers) if (c instanceof FakeCarrier) supportedScacs.add(c.scac);
  return {
    carriers,
    terminals,
    supportedScacs,
    speedUpFor: () => 1,
    lookupSpeedUpFor: () => 1,
    lineSourceKind: () => null,
  };
}

/**
 * A series of box numbers no other test file uses: owner code `ownerCode` (4 letters, BIC style), serials from
 * `start` + 1 upwards, each with its ISO 6346 check digit. Give every file its own owner code or start.
 */
export function boxNumbers(ownerCode: string, start: number): () => string {
  let serial = start;
  return () => {
    serial += 1;
    return withCheckDigit(`${ownerCode}${String(serial).padStart(6, "0")}`);
  };
}
