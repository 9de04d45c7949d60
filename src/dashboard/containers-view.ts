import { localDateOf } from "../charges/local-dates";
import { formatMinorUnits } from "../charges/money";
import { chargesOfContainers, type PortfolioRow } from "../charges/service";
import { type ContainerSort, parseContainerSort } from "../containers/list-order";
import { type ContainerFilters, parseContainerFilters } from "../containers/schemas";
import type { ContainerView } from "../containers/serializer";
import { containerResource } from "../containers/serializer";
import { listContainers } from "../containers/service";
import type { Database } from "../db/client";
import { toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { parseInclude } from "../lib/jsonapi/include";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { localTimeIn } from "../lib/time-zones";
import { allShippingLines } from "../reference/shipping-lines";
import type { ShipmentView } from "../shipments/serializer";
import { CONTAINER_STATUSES } from "../tracking/status";

/**
 * The dashboard's container table as data (issue 28 §Containers; docs/dashboard.md): the page's query string in the
 * words of its form, translated to the REST list's own filters and sort (`GET /v2/containers`, docs/api.md §Container
 * endpoints), read through the same service (`listContainers`) and the charges service (`chargesOfContainers`), and
 * turned into rows for the HTML table and the CSV export alike.
 */

/** Rows of one page of the table (the API's `page[size]` for the page). */
export const TABLE_PAGE_SIZE = 50;
/** Most rows the CSV export holds; a larger view is refused with a message (narrow the filters). */
export const MAX_EXPORT_ROWS = 10_000;
/** Largest "LFD within N days". */
export const MAX_LFD_WITHIN_DAYS = 365;

/** The fields of the page's filter form, by query-string name, and the REST parameter each stands for. */
export const VIEW_FIELDS = {
  q: "filter[search]",
  status: "filter[status]",
  pod: "filter[pod_locode]",
  line: "filter[scac]",
  customer: "filter[customer_name]",
  lfd_within: "filter[pickup_lfd][end]",
  holds: "filter[has_holds]",
  cf_key: "filter[custom_field][slug]",
  cf_value: "filter[custom_field][value]",
  sort: "sort",
} as const;

/** A field of the filter form. */
export type ViewField = keyof typeof VIEW_FIELDS;

/** The view a query string asks for: the raw form values (to re-fill the form), the API filters, sort and page. */
export interface ContainersViewQuery {
  values: Partial<Record<ViewField, string>>;
  filters: ContainerFilters;
  sort: ContainerSort | undefined;
  /** 1-based page number. */
  page: number;
}

/** A form value that was refused: the field and the message shown next to it. */
export class ViewFieldError extends Error {
  constructor(
    readonly field: ViewField | "page",
    message: string,
  ) {
    super(message);
  }
}

/**
 * Reads the page's query string (`q`, `status`, `pod`, `line`, `customer`, `lfd_within`, `holds` = `yes`/`no`,
 * `cf_key` + `cf_value`, `sort`, `page`) into the REST list's filters, checked by the REST list's own parsers
 * (`parseContainerFilters`, `parseContainerSort`). `lfd_within=N` is `filter[pickup_lfd][end]` = now + N days: boxes
 * whose LFD (the end of its local day) falls within N×24 h, overdue ones included.
 * @throws ViewFieldError naming the form field of the first refused value (its message is the API's detail).
 */
export function parseViewQuery(params: URLSearchParams, nowMs: number): ContainersViewQuery {
  const values: Partial<Record<ViewField, string>> = {};
  for (const field of Object.keys(VIEW_FIELDS) as ViewField[]) {
    const v = params.get(field)?.trim();
    if (v) values[field] = v;
  }
  const pageRaw = params.get("page")?.trim() || "1";
  if (!/^\d{1,6}$/.test(pageRaw) || Number(pageRaw) < 1) {
    throw new ViewFieldError("page", "The page must be a whole number from 1.");
  }
  let lfdEnd: string | undefined;
  if (values.lfd_within !== undefined) {
    const days = /^\d{1,3}$/.test(values.lfd_within) ? Number(values.lfd_within) : Number.NaN;
    if (!(days <= MAX_LFD_WITHIN_DAYS)) {
      throw new ViewFieldError("lfd_within", `Give a whole number of days from 0 to ${MAX_LFD_WITHIN_DAYS}.`);
    }
    lfdEnd = toIsoSeconds(nowMs + days * 86_400_000);
  }
  if (values.holds !== undefined && values.holds !== "yes" && values.holds !== "no") {
    throw new ViewFieldError("holds", "Choose yes, no or any.");
  }
  const raw: Record<string, string | undefined> = {
    "filter[search]": values.q,
    "filter[status]": values.status,
    "filter[pod_locode]": values.pod,
    "filter[scac]": values.line,
    "filter[customer_name]": values.customer,
    "filter[pickup_lfd][end]": lfdEnd,
    "filter[has_holds]": values.holds === undefined ? undefined : values.holds === "yes" ? "true" : "false",
    "filter[custom_field][slug]": values.cf_key,
    "filter[custom_field][value]": values.cf_value,
  };
  try {
    return {
      values,
      filters: parseContainerFilters(raw),
      sort: parseContainerSort(values.sort),
      page: Number(pageRaw),
    };
  } catch (e) {
    throw asFieldError(e);
  }
}

/** An ApiError 400 of a REST parameter as the error of the form field standing for it; anything else unchanged. */
export function asFieldError(e: unknown): unknown {
  if (!(e instanceof ApiError) || e.status !== 400) return e;
  const parameter = e.errors[0]?.source?.parameter;
  const field = (Object.keys(VIEW_FIELDS) as ViewField[]).find((f) => VIEW_FIELDS[f] === parameter);
  return field ? new ViewFieldError(field, e.errors[0]?.detail ?? "This value is not accepted.") : e;
}

/** One row of the table and of the CSV: API values plus what the page shows for them. */
export interface ContainerTableRow {
  id: string;
  number: string;
  scac: string | null;
  lineName: string | null;
  podLocode: string | null;
  podName: string | null;
  currentStatus: string;
  availableForPickup: boolean | null;
  /** Holds in force (`status: hold`) and pending ones, by name. */
  holds: { name: string; status: string }[];
  /** The API's `pickup_lfd` (ISO 8601 UTC) and its date at the POD (`pod_timezone`, else UTC). */
  pickupLfd: string | null;
  pickupLfdLocalDate: string | null;
  /**
   * Today's accrued charges per currency, `USD 450.00` (the charges service's amount to date); empty when no tariff or
   * terminal LFD applies, or when its clock has not started.
   */
  charges: string[];
  /** The shipment's `pod_eta_at` (ISO 8601 UTC) and as shown: local time with the zone's abbreviation. */
  podEtaAt: string | null;
  podEtaLocal: string | null;
  /** The zone the local values are in (IANA), or null when the POD's zone is unknown (UTC shown). */
  podTimezone: string | null;
  customerName: string | null;
  updatedAt: string;
}

const lineNames = new Map(allShippingLines().map((l) => [l.scac, l.shortName || l.name]));

/** `2026-01-03 14:00 PST`: a UTC instant on the wall clock of `timeZone` (UTC when unknown), `localTimeIn`'s parts. */
export function localTimeWithZone(iso: string, timeZone: string | null): string {
  const local = localTimeIn(iso, timeZone ?? "UTC");
  return local ? `${local.date} ${local.time} ${local.abbreviation}` : iso;
}

const knownZones = new Map<string, boolean>();

/** `zone` when `Intl` knows it (checked once per zone: an export formats thousands of rows), else null. */
function zoneOrNull(zone: string | null | undefined): string | null {
  if (!zone) return null;
  let known = knownZones.get(zone);
  if (known === undefined) {
    try {
      new Intl.DateTimeFormat("en", { timeZone: zone });
      known = true;
    } catch {
      known = false;
    }
    knownZones.set(zone, known);
  }
  return known ? zone : null;
}

/** The table rows of containers read with their shipments, and their charges by container id. */
export function tableRowsOf(
  views: readonly ContainerView[],
  shipments: readonly ShipmentView[],
  charges: ReadonlyMap<string, Pick<PortfolioRow, "amountByCurrency" | "status">>,
): ContainerTableRow[] {
  const shipmentById = new Map(shipments.map((s) => [s.id, s]));
  return views.map((c) => {
    const shipment = shipmentById.get(c.shipmentId);
    const zone = zoneOrNull(c.podTimezone ?? shipment?.podTimezone);
    const lfdMs = c.pickupLfd ? Date.parse(c.pickupLfd) : Number.NaN;
    // A box whose clock has not started (still on the water) has nothing accrued: blank, as where no tariff applies.
    const charged = charges.get(c.id);
    const amounts = charged && charged.status !== "not_started" ? charged.amountByCurrency : new Map<string, number>();
    return {
      id: c.id,
      number: c.number,
      scac: c.scac,
      lineName: c.scac ? (lineNames.get(c.scac) ?? null) : null,
      podLocode: c.podLocode,
      podName: shipment?.portOfDischargeName ?? null,
      currentStatus: c.currentStatus,
      availableForPickup: c.availableForPickup,
      holds: c.holdsAtPodTerminal.map((h) => ({ name: h.name, status: h.status })),
      pickupLfd: c.pickupLfd,
      pickupLfdLocalDate: Number.isNaN(lfdMs) ? null : localDateOf(lfdMs, zone ?? "UTC"),
      charges: [...amounts]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([currency, minor]) => `${currency} ${formatMinorUnits(minor, currency)}`),
      podEtaAt: shipment?.podEtaAt ?? null,
      podEtaLocal: shipment?.podEtaAt ? localTimeWithZone(shipment.podEtaAt, zone) : null,
      podTimezone: zone,
      customerName: shipment?.customerName ?? null,
      updatedAt: c.updatedAt,
    };
  });
}

/** A page (or an export) of the view: its rows and how many containers the view holds. */
export interface ContainersViewPage {
  rows: ContainerTableRow[];
  total: number;
}

const SHIPMENT_INCLUDE = parseInclude("shipment", containerResource);

/** One page of the view's containers with their shipments (the `shipment` include): one D1 round trip. */
async function readViewPage(
  db: Database,
  accountId: string,
  query: Pick<ContainersViewQuery, "filters" | "sort">,
  page: PageRequest,
) {
  const { rows, total, prefetched } = await listContainers(
    db,
    accountId,
    query.filters,
    page,
    SHIPMENT_INCLUDE,
    query.sort,
  );
  return { views: rows, shipments: (prefetched.get("shipment") ?? []) as ShipmentView[], total };
}

/**
 * One page of the view: `listContainers` (the REST list's service, with its `shipment` include for the ETA, POD name
 * and customer: one D1 round trip) and the page's charges as of `nowMs` (`chargesOfContainers`: one more).
 */
export async function loadViewPage(
  db: Database,
  accountId: string,
  query: Pick<ContainersViewQuery, "filters" | "sort">,
  page: PageRequest,
  nowMs: number,
): Promise<ContainersViewPage> {
  const { views, shipments, total } = await readViewPage(db, accountId, query, page);
  const charges = await chargesOfContainers(
    db,
    accountId,
    views.map((r) => r.id),
    nowMs,
  );
  return { rows: tableRowsOf(views, shipments, charges), total };
}

/**
 * Every row of the view, for the export: its pages of `chunk` read in turn (the REST service takes any page size; the
 * API clamps at 100), then the charges of all of them in one read (`chargesOfContainers`), so the calculation runs
 * once per box. A view larger than `limit` is not read past its first page: `rows` is then null.
 */
export async function loadWholeView(
  db: Database,
  accountId: string,
  query: Pick<ContainersViewQuery, "filters" | "sort">,
  nowMs: number,
  limit = MAX_EXPORT_ROWS,
  chunk = 1000,
): Promise<{ rows: ContainerTableRow[] | null; total: number }> {
  const first = await readViewPage(db, accountId, query, tablePage(1, chunk));
  if (first.total > limit) return { rows: null, total: first.total };
  const views = [...first.views];
  const shipments = [...first.shipments];
  for (let n = 2; views.length < first.total; n++) {
    const next = await readViewPage(db, accountId, query, tablePage(n, chunk));
    if (next.views.length === 0) break;
    views.push(...next.views);
    shipments.push(...next.shipments);
  }
  const charges = await chargesOfContainers(
    db,
    accountId,
    views.map((v) => v.id),
    nowMs,
  );
  return { rows: tableRowsOf(views, shipments, charges), total: first.total };
}

/** The `PageRequest` of page `n` of the table. */
export function tablePage(n: number, size = TABLE_PAGE_SIZE): PageRequest {
  return { number: n, size, sizeGiven: true, offset: (n - 1) * size };
}

/** The statuses the status filter offers (the API's `current_status` values, journey order). */
export const STATUS_CHOICES = CONTAINER_STATUSES;
