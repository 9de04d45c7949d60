import { createExecutionContext, createMessageBatch, env, getQueueResult, type QueueResult } from "cloudflare:test";
import worker from "../../src/index";
import { newId } from "../../src/lib/ids";
import type { TrackingRequestMessage } from "../../src/tracking-requests/queue-message";
import { apiJson, type TestAccount, trackingRequestBody } from "./api";

/** A JSON:API resource object as the tests read it. */
export interface Resource {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
  relationships?: Record<string, { data: { id: string; type: string } | { id: string; type: string }[] | null }>;
  links?: { self: string };
}

/** A JSON:API document as the tests read it. */
export interface Doc {
  data: Resource | Resource[];
  included?: Resource[];
  links?: Record<string, string>;
  meta?: {
    size: number;
    total: number;
    pagination: { current: number; next?: number; last?: number; records: number };
  };
  errors?: {
    status: string;
    title: string;
    detail?: string | null;
    source?: { pointer?: string; parameter?: string };
    code?: string;
  }[];
}

/** A single-resource document. */
export type One = Doc & { data: Resource };
/** A list document. */
export type Many = Doc & { data: Resource[] };

let sequence = 0;

/**
 * Delivers `messages` to the Worker's `tracking-requests` queue consumer as one batch (the way the Queues
 * runtime would) and returns the ack/retry outcome. Deterministic: the test decides when lookups happen.
 */
export async function deliverTrackingMessages(messages: TrackingRequestMessage[]): Promise<QueueResult> {
  const batch = createMessageBatch<TrackingRequestMessage>(
    "tracking-requests",
    messages.map((body) => ({ id: `msg-${++sequence}`, timestamp: new Date(), attempts: 1, body })),
  );
  const ctx = createExecutionContext();
  // Called the way the Queues runtime calls the Worker: (batch, env, ctx).
  const handler: ExportedHandler<Env, TrackingRequestMessage> = worker;
  await handler.queue?.(batch, env, ctx);
  return getQueueResult(batch, ctx);
}

/** POST /tracking_requests for `account`; fails the test unless the answer is 201. Returns the resource. */
export async function createTrackingRequest(
  account: TestAccount,
  attributes: Record<string, unknown>,
): Promise<Resource> {
  const { res, json } = await apiJson<One>("/tracking_requests", {
    key: account.key,
    body: trackingRequestBody({ scac: "TEST", ...attributes }),
  });
  if (res.status !== 201) throw new Error(`create tracking request: ${res.status} ${JSON.stringify(json)}`);
  return json.data;
}

/** Creates a tracking request and runs its lookup at once; returns the request as it then stands. */
export async function trackAndProcess(account: TestAccount, attributes: Record<string, unknown>): Promise<Resource> {
  const created = await createTrackingRequest(account, attributes);
  const result = await deliverTrackingMessages([{ trackingRequestId: created.id, accountId: account.accountId }]);
  if (result.explicitAcks.length !== 1) throw new Error(`lookup was not acked: ${JSON.stringify(result)}`);
  const { json } = await apiJson<One>(`/tracking_requests/${created.id}`, { key: account.key });
  return json.data;
}

/**
 * The sandbox shipment of `TEST-TR-SUCCEEDED` tracked for `account`: request, shipment and its two containers. The
 * sandbox records its boxes' milestones (empty out … departed, test/tracking/sources/sandbox.test.ts checks them); they
 * are removed from this account's rows here, so a test seeds exactly the transport and raw events it checks.
 */
export async function trackSandboxShipment(account: TestAccount, attributes: Record<string, unknown> = {}) {
  const request = await trackAndProcess(account, { request_number: "TEST-TR-SUCCEEDED", ...attributes });
  const linkage = request.relationships?.tracked_object?.data;
  if (!linkage || Array.isArray(linkage)) throw new Error(`no tracked_object: ${JSON.stringify(request)}`);
  const { json } = await apiJson<One>(`/shipments/${linkage.id}`, { key: account.key });
  const containers = json.data.relationships?.containers?.data;
  if (!Array.isArray(containers)) throw new Error("shipment without containers linkage");
  const containerIds = containers.map((c) => c.id);
  await env.DB.batch(
    ["transport_events", "raw_events"].flatMap((table) =>
      containerIds.map((id) =>
        env.DB.prepare(`DELETE FROM ${table} WHERE account_id = ?1 AND container_id = ?2`).bind(account.accountId, id),
      ),
    ),
  );
  return { request, shipment: json.data, containerIds };
}

/**
 * Inserts `count` tracking requests for `account` straight into D1 (and bumps the account's count in the same
 * batch, as the service does), `created_at` one second apart starting at `start`. Returns their ids, oldest first.
 * No queue message is sent, so their status stays as given. `number` gives every row the same request number
 * (only sensible for one row, or for statuses outside pending/created).
 */
export async function insertTrackingRequests(
  account: TestAccount,
  count: number,
  options: { start?: string; status?: string; prefix?: string; number?: string; sameTime?: boolean } = {},
): Promise<string[]> {
  const startMs = Date.parse(options.start ?? "2025-01-01T00:00:00Z");
  const ids: string[] = [];
  const statements: D1PreparedStatement[] = [];
  for (let i = 0; i < count; i++) {
    const id = newId();
    ids.push(id);
    const at = new Date(startMs + (options.sameTime ? 0 : i * 1000)).toISOString().replace(/\.\d{3}Z$/, "Z");
    const number = options.number ?? `${options.prefix ?? "BULK"}-${i}`;
    statements.push(
      env.DB.prepare(
        `INSERT INTO tracking_requests (id, account_id, request_type, request_number, normalized_number, scac, line_scac,
           status, created_at, updated_at) VALUES (?1, ?2, 'bill_of_lading', ?3, ?3, 'TEST', 'TEST', ?4, ?5, ?5)`,
      ).bind(id, account.accountId, number, options.status ?? "failed", at),
    );
  }
  statements.push(
    env.DB.prepare(
      `INSERT INTO account_resource_counts (account_id, resource, count) VALUES (?1, 'tracking_request', ?2)
       ON CONFLICT (account_id, resource) DO UPDATE SET count = count + ?2`,
    ).bind(account.accountId, count),
  );
  await env.DB.batch(statements);
  return ids;
}

/** The linkage of a to-one relationship (fails the test when it is a list). */
export function toOne(resource: Resource | undefined, name: string): { id: string; type: string } | null {
  if (!resource) throw new Error(`no resource to read ${name} from`);
  const data = resource.relationships?.[name]?.data;
  if (Array.isArray(data)) throw new Error(`${name} is to-many`);
  return data ?? null;
}

/** The linkage of a to-many relationship (fails the test when it is not a list). */
export function toMany(resource: Resource | undefined, name: string): { id: string; type: string }[] {
  if (!resource) throw new Error(`no resource to read ${name} from`);
  const data = resource.relationships?.[name]?.data;
  if (!Array.isArray(data)) throw new Error(`${name} is not to-many`);
  return data;
}
