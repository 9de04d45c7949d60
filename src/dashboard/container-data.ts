import { type AsOf, type ContainerCharges, getContainerCharges } from "../charges/service";
import type { ContainerMap } from "../containers/map-geojson";
import { getContainerMap } from "../containers/map-geojson-service";
import type { ContainerView } from "../containers/serializer";
import { getContainerView } from "../containers/service";
import { type DefinitionView, listDefinitions } from "../custom-fields/definitions";
import { type CustomFieldView, valuesOfEntities } from "../custom-fields/values";
import type { Database } from "../db/client";
import { listDocuments } from "../documents/list";
import { normalizeReference } from "../documents/references";
import type { DocumentView } from "../documents/serializer";
import { ApiError } from "../lib/errors";
import { MAX_PAGE_SIZE } from "../lib/jsonapi/pagination";
import { getParty } from "../parties/service";
import type { RawEventView } from "../raw-events/serializer";
import { listContainerRawEvents } from "../raw-events/service";
import type { ShipmentRow } from "../shipments/serializer";
import { getShipment } from "../shipments/service";
import { type TransportEventView, transportEventResource } from "../transport-events/serializer";
import { listContainerTransportEvents } from "../transport-events/service";

/**
 * What one container's dashboard page shows (src/dashboard/container-page.tsx), read through the services the REST
 * routes call (DESIGN.md "Everything a page can do is an API operation first"): `GET /v2/containers/{id}` (the
 * container view), its shipment and customer party, `/charges`, `/transport_events` (estimates kept in),
 * `/raw_events`, `GET /v2/documents?filter[reference]=<number>`, the container's custom fields and the account's
 * Container definitions, and `/map_geojson`.
 */
export interface ContainerPageData extends ContainerSummary {
  charges: ContainerCharges;
  timeline: Timeline;
  documents: DocumentView[];
  /** How many documents match in all (the page shows the first {@link MAX_PAGE_SIZE}). */
  documentsTotal: number;
  customFields: CustomFieldEntry[];
  /** The map's GeoJSON, or why there is none (the account lacks the `routing` entitlement). */
  map: { geojson: ContainerMap } | { unavailable: string };
}

/** The container with its shipment and customer: the page's summary. */
export interface ContainerSummary {
  container: ContainerView;
  /** Null only if the shipment vanished between reads. */
  shipment: ShipmentRow | null;
  /** Company name of the shipment's customer party, or null. */
  customerName: string | null;
}

/** One Container custom field definition of the account and the container's value of it (null: none set). */
export interface CustomFieldEntry {
  definition: DefinitionView;
  value: CustomFieldView | null;
}

/** A milestone of the timeline: the transport event and the carrier feed rows behind it. */
export interface Milestone {
  event: TransportEventView;
  /** True for `container.transport.estimated.*` (a planned time), false for an actual milestone. */
  estimated: boolean;
  /** The raw events behind it, in feed order (see {@link timelineOf}). */
  rawEvents: RawEventView[];
}

/** The container's milestones in time order, and the raw events no milestone stands on. */
export interface Timeline {
  milestones: Milestone[];
  /** Raw events matched to no milestone, in feed order. */
  otherRawEvents: RawEventView[];
  /** True when the container has more events than one page ({@link MAX_PAGE_SIZE}) and only the first are shown. */
  truncated: boolean;
}

const TRANSPORT = "container.transport.";
const ESTIMATED = "estimated.";

/** The raw event name, estimated flag and place a `container.transport.*` event stands for; null for others. */
function milestoneKeyOf(event: TransportEventView): string | null {
  if (!event.event.startsWith(TRANSPORT)) return null;
  const name = event.event.slice(TRANSPORT.length);
  const estimated = name.startsWith(ESTIMATED);
  return `${estimated ? name.slice(ESTIMATED.length) : name}|${estimated ? "E" : "A"}|${event.locationLocode ?? ""}`;
}

function rawKeyOf(raw: RawEventView): string {
  return `${raw.event}|${raw.estimated ? "E" : "A"}|${raw.locationLocode ?? ""}`;
}

/**
 * Orders a container's transport events into the page's timeline and puts each raw (carrier feed) event under the
 * milestone it stands behind: the event's own `source_event` (the row it was recorded from), and every other feed
 * row reporting the same milestone (name, estimated or actual, place) — a carrier reports a milestone again and again
 * (an ETA revised, an actual confirmed); the rows behind the latest milestone of that key are the ones shown with it.
 * Milestones go by `timestamp` (UTC ISO 8601, so text order is time order), ties by id, events without a time last.
 * Pure: no I/O.
 */
export function timelineOf(events: readonly TransportEventView[], raws: readonly RawEventView[]): Timeline {
  const ordered = [...events].sort((a, b) => {
    if (a.timestamp === b.timestamp) return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
    if (a.timestamp === null) return 1;
    if (b.timestamp === null) return -1;
    return a.timestamp < b.timestamp ? -1 : 1;
  });
  const milestones: Milestone[] = ordered.map((event) => ({
    event,
    estimated: event.event.startsWith(`${TRANSPORT}${ESTIMATED}`),
    rawEvents: [],
  }));
  const bySource = new Map<string, Milestone>();
  const byKey = new Map<string, Milestone>();
  for (const m of milestones) {
    if (m.event.sourceEventId) bySource.set(m.event.sourceEventId, m);
    const key = milestoneKeyOf(m.event);
    if (key) byKey.set(key, m);
  }
  const otherRawEvents: RawEventView[] = [];
  for (const raw of raws) {
    const owner = bySource.get(raw.id) ?? byKey.get(rawKeyOf(raw));
    if (owner) owner.rawEvents.push(raw);
    else otherRawEvents.push(raw);
  }
  return { milestones, otherRawEvents, truncated: false };
}

/**
 * What {@link loadContainerPage} needs: the account's shard (`db`), the primary database (`primary`: entitlements,
 * vessels and positions for the map; docs/SCALING.md §Shards) and the instant the page is computed for (ms since the
 * epoch).
 */
export interface ContainerPageDeps {
  db: Database;
  primary: Database;
  nowMs: number;
  /** The retention archive (`ARCHIVE_BUCKET`, src/archive/): archived raw events show in the timeline as in the API. */
  archive?: R2Bucket;
}

const FIRST_PAGE = { number: 1, size: MAX_PAGE_SIZE, sizeGiven: true, offset: 0 };

/**
 * Everything the container page shows, for the account's container `id`: the container first (its 404), then the
 * rest in parallel. The map is left out (`unavailable`) without the `routing` entitlement, which its service answers
 * with 403; every other error propagates.
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function loadContainerPage(
  deps: ContainerPageDeps,
  accountId: string,
  id: string,
): Promise<ContainerPageData> {
  const { db, primary, nowMs, archive } = deps;
  const summary = await loadContainerSummary(db, accountId, id);
  const asOf: AsOf = { nowMs, date: null };
  const reference = normalizeReference(summary.container.number);
  const [charges, timeline, documents, customFields, map] = await Promise.all([
    getContainerCharges(db, accountId, id, asOf, null),
    loadTimeline(db, accountId, id, archive),
    listDocuments(db, accountId, { reference }, FIRST_PAGE),
    loadCustomFields(db, accountId, id),
    loadMap(db, primary, accountId, id, nowMs),
  ]);
  return {
    ...summary,
    charges,
    timeline,
    documents: documents.rows,
    documentsTotal: documents.total,
    customFields,
    map,
  };
}

/**
 * The container (`getContainerView`, as `GET /v2/containers/{id}`), its shipment (`getShipment`) and the company name
 * of the shipment's customer (`getParty`).
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function loadContainerSummary(db: Database, accountId: string, id: string): Promise<ContainerSummary> {
  const { view: container } = await getContainerView(db, accountId, id);
  const shipment = await getShipment(db, accountId, container.shipmentId).catch(notFoundAsNull);
  const customerName = shipment?.customerId
    ? ((await getParty(db, accountId, shipment.customerId).catch(notFoundAsNull))?.companyName ?? null)
    : null;
  return { container, shipment, customerName };
}

/**
 * The live part of the page (`GET /app/containers/{id}/live`): the summary and the timeline.
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function loadContainerLive(
  db: Database,
  accountId: string,
  id: string,
  archive?: R2Bucket,
): Promise<ContainerSummary & { timeline: Timeline }> {
  const summary = await loadContainerSummary(db, accountId, id);
  return { ...summary, timeline: await loadTimeline(db, accountId, id, archive) };
}

/**
 * The container's timeline alone (the page's live refresh, `GET /app/containers/{id}/live`): the first page of its
 * transport events with estimates, hydrated with their `source_event` as the REST serializer does, and its raw events
 * (those the retention archive moved to R2 included when `archive` is given, as `GET /raw_events` serves them).
 * @throws ApiError 404 when the container is unknown or another account's.
 */
export async function loadTimeline(db: Database, accountId: string, id: string, archive?: R2Bucket): Promise<Timeline> {
  const [events, raws] = await Promise.all([
    listContainerTransportEvents(db, accountId, id, FIRST_PAGE, { estimates: true }),
    listContainerRawEvents(db, accountId, id, archive),
  ]);
  const hydrate = transportEventResource.hydrate;
  const rows = hydrate ? await hydrate({ db, accountId }, events.rows) : events.rows;
  return { ...timelineOf(rows, raws), truncated: events.total > events.rows.length };
}

/** The account's Container definitions (oldest first) with the container's value of each. */
async function loadCustomFields(db: Database, accountId: string, id: string): Promise<CustomFieldEntry[]> {
  const [definitions, values] = await Promise.all([
    listDefinitions(db, accountId, { entityType: "Container" }, FIRST_PAGE),
    valuesOfEntities(db, accountId, "container", [id]),
  ]);
  const mine = values.get(id) ?? [];
  return definitions.rows.map((definition) => ({
    definition,
    value: mine.find((v) => v.definitionId === definition.id) ?? null,
  }));
}

async function loadMap(
  db: Database,
  primary: Database,
  accountId: string,
  id: string,
  nowMs: number,
): Promise<ContainerPageData["map"]> {
  try {
    return { geojson: await getContainerMap(db, primary, accountId, id, nowMs) };
  } catch (err) {
    if (err instanceof ApiError && err.status === 403) {
      return { unavailable: "The map needs the routing feature, which this account does not have." };
    }
    throw err;
  }
}

function notFoundAsNull(err: unknown): null {
  if (err instanceof ApiError && err.status === 404) return null;
  throw err;
}
