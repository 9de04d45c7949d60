/**
 * Typed HTTP client of the container tracking REST API (`/v2`): `new TrackingClient({ apiKey, baseUrl })`.
 * Runs in Node ≥ 18, browsers and Workers (only `fetch`, `Request`, `URL`, `AbortController`). The stdio MCP
 * server (src/mcp/stdio.ts) is built on it; docs/api.md §REST client shows how to use it.
 */
export {
  type ContainersApi,
  type CreateTrackingRequestInput,
  type CreateTrackingRequestOptions,
  DEFAULT_MAX_RETRY_WAIT_SECONDS,
  DEFAULT_ROUTE_INCLUDE,
  DEFAULT_TIMEOUT_MS,
  DEFAULT_USER_AGENT,
  type FetchLike,
  type GetOptions,
  normaliseBaseUrl,
  type PartiesApi,
  type RawRequestOptions,
  type RequestOptions,
  type ShipmentsApi,
  type ShippingLinesApi,
  TrackingClient,
  type TrackingClientOptions,
  type TrackingRequestsApi,
} from "./client";
export { type ClientErrorCode, parseRetryAfter, TrackingClientError } from "./errors";
export {
  collect,
  findIncluded,
  items,
  nextPageNumber,
  type PaginateOptions,
  paginate,
  relationshipMany,
  relationshipOne,
} from "./pagination";
export type {
  ContainerFilters,
  ContainerInclude,
  ListOptions,
  PageOptions,
  RawEventInclude,
  RouteInclude,
  ShipmentFilters,
  ShipmentInclude,
  TimeRange,
  TrackingRequestFilters,
  TrackingRequestInclude,
  TransportEventInclude,
} from "./query";
export type * from "./types";
