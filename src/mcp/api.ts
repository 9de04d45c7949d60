/**
 * `TrackingApi`: what every MCP tool, prompt and resource reads through (docs/architecture.md §MCP), for one account
 * (the caller's). It calls the services the REST routes call, with the same typed filters (parsed by the same parsers),
 * and hands back what the resources' serializers write, typed by their zod schemas (`Resource<ContainerAttributes>` …):
 * the REST API's resource objects without a JSON:API document around them. Another account's id is `not_found`,
 * never `forbidden_feature` (docs/decisions.md §Wire format: another account's id → 404).
 *
 * Errors: every method rejects only with {@link TrackingApiError} for expected failures (a service's `ApiError`
 * becomes the error of the same meaning); anything else is a bug or an outage and is reported to the MCP client as an
 * internal error with a reference.
 */

import { type DemurrageReport, demurrageReportOf } from "../charges/report";
import { parseContainerSort } from "../containers/list-order";
import type { ContainerMap } from "../containers/map-geojson";
import {
  type CurrentVesselPosition,
  currentVesselPosition,
  getContainerMap as loadContainerMap,
} from "../containers/map-geojson-service";
import { type ContainerAttributes, type ContainerFilters, parseContainerFilters } from "../containers/schemas";
import {
  type ContainerView,
  containerResource,
  loadContainersByIds,
  serializeContainer,
} from "../containers/serializer";
import { getContainerView, listContainers, recentContainerKeys } from "../containers/service";
import type { ContainerRoute } from "../containers/shipping-route";
import { getContainerRoute as loadContainerRoute } from "../containers/shipping-route-service";
import { serializeCustomField } from "../custom-fields/serializer";
import type { CustomFieldView } from "../custom-fields/values";
import { valuesOfEntities, valuesOfEntitiesRead } from "../custom-fields/values";
import type { Database } from "../db/client";
import { InvalidReferenceNumber } from "../infer/classify";
import type { InferNumberAttributes } from "../infer/schemas";
import { serializeInferResult } from "../infer/serializer";
import { inferNumber } from "../infer/service";
import type { Clock } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { hydrated } from "../lib/jsonapi/document";
import type { FilterValues } from "../lib/jsonapi/filters";
import { type LoadContext, parseInclude } from "../lib/jsonapi/include";
import { MAX_PAGE_SIZE } from "../lib/jsonapi/pagination";
import type { Resource } from "../lib/jsonapi/types";
import type { PortAttributes } from "../ports/schemas";
import { loadPortsByIds, portResource, serializePort } from "../ports/serializer";
import { normalizeSearchQuery, type SearchMatch, searchAccount } from "../search/service";
import { parseShipmentFilters, type ShipmentAttributes, type ShipmentFilters } from "../shipments/schemas";
import { type ShipmentView, serializeShipment, shipmentResource } from "../shipments/serializer";
import { getShipment, listShipments } from "../shipments/service";
import type { ShippingLineAttributes } from "../shipping-lines/schemas";
import { serializeShippingLine } from "../shipping-lines/serializer";
import { searchShippingLines } from "../shipping-lines/service";
import type { TerminalAttributes } from "../terminals/schemas";
import { loadTerminalsByIds, serializeTerminal, type TerminalRow } from "../terminals/serializer";
import { sourcesFor } from "../tracking/sources";
import {
  parseTrackingRequestFilters,
  type TrackingRequestAttributes,
  type TrackingRequestFilters,
} from "../tracking-requests/schemas";
import { serializeTrackingRequest } from "../tracking-requests/serializer";
import {
  type CreateTrackingRequestInput,
  createTrackingRequest,
  getTrackingRequestsByIds,
  listTrackingRequests,
} from "../tracking-requests/service";
import type { TransportEventAttributes } from "../transport-events/schemas";
import {
  serializeTransportEvent,
  type TransportEventRow,
  transportEventResource,
} from "../transport-events/serializer";
import { listContainerTransportEvents } from "../transport-events/service";
import { mapErrors, routingNotEnabledError, TrackingApiError } from "./api-errors";
import { type Page, type PageOptions, pageOf, pageRequest } from "./api-paging";
import { DocumentsApi } from "./documents-api";

export { type Page, type PageOptions, pageRequest };

// ---------------------------------------------------------------------------------------------------------------
// What the tools read: the serializers' resource objects, typed by the resources' zod schemas
// ---------------------------------------------------------------------------------------------------------------

/** A container as `GET /v2/containers/{id}` serves it (docs/api.md §Container resource). */
export type ContainerResource = Resource<ContainerAttributes>;
/** A shipment as `GET /v2/shipments/{id}` serves it (docs/api.md §Shipment resource). */
export type ShipmentResource = Resource<ShipmentAttributes>;
/** A tracking request as `GET /v2/tracking_requests/{id}` serves it (docs/api.md §Tracking request resource). */
export type TrackingRequestResource = Resource<TrackingRequestAttributes>;
/** A terminal (docs/api.md §Terminal resource) with its CBP FIRMS code and IANA time zone. */
export type TerminalResource = Resource<TerminalAttributes>;
/** A port (docs/api.md §Port resource) by UN/LOCODE. */
export type PortResource = Resource<PortAttributes>;
/**
 * A shipping line (docs/api.md §Shipping line resource); `supported`: tracking requests for this SCAC are accepted
 * here.
 */
export type ShippingLineResource = Resource<ShippingLineAttributes>;

/**
 * A past, vetted transport event (docs/api.md §Transport event resource) with its `location` (port) and `terminal`
 * (null when it has none).
 */
export interface TransportEventDetails {
  event: Resource<TransportEventAttributes>;
  location: PortResource | null;
  terminal: TerminalResource | null;
}

/** Includes of `getContainer` (docs/mcp.md §Tools `get_container`). */
export type ContainerInclude = "shipment" | "pod_terminal" | "transport_events";

/** A container with what was asked to be included (absent keys were not asked for; null: no such relation). */
export interface ContainerDetails {
  container: ContainerResource;
  shipment?: ShipmentResource | null;
  pod_terminal?: TerminalResource | null;
  transport_events?: TransportEventDetails[];
  /** The container's custom field values (docs/api.md §Custom fields), oldest first; read by `getContainer`. */
  custom_fields?: CustomFieldResource[];
}

/** A shipment with what was asked to be included: its POD terminal, its containers (oldest first). */
export interface ShipmentDetails {
  shipment: ShipmentResource;
  pod_terminal?: TerminalResource | null;
  containers?: ContainerResource[];
  /** The shipment's custom field values (docs/api.md §Custom fields), oldest first. */
  custom_fields?: CustomFieldResource[];
}

/** A custom field value as `GET /v2/custom_fields/{id}` serves it: `{api_slug, value, display_value}`. */
export type CustomFieldResource = Resource<{ api_slug: string; value: unknown; display_value: string | null }>;

/** What a search found: exact matches on container number, tracked BL/booking number, and tracking request number. */
export interface SearchResult {
  containers: ContainerResource[];
  shipments: ShipmentResource[];
  tracking_requests: TrackingRequestResource[];
}

/**
 * What `search` found (docs/api.md §Search, the service of `GET /v2/search`), each kind in rank order, with how each
 * id matched (`matches`: exact, prefix or contains).
 */
export interface RankedSearchResult extends SearchResult {
  matches: Record<string, SearchMatch>;
}

/** Most transport events `getTransportEvents` reads for one container (10 pages of 100). */
export const MAX_TRANSPORT_EVENTS = 1_000;

/** Longest container number `filter[number]` accepts (`parseContainerFilters`). */
const MAX_CONTAINER_NUMBER_LENGTH = 20;
/** Longest BL/booking/request number the API accepts (src/tracking-requests/schemas.ts). */
const MAX_NUMBER_LENGTH = 64;

/**
 * What `searchContainers` looks up for `query`: the query trimmed; as a container number (spaces and dashes dropped)
 * when that fits the API's 20 characters; as a BL, booking or request number when it fits 64; and `size` results of
 * each kind (`limit`, default 10, clamped to 1..100).
 * @throws TrackingApiError `invalid_argument` (field `query`) for an empty query.
 */
export function searchTerms(
  query: string,
  limit = 10,
): { containerNumber: string | null; number: string | null; size: number } {
  const q = query.trim();
  if (q === "") throw new TrackingApiError("invalid_argument", "The search query is empty.", { field: "query" });
  const compact = q.replace(/[\s-]/g, "");
  return {
    containerNumber: compact.length > 0 && compact.length <= MAX_CONTAINER_NUMBER_LENGTH ? compact : null,
    number: q.length <= MAX_NUMBER_LENGTH ? q : null,
    size: pageRequest({ pageSize: limit }).size,
  };
}

/**
 * Rows of a first-level include that `getContainerView` prefetched in the container's own D1 round trip: what the
 * relationship's `prefetch.rows` built (src/containers/serializer.ts: `ShipmentView`s for `shipment`, terminal rows
 * for `pod_terminal`). The include machinery keeps related rows untyped.
 */
function prefetchedRow<T extends { id: string }>(rows: unknown[] | undefined, id: string | null): T | null {
  return id === null ? null : ((rows as T[] | undefined)?.find((r) => r.id === id) ?? null);
}

/**
 * Counts one request against a rate bucket of the account; rejects with `TrackingApiError` `rate_limited` when
 * it is exhausted (see `src/mcp/agent.ts`).
 */
export type BucketGuard = (bucket: "create_tracking_request") => Promise<void>;

/** What a {@link TrackingApi} needs. */
export interface TrackingApiDeps {
  /** The account's shard (src/db/shards.ts `dbFor`): every account row is read and written there. */
  db: Database;
  /** The primary database (`DB`): the account's entitlements, vessels and their positions (docs/SCALING.md §Shards). */
  primary: Database;
  clock: Clock;
  /** Bindings: the tracking-requests queue and the source configuration (what "supported" means). */
  env: Pick<Env, "TRACKING_REQUESTS_QUEUE" | "DCSA_SOURCES" | "SIMULATOR_ENABLED" | "SIMULATION_SPEED">;
  /** The caller's account; every read and write is scoped to it. */
  accountId: string;
  /** Draws from a dedicated bucket (creates also count against `create_tracking_request`, as over REST). */
  limitBucket?: BucketGuard;
  /**
   * The caller may only read (an OAuth token of a viewer, docs/mcp.md §Signing in with OAuth): every write rejects
   * with `forbidden`, as the dashboard answers a viewer 403 (src/sessions/session.ts `requireRole`). Default false.
   */
  readOnly?: boolean;
}

/**
 * Reads and writes of one account, as MCP tools need them, over the services and serializers of the REST API. Every
 * method may reject with {@link TrackingApiError}; ids are UUID strings.
 */
export class TrackingApi {
  private readonly ctx: LoadContext;
  /** The account's documents and their extraction results (src/mcp/documents-api.ts). */
  readonly documents: DocumentsApi;

  constructor(private readonly deps: TrackingApiDeps) {
    this.ctx = { db: deps.db, accountId: deps.accountId };
    this.documents = new DocumentsApi(this.ctx);
  }

  /**
   * Exact matches of `query` (trimmed; spaces and dashes removed for container numbers, any case) among the
   * account's containers (`filter[number]`), shipments (`number`: BL/booking) and tracking requests
   * (`filter[request_number]`), at most `limit` (default 10) of each, newest first. Nothing found is an empty
   * result, not an error.
   */
  async searchContainers(query: string, options: { limit?: number } = {}): Promise<SearchResult> {
    return mapErrors(async () => {
      const { containerNumber, number, size } = searchTerms(query, options.limit);
      const page = pageRequest({ page: 1, pageSize: size });
      const { db, accountId } = this.deps;
      const [boxes, shipments, requests] = await Promise.all([
        containerNumber === null
          ? { rows: [] }
          : listContainers(db, accountId, parseContainerFilters({ "filter[number]": containerNumber }), page),
        number === null ? { rows: [] } : listShipments(db, accountId, parseShipmentFilters({ number }), page),
        number === null
          ? { rows: [] }
          : listTrackingRequests(
              db,
              accountId,
              parseTrackingRequestFilters({ "filter[request_number]": number }),
              page,
            ),
      ]);
      return {
        containers: boxes.rows.map(serializeContainer),
        shipments: shipments.rows.map(serializeShipment),
        tracking_requests: requests.rows.map(serializeTrackingRequest),
      };
    });
  }

  /**
   * The first `limit` (default 20, at most 100) results of `GET /v2/search` for `query` (docs/api.md §Search: numbers,
   * reference numbers, vessel names, POL/POD names and UN/LOCODEs; exact → prefix → contains), as whole resources by
   * kind. Tracking requests of a tracked BL/booking are kept (the REST endpoint drops them), so the request's status
   * shows next to its shipment. Nothing found is an empty result.
   * @throws TrackingApiError `invalid_argument` (field `query`) for a blank, too long or malformed query.
   */
  async search(query: string, options: { limit?: number } = {}): Promise<RankedSearchResult> {
    return mapErrors(async () => {
      const { db, accountId } = this.deps;
      const size = Math.min(Math.max(options.limit ?? 20, 1), MAX_PAGE_SIZE);
      const { hits } = await searchAccount(db, accountId, normalizeSearchQuery(query), {
        offset: 0,
        size,
        keepTrackedRequests: true,
      });
      const idsOf = (kind: string) => hits.filter((h) => h.entityType === kind).map((h) => h.id);
      const [containerRows, shipmentRows, requestRows] = await Promise.all([
        loadContainersByIds(db, accountId, idsOf("cargo")).then((rows) => hydrated(this.ctx, containerResource, rows)),
        shipmentResource.loadByIds?.(this.ctx, idsOf("shipment")) ?? [],
        getTrackingRequestsByIds(db, accountId, idsOf("tracking_request")),
      ]);
      const inRankOrder = <T extends { id: string }>(kind: string, rows: T[]) => {
        const byId = new Map(rows.map((r) => [r.id, r]));
        return idsOf(kind).flatMap((id) => byId.get(id) ?? []);
      };
      return {
        containers: inRankOrder("cargo", containerRows).map(serializeContainer),
        shipments: inRankOrder("shipment", await hydrated(this.ctx, shipmentResource, shipmentRows)).map(
          serializeShipment,
        ),
        tracking_requests: inRankOrder("tracking_request", requestRows).map(serializeTrackingRequest),
        matches: Object.fromEntries(hits.map((h) => [h.id, h.match])),
      };
    });
  }

  /**
   * The custom field values of one shipment or container of the account (the service of
   * `GET /v2/{shipments|containers}/{id}/custom_fields`, docs/api.md §Custom fields), oldest first.
   */
  private async customFieldsOf(type: "shipment" | "container", id: string): Promise<CustomFieldResource[]> {
    const byEntity = await valuesOfEntities(this.deps.db, this.deps.accountId, type, [id]);
    return (byEntity.get(id) ?? []).map((v: CustomFieldView) => serializeCustomField(v) as CustomFieldResource);
  }

  /**
   * One container with the requested includes: `shipment` and `pod_terminal` read in the container's own D1 round
   * trip (as `GET /v2/containers/{id}?include=shipment,pod_terminal`), `transport_events` by
   * {@link getTransportEvents}. @throws TrackingApiError `not_found`.
   */
  async getContainer(id: string, include: ContainerInclude[] = []): Promise<ContainerDetails> {
    return mapErrors(async () => {
      const wanted = new Set(include);
      const tree = parseInclude([...wanted].filter((i) => i !== "transport_events").join(","), containerResource);
      // The container's custom field values are read in its own D1 round trip (`id` is its id: tools resolve numbers).
      const values = valuesOfEntitiesRead(this.deps.db, this.deps.accountId, "container", [id]);
      const { view, prefetched, also } = await getContainerView(this.deps.db, this.deps.accountId, id, tree, [
        values.query,
      ]);
      const details: ContainerDetails = { container: serializeContainer(view) };
      if (wanted.has("shipment")) {
        const shipment = prefetchedRow<ShipmentView>(prefetched.get("shipment"), view.shipmentId);
        details.shipment = shipment ? serializeShipment(shipment) : null;
      }
      if (wanted.has("pod_terminal")) {
        const terminal = prefetchedRow<TerminalRow>(prefetched.get("pod_terminal"), view.podTerminalId);
        details.pod_terminal = terminal ? serializeTerminal(terminal) : null;
      }
      if (wanted.has("transport_events")) details.transport_events = await this.getTransportEvents(id);
      const byEntity = await values.complete(also[0] ?? []);
      details.custom_fields = (byEntity.get(id) ?? []).map((v) => serializeCustomField(v) as CustomFieldResource);
      return details;
    });
  }

  /**
   * A page of the account's containers, newest first, filtered as `GET /v2/containers` filters (`filters` by its
   * parameter names, checked by `parseContainerFilters`); `includeShipment` adds each one's shipment (null: none);
   * `sort` is the list's `sort` (`parseContainerSort`: `pickup_lfd`, `-pod_eta_at` …; newest first when absent).
   * @throws TrackingApiError `invalid_argument` for a bad filter or sort, naming its parameter.
   */
  async listContainers(
    filters: FilterValues<keyof ContainerFilters> = {},
    page: PageOptions = {},
    options: { includeShipment?: boolean; sort?: string } = {},
  ): Promise<Page<ContainerDetails>> {
    return mapErrors(async () => {
      const request = pageRequest(page);
      const parsed = parseContainerFilters(filters);
      const sort = parseContainerSort(options.sort);
      const tree = parseInclude(options.includeShipment ? "shipment" : "", containerResource);
      const { db, accountId } = this.deps;
      const { rows, total, prefetched } = await listContainers(db, accountId, parsed, request, tree, sort);
      const shipments = prefetched.get("shipment");
      const items = rows.map((row): ContainerDetails => {
        if (!options.includeShipment) return { container: serializeContainer(row) };
        const shipment = prefetchedRow<ShipmentView>(shipments, row.shipmentId);
        return { container: serializeContainer(row), shipment: shipment ? serializeShipment(shipment) : null };
      });
      return pageOf(items, request, total);
    });
  }

  /**
   * One shipment with its POD terminal and, unless `includeContainers` is false, its containers (oldest first).
   * @throws TrackingApiError `not_found`.
   */
  async getShipment(id: string, options: { includeContainers?: boolean } = {}): Promise<ShipmentDetails> {
    return mapErrors(async () => {
      const row = await getShipment(this.deps.db, this.deps.accountId, id);
      const [view = row] = await hydrated(this.ctx, shipmentResource, [row]);
      const [terminals, containers, customFields] = await Promise.all([
        loadTerminalsByIds(this.deps.db, [view.podTerminalId]),
        options.includeContainers === false ? undefined : this.containersOf([view]),
        this.customFieldsOf("shipment", view.id),
      ]);
      const terminal = terminals[0];
      const details: ShipmentDetails = {
        shipment: serializeShipment(view),
        pod_terminal: terminal ? serializeTerminal(terminal) : null,
        custom_fields: customFields,
      };
      if (containers) details.containers = containers.get(view.id) ?? [];
      return details;
    });
  }

  /**
   * A page of the account's shipments, newest first, filtered as `GET /v2/shipments` filters (`filters` by its
   * parameter names, checked by `parseShipmentFilters`); `includeContainers` adds each one's containers.
   * @throws TrackingApiError `invalid_argument`.
   */
  async listShipments(
    filters: FilterValues<keyof ShipmentFilters> = {},
    page: PageOptions = {},
    options: { includeContainers?: boolean } = {},
  ): Promise<Page<ShipmentDetails>> {
    return mapErrors(async () => {
      const request = pageRequest(page);
      const { rows, total } = await listShipments(
        this.deps.db,
        this.deps.accountId,
        parseShipmentFilters(filters),
        request,
      );
      const containers = options.includeContainers ? await this.containersOf(rows) : undefined;
      const items = rows.map((row): ShipmentDetails => {
        const shipment = serializeShipment(row);
        return containers ? { shipment, containers: containers.get(row.id) ?? [] } : { shipment };
      });
      return pageOf(items, request, total);
    });
  }

  /** The containers of `shipments` (with their linkage, as `include=containers` serves them), by shipment, oldest first. */
  private async containersOf(shipments: ShipmentView[]): Promise<Map<string, ContainerResource[]>> {
    const ids = shipments.flatMap((s) => s.containerIds ?? []);
    const rows: ContainerView[] = await hydrated(
      this.ctx,
      containerResource,
      await loadContainersByIds(this.deps.db, this.deps.accountId, ids),
    );
    const byId = new Map(rows.map((r) => [r.id, serializeContainer(r)]));
    return new Map(shipments.map((s) => [s.id, (s.containerIds ?? []).flatMap((id) => byId.get(id) ?? [])] as const));
  }

  /**
   * A page of the account's tracking requests, newest first, filtered as `GET /v2/tracking_requests` filters
   * (`filters` by its parameter names, checked by `parseTrackingRequestFilters`).
   * @throws TrackingApiError `invalid_argument`.
   */
  async listTrackingRequests(
    filters: FilterValues<keyof TrackingRequestFilters> = {},
    page: PageOptions = {},
  ): Promise<Page<TrackingRequestResource>> {
    return mapErrors(async () => {
      const request = pageRequest(page);
      const parsed = parseTrackingRequestFilters(filters);
      const { rows, total } = await listTrackingRequests(this.deps.db, this.deps.accountId, parsed, request);
      return pageOf(rows.map(serializeTrackingRequest), request, total);
    });
  }

  /**
   * Every past, vetted transport event of a container (at most {@link MAX_TRANSPORT_EVENTS}), oldest first
   * (timestamp, then id), with its location (port) and terminal; estimates are not listed
   * (docs/api.md §Container endpoints).
   * @throws TrackingApiError `not_found`.
   */
  async getTransportEvents(containerId: string): Promise<TransportEventDetails[]> {
    return mapErrors(async () => {
      const rows: TransportEventRow[] = [];
      for (let number = 1; rows.length < MAX_TRANSPORT_EVENTS; number++) {
        const request = pageRequest({ page: number, pageSize: MAX_PAGE_SIZE });
        const page = await listContainerTransportEvents(this.deps.db, this.deps.accountId, containerId, request);
        rows.push(...page.rows);
        if (page.rows.length < request.size || rows.length >= page.total) break;
      }
      const [events, ports, terminals] = await Promise.all([
        hydrated(this.ctx, transportEventResource, rows),
        loadPortsByIds(
          this.deps.db,
          rows.map((r) => r.locationId),
        ).then((found) => hydrated(this.ctx, portResource, found)),
        loadTerminalsByIds(
          this.deps.db,
          rows.map((r) => r.terminalId),
        ),
      ]);
      const portById = new Map(ports.map((p) => [p.id, serializePort(p)]));
      const terminalById = new Map(terminals.map((t) => [t.id, serializeTerminal(t)]));
      return events.map((row) => ({
        event: serializeTransportEvent(row),
        location: (row.locationId && portById.get(row.locationId)) || null,
        terminal: (row.terminalId && terminalById.get(row.terminalId)) || null,
      }));
    });
  }

  /**
   * The container's route (paid feature, entitlement `routing`): the service of `GET /v2/containers/{id}/route`
   * (src/containers/shipping-route-service.ts), with the vessel carrying the box now and its latest position when
   * known (`currentVesselPosition`, src/containers/map-geojson-service.ts).
   * @throws TrackingApiError `forbidden_feature` (feature `routing`, {@link routingNotEnabledError}) when the account
   *   lacks it; `not_found`.
   */
  async getContainerRoute(
    containerId: string,
  ): Promise<{ route: ContainerRoute; currentVessel: CurrentVesselPosition | null }> {
    return this.routing(async () => {
      const { route } = await loadContainerRoute(this.deps.db, this.deps.primary, this.deps.accountId, containerId);
      return { route, currentVessel: await currentVesselPosition(this.deps.primary, route) };
    });
  }

  /**
   * The container's map as GeoJSON (paid feature `routing`): the service of `GET /v2/containers/{id}/map_geojson`
   * (src/containers/map-geojson-service.ts); the empty FeatureCollection when there is no route data yet.
   * @throws TrackingApiError `forbidden_feature` (feature `routing`) when the account lacks it; `not_found`.
   */
  async getContainerMap(containerId: string): Promise<ContainerMap> {
    return this.routing(() =>
      loadContainerMap(this.deps.db, this.deps.primary, this.deps.accountId, containerId, this.deps.clock.now()),
    );
  }

  /** Runs a read of the `routing` feature, its 403 turned into the `forbidden_feature` error. */
  private routing<T>(read: () => Promise<T>): Promise<T> {
    return mapErrors(async () => {
      try {
        return await read();
      } catch (err) {
        if (err instanceof ApiError && err.status === 403) throw routingNotEnabledError();
        throw err;
      }
    });
  }

  /**
   * Creates a tracking request (docs/api.md §Tracking request endpoints) after drawing from the account's
   * `create_tracking_request` bucket; it starts `pending` and is looked up asynchronously.
   * @throws TrackingApiError `invalid_argument` (field `scac` / `request_number`, code `blank`, `not_recognized`,
   *   `not_supported`, `duplicate`, `invalid`); `rate_limited`; `forbidden` for a read-only caller (nothing counted).
   */
  async createTrackingRequest(
    input: Pick<CreateTrackingRequestInput, "requestType" | "requestNumber" | "scac" | "refNumbers">,
  ): Promise<TrackingRequestResource> {
    if (this.deps.readOnly) {
      throw new TrackingApiError(
        "forbidden",
        "Forbidden: your role (viewer) may only read; nothing was created. Ask an admin of the account for the member role.",
      );
    }
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
        input,
      );
      return serializeTrackingRequest(row);
    });
  }

  /** Every known shipping line, sorted by SCAC, optionally filtered by `search` (SCAC, names). The sandbox `TEST` line is included. */
  async listShippingLines(search?: string): Promise<ShippingLineResource[]> {
    const sourceOf = sourcesFor(this.deps.env).lineSourceKind;
    return searchShippingLines(search?.trim()).map((l) => serializeShippingLine(l, sourceOf(l.scac)));
  }

  /**
   * For completions: up to `limit` containers of the account whose number or id starts with `prefix`, newest first
   * when `prefix` is empty (`recentContainerKeys`).
   */
  completeContainers(prefix: string, limit: number): Promise<{ id: string; number: string }[]> {
    return recentContainerKeys(this.deps.db, this.deps.accountId, prefix, limit);
  }

  /**
   * Classifies a number and predicts its shipping line (docs/api.md §Infer number), as
   * `POST /tracking_requests/infer_number`.
   * @throws TrackingApiError `invalid_argument` (field `number`) for garbage (`This reference number is not valid.`).
   */
  async inferNumber(number: string): Promise<InferNumberAttributes> {
    return mapErrors(async () => {
      try {
        return serializeInferResult(await inferNumber(this.deps.db, number));
      } catch (err) {
        if (err instanceof InvalidReferenceNumber) {
          throw new TrackingApiError("invalid_argument", "This reference number is not valid.", { field: "number" });
        }
        throw err;
      }
    });
  }

  /** Charges (src/charges/report.ts): one container's with ledgers, or the portfolio's, as of now or `asOfDate`. */
  async demurrageReport(containerId: string | null, asOfDate: string | null, withinDays = 3): Promise<DemurrageReport> {
    return mapErrors(() => demurrageReportOf(this.deps, containerId, asOfDate, withinDays));
  }
}
