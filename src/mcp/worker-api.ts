import { and, desc, eq, gte, lt } from "drizzle-orm";
import { parseContainerFilters } from "../containers/schemas";
import { containerResource } from "../containers/serializer";
import { getContainerView, listContainers } from "../containers/service";
import { getContainerRoute as loadContainerRoute } from "../containers/shipping-route-service";
import type { Database } from "../db/client";
import { containers } from "../db/schema";
import { InvalidReferenceNumber } from "../infer/classify";
import { serializeInferResult } from "../infer/serializer";
import { inferNumber } from "../infer/service";
import type { Clock } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { collectionDocument, listDocument, resourceDocument } from "../lib/jsonapi/document";
import { parseInclude } from "../lib/jsonapi/include";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { MAX_PAGE_SIZE } from "../lib/jsonapi/pagination";
import type { JsonApiDocument, ResourceObject } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import { parseShipmentFilters } from "../shipments/schemas";
import { shipmentResource } from "../shipments/serializer";
import { getShipment, listShipments } from "../shipments/service";
import { serializeShippingLine } from "../shipping-lines/serializer";
import { searchShippingLines } from "../shipping-lines/service";
import { sourcesFor } from "../tracking/sources";
import { parseTrackingRequestFilters } from "../tracking-requests/schemas";
import { trackingRequestResource } from "../tracking-requests/serializer";
import { createTrackingRequest, getTrackingRequest, listTrackingRequests } from "../tracking-requests/service";
import { transportEventResource } from "../transport-events/serializer";
import { listContainerTransportEvents } from "../transport-events/service";
import {
  type ContainerDetails,
  type ContainerFilters,
  type ContainerInclude,
  type ContainerListItem,
  type ContainerRoute,
  type CreateTrackingRequestInput,
  clampPage,
  type InferNumberResult,
  MAX_TRANSPORT_EVENTS,
  type Page,
  type PageOptions,
  type SearchResult,
  type ShipmentDetails,
  type ShipmentFilters,
  type ShipmentListItem,
  type ShippingLineInfo,
  searchTerms,
  type TrackingApi,
  TrackingApiError,
  type TrackingRequestFilters,
  type TrackingRequestRecord,
  type TransportEventRecord,
  trackingApiErrorFromStatus,
} from "./api";
import {
  type ResourceLike,
  toContainerRecord,
  toShipmentRecord,
  toShippingLineInfo,
  toTerminalInfo,
  toTrackingRequestRecord,
  toTransportEventRecord,
} from "./records";
import { routingNotEnabledError } from "./shipping-route";

/** Base of the (unused) links of list documents built for MCP. */
const LIST_URL = "https://mcp.invalid/list";

/**
 * Counts one request against a rate bucket of the account; rejects with `TrackingApiError` `rate_limited` when
 * it is exhausted (see `src/mcp/agent.ts`).
 */
export type BucketGuard = (bucket: "create_tracking_request") => Promise<void>;

/** What the Worker's `TrackingApi` needs. */
export interface WorkerApiDeps {
  db: Database;
  clock: Clock;
  /** Bindings: the tracking-requests queue and the source configuration (what "supported" means). */
  env: Pick<Env, "TRACKING_REQUESTS_QUEUE" | "DCSA_SOURCES" | "SIMULATOR_ENABLED" | "SIMULATION_SPEED">;
  /** The caller's account; every read and write is scoped to it. */
  accountId: string;
  /** Draws from a dedicated bucket (creates also count against `create_tracking_request`, as over REST). */
  limitBucket?: BucketGuard;
}

/**
 * `TrackingApi` over the services and D1 (DESIGN.md §6): the same service functions and serializers as the
 * REST routes, so records equal what `GET /v2/...` returns, flattened (src/mcp/records.ts). `ApiError`s of the
 * services become `TrackingApiError`s of the same meaning (404 → `not_found`, 400/422 → `invalid_argument`, ...).
 */
export class WorkerTrackingApi implements TrackingApi {
  constructor(private readonly deps: WorkerApiDeps) {}

  private get ctx() {
    return { db: this.deps.db, accountId: this.deps.accountId };
  }

  async searchContainers(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    return mapErrors(async () => {
      const { containerNumber, number, size } = searchTerms(query, options.limit);
      const page = pageRequest({ page: 1, pageSize: size });
      const { db, accountId } = this.ctx;
      const [boxes, shipments, requests] = await Promise.all([
        containerNumber !== null
          ? listContainers(db, accountId, parseContainerFilters({ "filter[number]": containerNumber }), page)
          : { rows: [] },
        number !== null ? listShipments(db, accountId, parseShipmentFilters({ number }), page) : { rows: [] },
        number !== null
          ? listTrackingRequests(db, accountId, parseTrackingRequestFilters({ "filter[request_number]": number }), page)
          : { rows: [] },
      ]);
      const shipmentDocs = await collectionDocument(this.ctx, shipmentResource, shipments.rows, new Map());
      return {
        containers: boxes.rows.map((r) => toContainerRecord(containerResource.serialize(r))),
        shipments: asArray(shipmentDocs.data).map(toShipmentRecord),
        tracking_requests: requests.rows.map((r) => toTrackingRequestRecord(trackingRequestResource.serialize(r))),
      };
    });
  }

  async getContainer(id: string, include: ContainerInclude[] = []): Promise<ContainerDetails> {
    return mapErrors(async () => {
      const wanted = new Set(include);
      const tree = parseInclude([...wanted].filter((i) => i !== "transport_events").join(","), containerResource);
      const { view, prefetched } = await getContainerView(this.deps.db, this.deps.accountId, id, tree);
      const doc = await resourceDocument(this.ctx, containerResource, view, tree, `svc://container/${id}`, prefetched);
      const data = doc.data as ResourceObject;
      const included = doc.included ?? [];
      const details: ContainerDetails = { container: toContainerRecord(data) };
      if (wanted.has("shipment")) {
        const s = included.find((r) => r.type === "shipment");
        details.shipment = s ? toShipmentRecord(s) : null;
      }
      if (wanted.has("pod_terminal")) {
        const t = included.find((r) => r.type === "terminal" && r.id === details.container.pod_terminal_id);
        details.pod_terminal = t ? toTerminalInfo(t) : null;
      }
      if (wanted.has("transport_events")) details.transport_events = await this.getTransportEvents(id);
      return details;
    });
  }

  async listContainers(
    filters: ContainerFilters = {},
    page: PageOptions = {},
    options: { include?: "shipment"[] } = {},
  ): Promise<Page<ContainerListItem>> {
    return mapErrors(async () => {
      const params = parseContainerFilters({
        "filter[status]": filters.status,
        "filter[pod_locode]": filters.podLocode,
        "filter[scac]": filters.scac,
        "filter[updated_at][start]": filters.updatedAfter,
        "filter[number]": filters.number,
        "filter[shipment_id]": filters.shipmentId,
      });
      const request = pageRequest(page);
      const withShipment = options.include?.includes("shipment") === true;
      const tree = parseInclude(withShipment ? "shipment" : "", containerResource);
      const { db, accountId } = this.deps;
      const { rows, total, prefetched } = await listContainers(db, accountId, params, request, tree);
      const doc = await listDocument(this.ctx, containerResource, rows, tree, LIST_URL, request, total, prefetched);
      const shipments = new Map(
        (doc.included ?? []).filter((r) => r.type === "shipment").map((r) => [r.id, toShipmentRecord(r)]),
      );
      const items: ContainerListItem[] = asArray(doc.data).map((r) => {
        const record: ContainerListItem = toContainerRecord(r);
        if (withShipment) record.shipment = record.shipment_id ? (shipments.get(record.shipment_id) ?? null) : null;
        return record;
      });
      return pageOf(items, request, total);
    });
  }

  async getShipment(id: string, options: { includeContainers?: boolean } = {}): Promise<ShipmentDetails> {
    return mapErrors(async () => {
      const row = await getShipment(this.deps.db, this.deps.accountId, id);
      const withContainers = options.includeContainers !== false;
      const tree = parseInclude(withContainers ? "containers,pod_terminal" : "pod_terminal", shipmentResource);
      const doc = await resourceDocument(this.ctx, shipmentResource, row, tree, `svc://shipment/${id}`);
      const shipment = toShipmentRecord(doc.data as ResourceObject);
      const included = doc.included ?? [];
      const terminal = included.find((r) => r.type === "terminal" && r.id === shipment.pod_terminal_id);
      const details: ShipmentDetails = { shipment, pod_terminal: terminal ? toTerminalInfo(terminal) : null };
      if (withContainers) {
        const byId = new Map(included.filter((r) => r.type === "container").map((r) => [r.id, r]));
        details.containers = shipment.container_ids.flatMap((cid) => {
          const r = byId.get(cid);
          return r ? [toContainerRecord(r)] : [];
        });
      }
      return details;
    });
  }

  async listShipments(
    filters: ShipmentFilters = {},
    page: PageOptions = {},
    options: { includeContainers?: boolean } = {},
  ): Promise<Page<ShipmentListItem>> {
    return mapErrors(async () => {
      const params = parseShipmentFilters({
        number: filters.number,
        "filter[tracking_stopped]": filters.trackingStopped === undefined ? undefined : String(filters.trackingStopped),
        "filter[scac]": filters.scac,
        "filter[pod_locode]": filters.podLocode,
        "filter[updated_at][start]": filters.updatedAfter,
      });
      const request = pageRequest(page);
      const tree = parseInclude(options.includeContainers ? "containers" : "", shipmentResource);
      const { rows, total } = await listShipments(this.deps.db, this.deps.accountId, params, request);
      const doc = await listDocument(this.ctx, shipmentResource, rows, tree, LIST_URL, request, total);
      const containersById = new Map(
        (doc.included ?? []).filter((r) => r.type === "container").map((r) => [r.id, toContainerRecord(r)]),
      );
      const items: ShipmentListItem[] = asArray(doc.data).map((r) => {
        const record: ShipmentListItem = toShipmentRecord(r);
        if (options.includeContainers) {
          record.containers = record.container_ids.flatMap((id) => {
            const c = containersById.get(id);
            return c ? [c] : [];
          });
        }
        return record;
      });
      return pageOf(items, request, total);
    });
  }

  async getTrackingRequest(id: string): Promise<TrackingRequestRecord> {
    return mapErrors(async () => {
      const row = await getTrackingRequest(this.deps.db, this.deps.accountId, id);
      return toTrackingRequestRecord(trackingRequestResource.serialize(row));
    });
  }

  async listTrackingRequests(
    filters: TrackingRequestFilters = {},
    page: PageOptions = {},
  ): Promise<Page<TrackingRequestRecord>> {
    return mapErrors(async () => {
      const params = parseTrackingRequestFilters({
        "filter[status]": filters.status,
        "filter[request_type]": filters.requestType,
        "filter[request_number]": filters.requestNumber,
        "filter[scac]": filters.scac,
        "filter[created_at][start]": filters.createdAfter,
        "filter[updated_at][start]": filters.updatedAfter,
      });
      const request = pageRequest(page);
      const { rows, total } = await listTrackingRequests(this.deps.db, this.deps.accountId, params, request);
      return pageOf(
        rows.map((r) => toTrackingRequestRecord(trackingRequestResource.serialize(r))),
        request,
        total,
      );
    });
  }

  async getTransportEvents(containerId: string): Promise<TransportEventRecord[]> {
    return mapErrors(async () => {
      const rows: Awaited<ReturnType<typeof listContainerTransportEvents>>["rows"] = [];
      for (let number = 1; rows.length < MAX_TRANSPORT_EVENTS; number++) {
        const request = pageRequest({ page: number, pageSize: MAX_PAGE_SIZE });
        const page = await listContainerTransportEvents(this.deps.db, this.deps.accountId, containerId, request);
        rows.push(...page.rows);
        if (page.rows.length < request.size || rows.length >= page.total) break;
      }
      const doc: JsonApiDocument = await collectionDocument(
        this.ctx,
        transportEventResource,
        rows,
        parseInclude("location,terminal", transportEventResource),
      );
      const included = doc.included ?? [];
      return asArray(doc.data).map((r) => toTransportEventRecord(r, included));
    });
  }

  /**
   * The service of `GET /v2/containers/{id}/route` (src/containers/shipping-route-service.ts); its 403 becomes
   * {@link routingNotEnabledError}, as the stdio server maps the REST 403.
   */
  async getContainerRoute(containerId: string): Promise<ContainerRoute> {
    return mapErrors(async () => {
      try {
        return (await loadContainerRoute(this.deps.db, this.deps.accountId, containerId)).route;
      } catch (err) {
        if (err instanceof ApiError && err.status === 403) throw routingNotEnabledError();
        throw err;
      }
    });
  }

  async createTrackingRequest(input: CreateTrackingRequestInput): Promise<TrackingRequestRecord> {
    return mapErrors(async () => {
      await this.deps.limitBucket?.("create_tracking_request");
      const row = await createTrackingRequest(
        {
          db: this.deps.db,
          clock: this.deps.clock,
          queue: this.deps.env.TRACKING_REQUESTS_QUEUE,
          supportedScacs: sourcesFor(this.deps.env).supportedScacs,
        },
        this.deps.accountId,
        {
          requestType: input.requestType,
          requestNumber: input.requestNumber,
          scac: input.scac,
          refNumbers: input.refNumbers,
        },
      );
      return toTrackingRequestRecord(trackingRequestResource.serialize(row));
    });
  }

  async listShippingLines(search?: string): Promise<ShippingLineInfo[]> {
    const sourceOf = sourcesFor(this.deps.env).lineSourceKind;
    return searchShippingLines(search?.trim()).map((l) =>
      toShippingLineInfo(serializeShippingLine(l, sourceOf(l.scac))),
    );
  }

  completeContainers(prefix: string, limit: number): Promise<{ id: string; number: string }[]> {
    return recentContainerKeys(this.deps.db, this.deps.accountId, prefix, limit);
  }

  async inferNumber(number: string): Promise<InferNumberResult> {
    return mapErrors(async () => {
      try {
        const attributes = serializeInferResult(await inferNumber(this.deps.db, number));
        const { parsed_number: _reference, ...validation } = attributes.validation;
        return { ...attributes, validation };
      } catch (err) {
        if (err instanceof InvalidReferenceNumber) {
          throw new TrackingApiError("invalid_argument", "This reference number is not valid.", { field: "number" });
        }
        throw err;
      }
    });
  }
}

/**
 * Up to `limit` of the account's containers whose number or id starts with `prefix` (case-insensitive), newest
 * first when `prefix` is empty; for completions of container arguments. Reads through the account's
 * `(account_id, number)` and `(account_id, created_at, id)` indexes and the primary key.
 */
export async function recentContainerKeys(
  db: Database,
  accountId: string,
  prefix: string,
  limit = 20,
): Promise<{ id: string; number: string }[]> {
  const cols = { id: containers.id, number: containers.number };
  const p = prefix.trim();
  if (p === "") {
    return db
      .select(cols)
      .from(containers)
      .where(eq(containers.accountId, accountId))
      .orderBy(desc(containers.createdAt), desc(containers.id))
      .limit(limit);
  }
  const upper = p.toUpperCase();
  const lower = p.toLowerCase();
  const [byNumber, byId] = await db.batch([
    db
      .select(cols)
      .from(containers)
      .where(
        and(eq(containers.accountId, accountId), gte(containers.number, upper), lt(containers.number, `${upper}~`)),
      )
      .orderBy(containers.number)
      .limit(limit),
    db
      .select(cols)
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), gte(containers.id, lower), lt(containers.id, `${lower}~`)))
      .orderBy(containers.id)
      .limit(limit),
  ]);
  return [...byNumber, ...byId].slice(0, limit);
}

function asArray(data: ResourceObject | ResourceObject[]): ResourceLike[] {
  return Array.isArray(data) ? data : [data];
}

/** A service page request from `PageOptions`: 1-based page, size default 30, clamped to 1..100. */
export function pageRequest(options: PageOptions): PageRequest {
  const { number, size } = clampPage(options);
  return { number, size, sizeGiven: true, offset: (number - 1) * size };
}

function pageOf<T>(items: T[], request: PageRequest, total: number): Page<T> {
  return {
    items,
    page: request.number,
    page_size: request.size,
    total,
    has_more: request.offset + items.length < total,
  };
}

/** Runs `fn`, turning a service `ApiError` into the `TrackingApiError` of the same meaning. */
async function mapErrors<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof ApiError) {
      const first = err.errors[0];
      const retryAfter = err.headers["Retry-After"];
      throw trackingApiErrorFromStatus(
        err.status,
        {
          detail: first?.detail,
          code: first?.code,
          pointer: first?.source?.pointer,
          parameter: first?.source?.parameter,
        },
        retryAfter ? Number(retryAfter) : undefined,
      );
    }
    throw err;
  }
}
