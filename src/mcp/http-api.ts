/**
 * `TrackingApi` over the REST API, through the typed HTTP client (src/client): what the stdio MCP server
 * (src/mcp/stdio.ts) reads through. Records are the REST resources flattened by src/mcp/records.ts, the same
 * mappers the Worker's implementation uses, so a tool answers alike over `/mcp` and over stdio.
 *
 * Errors: every `TrackingClientError` becomes the `TrackingApiError` of the same meaning
 * (`trackingApiErrorFromStatus`: 404 → `not_found`, 400/422 → `invalid_argument`, 401 → `unauthorized`,
 * 403 → `forbidden_feature` (the route's: the Worker's `routingNotEnabledError`),
 * 429 → `rate_limited` with `Retry-After`, anything else or no answer → `upstream`). Messages never carry the key
 * or the base URL; the underlying error goes to `onError` (the stdio server writes it to stderr, the MCP
 * client's log, never to the model).
 */

import type { TrackingClient } from "../client/client";
import { TrackingClientError } from "../client/errors";
import { collect } from "../client/pagination";
import type {
  ContainerFilters as RestContainerFilters,
  TrackingRequestFilters as RestTrackingRequestFilters,
} from "../client/query";
import type { AnyResource, Resource } from "../client/types";
import {
  type ContainerDetails,
  type ContainerFilters,
  type ContainerInclude,
  type ContainerRecord,
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
  type ShipmentRecord,
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
import { type RouteDocumentLike, routeFromDocument, routingNotEnabledError } from "./shipping-route";

/** Largest `page[size]` the API serves (DECISIONS.md §Wire format). */
const MAX_PAGE_SIZE = 100;

/** Options of {@link HttpTrackingApi}. */
export interface HttpTrackingApiOptions {
  /**
   * Called with every failed REST call before it is mapped to a `TrackingApiError`: the client error (method,
   * path, status, request id; never the key). For logs only.
   */
  onError?: (error: TrackingClientError) => void;
}

/** `TrackingApi` backed by the REST API of one API key (one account). */
export class HttpTrackingApi implements TrackingApi {
  constructor(
    private readonly client: TrackingClient,
    private readonly options: HttpTrackingApiOptions = {},
  ) {}

  async searchContainers(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    const { containerNumber, number, size } = searchTerms(query, options.limit);
    const page = { number: 1, size };
    return this.call(async () => {
      const [boxes, shipments, requests] = await Promise.all([
        containerNumber !== null ? this.client.containers.list({ page, filter: { number: containerNumber } }) : null,
        number !== null ? this.client.shipments.list({ page, filter: { number } }) : null,
        number !== null
          ? this.client.trackingRequests.list({ page, include: [], filter: { request_number: number } })
          : null,
      ]);
      return {
        containers: (boxes?.data ?? []).map((r) => toContainerRecord(like(r))),
        shipments: (shipments?.data ?? []).map((r) => toShipmentRecord(like(r))),
        tracking_requests: (requests?.data ?? []).map((r) => toTrackingRequestRecord(like(r))),
      };
    });
  }

  async getContainer(id: string, include: ContainerInclude[] = []): Promise<ContainerDetails> {
    const wanted = new Set(include);
    const rest = [...wanted].filter((name) => name !== "transport_events");
    const doc = await this.call(() => this.client.containers.get(id, rest.length > 0 ? { include: rest } : {}));
    const included = doc.included ?? [];
    const details: ContainerDetails = { container: toContainerRecord(like(doc.data)) };
    if (wanted.has("shipment")) {
      const shipment = included.find((r) => r.type === "shipment" && r.id === details.container.shipment_id);
      details.shipment = shipment ? toShipmentRecord(shipment) : null;
    }
    if (wanted.has("pod_terminal")) {
      const terminal = included.find((r) => r.type === "terminal" && r.id === details.container.pod_terminal_id);
      details.pod_terminal = terminal ? toTerminalInfo(terminal) : null;
    }
    if (wanted.has("transport_events")) details.transport_events = await this.getTransportEvents(id);
    return details;
  }

  async listContainers(filters: ContainerFilters = {}, page: PageOptions = {}): Promise<Page<ContainerRecord>> {
    const request = clampPage(page);
    const doc = await this.call(() =>
      this.client.containers.list({
        page: request,
        filter: {
          status: nonEmpty(filters.status) as RestContainerFilters["status"],
          pod_locode: nonEmpty(filters.podLocode),
          scac: nonEmpty(filters.scac),
          updated_at: filters.updatedAfter ? { start: filters.updatedAfter } : undefined,
          number: nonEmpty(filters.number),
          shipment_id: nonEmpty(filters.shipmentId),
        },
      }),
    );
    return toPage(
      doc.data.map((r) => toContainerRecord(like(r))),
      request,
      doc.meta.total,
      doc.meta.pagination.next,
    );
  }

  async getShipment(id: string, options: { includeContainers?: boolean } = {}): Promise<ShipmentDetails> {
    const withContainers = options.includeContainers !== false;
    const doc = await this.call(() =>
      this.client.shipments.get(id, { include: withContainers ? ["containers", "pod_terminal"] : ["pod_terminal"] }),
    );
    const shipment = toShipmentRecord(like(doc.data));
    const included = doc.included ?? [];
    const terminal = included.find((r) => r.type === "terminal" && r.id === shipment.pod_terminal_id);
    const details: ShipmentDetails = { shipment, pod_terminal: terminal ? toTerminalInfo(terminal) : null };
    if (withContainers) {
      const byId = new Map(included.filter((r) => r.type === "container").map((r) => [r.id, r]));
      details.containers = shipment.container_ids.flatMap((containerId) => {
        const r = byId.get(containerId);
        return r ? [toContainerRecord(r)] : [];
      });
    }
    return details;
  }

  async listShipments(filters: ShipmentFilters = {}, page: PageOptions = {}): Promise<Page<ShipmentRecord>> {
    const request = clampPage(page);
    const doc = await this.call(() =>
      this.client.shipments.list({
        page: request,
        filter: {
          number: nonEmpty(filters.number),
          tracking_stopped: filters.trackingStopped,
          scac: nonEmpty(filters.scac),
          pod_locode: nonEmpty(filters.podLocode),
          updated_at: filters.updatedAfter ? { start: filters.updatedAfter } : undefined,
        },
      }),
    );
    return toPage(
      doc.data.map((r) => toShipmentRecord(like(r))),
      request,
      doc.meta.total,
      doc.meta.pagination.next,
    );
  }

  async getTrackingRequest(id: string): Promise<TrackingRequestRecord> {
    // Linkage (tracked_object, customer) is always present; nothing needs including.
    const doc = await this.call(() => this.client.trackingRequests.get(id, { include: [] }));
    return toTrackingRequestRecord(like(doc.data));
  }

  async listTrackingRequests(
    filters: TrackingRequestFilters = {},
    page: PageOptions = {},
  ): Promise<Page<TrackingRequestRecord>> {
    const request = clampPage(page);
    const doc = await this.call(() =>
      this.client.trackingRequests.list({
        page: request,
        include: [],
        filter: {
          status: nonEmpty(filters.status) as RestTrackingRequestFilters["status"],
          request_type: nonEmpty(filters.requestType) as RestTrackingRequestFilters["request_type"],
          request_number: nonEmpty(filters.requestNumber),
          scac: nonEmpty(filters.scac),
          created_at: filters.createdAfter ? { start: filters.createdAfter } : undefined,
          updated_at: filters.updatedAfter ? { start: filters.updatedAfter } : undefined,
        },
      }),
    );
    return toPage(
      doc.data.map((r) => toTrackingRequestRecord(like(r))),
      request,
      doc.meta.total,
      doc.meta.pagination.next,
    );
  }

  async getTransportEvents(containerId: string): Promise<TransportEventRecord[]> {
    return this.call(async () => {
      const records: TransportEventRecord[] = [];
      const include = ["location", "terminal"] as const;
      for (let number = 1; records.length < MAX_TRANSPORT_EVENTS; number++) {
        const doc = await this.client.containers.transportEvents(containerId, {
          page: { number, size: MAX_PAGE_SIZE },
          include,
        });
        const included = doc.included ?? [];
        records.push(...doc.data.map((r) => toTransportEventRecord(like(r), included)));
        if (doc.meta.pagination.next === undefined || doc.data.length === 0) break;
      }
      return records.slice(0, MAX_TRANSPORT_EVENTS);
    });
  }

  /**
   * `GET /containers/{id}/route?include=port,vessel,route_location` read back into the `ContainerRoute` the Worker
   * builds (`routeFromDocument`). The REST 403 (no `routing` entitlement) becomes {@link routingNotEnabledError},
   * the Worker's error for it, so both servers answer an account without the feature alike.
   */
  async getContainerRoute(containerId: string): Promise<ContainerRoute> {
    try {
      const doc = await this.call(() => this.client.containers.route(containerId));
      return routeFromDocument(doc as RouteDocumentLike);
    } catch (err) {
      if (err instanceof TrackingApiError && err.kind === "forbidden_feature") throw routingNotEnabledError();
      throw err;
    }
  }

  async createTrackingRequest(input: CreateTrackingRequestInput): Promise<TrackingRequestRecord> {
    const doc = await this.call(() =>
      this.client.trackingRequests.create({
        request_type: input.requestType,
        request_number: input.requestNumber,
        scac: input.scac,
        ...(input.refNumbers ? { ref_numbers: input.refNumbers } : {}),
      }),
    );
    return toTrackingRequestRecord(like(doc.data));
  }

  async listShippingLines(search?: string): Promise<ShippingLineInfo[]> {
    const s = search?.trim() ?? "";
    const lines = await this.call(() =>
      collect(this.client.shippingLines.iterate({ page: { size: MAX_PAGE_SIZE }, ...(s ? { search: s } : {}) })),
    );
    return lines.map((r) => toShippingLineInfo(like(r)));
  }

  async inferNumber(number: string): Promise<InferNumberResult> {
    const doc = await this.call(() => this.client.trackingRequests.inferNumber(number));
    const { parsed_number: _parsed, ...validation } = doc.data.attributes.validation;
    return { ...doc.data.attributes, validation };
  }

  /** Runs a REST call, turning a {@link TrackingClientError} into the `TrackingApiError` of the same meaning. */
  private async call<T>(fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (err) {
      if (!(err instanceof TrackingClientError)) throw err;
      this.options.onError?.(err);
      const first = err.errors[0];
      throw trackingApiErrorFromStatus(
        err.status,
        {
          detail: first?.detail,
          code: first?.code,
          pointer: first?.source?.pointer,
          parameter: first?.source?.parameter,
        },
        err.retryAfterSeconds ?? undefined,
      );
    }
  }
}

/** A typed client resource as the records mappers read it. */
function like(resource: Resource<string, object> | AnyResource): ResourceLike {
  return resource as ResourceLike;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === "" ? undefined : value;
}

function toPage<T>(items: T[], request: { number: number; size: number }, total: number, next?: number): Page<T> {
  return { items, page: request.number, page_size: request.size, total, has_more: next !== undefined };
}
