import { and, inArray, type Placeholder, type SQLWrapper } from "drizzle-orm";
import type { Database } from "../db/client";
import { idList, inIdChunks, MAX_IDS_PER_STATEMENT, MAX_SHAPED_IDS, placeholder, shaped } from "../db/query-shapes";
import { type ReadItem, readMany } from "../db/read-batch";
import { containers, parties, shipments } from "../db/schema";
import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { Resource } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import { allShippingLines } from "../reference/shipping-lines";
import type { ShipmentAttributes } from "./schemas";

/** A `shipments` row as drizzle returns it. */
export type ShipmentRow = typeof shipments.$inferSelect;

/** A shipment with its container ids (filled by `hydrate`) and customer name. */
export type ShipmentView = ShipmentRow & { containerIds?: string[]; customerName?: string | null };

const lineNames = new Map(allShippingLines().map((l) => [l.scac, l]));

/**
 * Serialises a shipment in the reference service's attribute order (docs/api.md §Shipment resource) with `links.self`.
 * Shipping-line names come from the reference registry by SCAC.
 */
export function serializeShipment(row: ShipmentView): Resource<ShipmentAttributes> {
  const line = lineNames.get(row.shippingLineScac);
  return {
    id: row.id,
    type: "shipment",
    attributes: {
      created_at: row.createdAt,
      ref_numbers: row.refNumbers,
      tags: row.tags,
      bill_of_lading_number: row.billOfLadingNumber,
      normalized_number: row.normalizedNumber,
      shipping_line_scac: row.shippingLineScac,
      shipping_line_name: line?.name ?? row.shippingLineScac,
      shipping_line_short_name: line?.shortName ?? row.shippingLineScac,
      customer_name: row.customerName ?? null,
      port_of_lading_locode: row.portOfLadingLocode,
      port_of_lading_name: row.portOfLadingName,
      port_of_discharge_locode: row.portOfDischargeLocode,
      port_of_discharge_name: row.portOfDischargeName,
      pod_vessel_name: row.podVesselName,
      pod_vessel_imo: row.podVesselImo,
      pod_voyage_number: row.podVoyageNumber,
      destination_locode: row.destinationLocode,
      destination_name: row.destinationName,
      destination_timezone: row.destinationTimezone,
      destination_ata_at: row.destinationAtaAt,
      destination_eta_at: row.destinationEtaAt,
      pol_etd_at: row.polEtdAt,
      pol_atd_at: row.polAtdAt,
      pol_timezone: row.polTimezone,
      pod_eta_at: row.podEtaAt,
      pod_original_eta_at: row.podOriginalEtaAt,
      pol_original_etd_at: row.polOriginalEtdAt,
      destination_original_eta_at: row.destinationOriginalEtaAt,
      pod_ata_at: row.podAtaAt,
      pod_timezone: row.podTimezone,
      line_tracking_last_attempted_at: row.lineTrackingLastAttemptedAt,
      line_tracking_last_succeeded_at: row.lineTrackingLastSucceededAt,
      line_tracking_stopped_at: row.lineTrackingStoppedAt,
      line_tracking_stopped_reason: row.lineTrackingStoppedReason,
      // A text column typed `string`; only the schema's reasons are ever written to it.
      line_tracking_failed_reason: row.lineTrackingFailedReason as ShipmentAttributes["line_tracking_failed_reason"],
    },
    relationships: {
      port_of_lading: { data: row.portOfLadingId ? { id: row.portOfLadingId, type: "port" } : null },
      port_of_discharge: { data: row.portOfDischargeId ? { id: row.portOfDischargeId, type: "port" } : null },
      pod_terminal: { data: row.podTerminalId ? { id: row.podTerminalId, type: "terminal" } : null },
      destination: { data: row.destinationId ? { id: row.destinationId, type: "port" } : null },
      destination_terminal: {
        data: row.destinationTerminalId ? { id: row.destinationTerminalId, type: "terminal" } : null,
      },
      line_tracking_stopped_by_user: { data: null },
      containers: { data: (row.containerIds ?? []).map((id) => ({ id, type: "container" })) },
    },
    links: { self: `/v2/shipments/${row.id}` },
  };
}

/**
 * The queries that complete shipments for serialization — their container ids (linkage, oldest first) and their
 * customers' names — for shipments given by id or by a subquery selecting ids, so they can share a D1 round
 * trip with the query that finds the shipments. In a query shape the account and ids are placeholders.
 */
export function shipmentLinkageQueries(
  db: Database,
  accountId: string | Placeholder,
  shipmentIds: (string | Placeholder)[] | SQLWrapper,
) {
  return [
    db
      .select({ id: containers.id, shipmentId: containers.shipmentId })
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), inArray(containers.shipmentId, shipmentIds)))
      .orderBy(containers.createdAt, containers.id),
    db
      .select({ id: parties.id, companyName: parties.companyName })
      .from(parties)
      .where(
        and(
          ownedBy(parties.accountId, accountId),
          inArray(
            parties.id,
            db
              .select({ id: shipments.customerId })
              .from(shipments)
              .where(and(ownedBy(shipments.accountId, accountId), inArray(shipments.id, shipmentIds))),
          ),
        ),
      ),
  ] as const;
}

/** Attaches the results of `shipmentLinkageQueries` to their rows. */
export function withShipmentLinkage(
  rows: ShipmentRow[],
  containerRows: unknown[],
  customerRows: unknown[],
): ShipmentView[] {
  const names = new Map((customerRows as { id: string; companyName: string }[]).map((p) => [p.id, p.companyName]));
  const byShipment = new Map<string, string[]>();
  for (const c of containerRows as { id: string; shipmentId: string }[]) {
    const list = byShipment.get(c.shipmentId);
    if (list) list.push(c.id);
    else byShipment.set(c.shipmentId, [c.id]);
  }
  return rows.map((r) => ({
    ...r,
    containerIds: byShipment.get(r.id) ?? [],
    customerName: r.customerId ? (names.get(r.customerId) ?? null) : null,
  }));
}

/**
 * Shipments of the account by id, completed with their linkage, in one D1 round trip (the `shipment` and
 * `tracked_object` includes). Up to `MAX_SHAPED_IDS` ids the queries are a cached query shape keyed by the number
 * of ids (src/db/query-shapes.ts).
 */
export async function loadShipmentViews(db: Database, accountId: string, ids: string[]): Promise<ShipmentView[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  // More ids than one statement binds: a round trip per chunk (src/db/query-shapes.ts MAX_IDS_PER_STATEMENT).
  if (unique.length > MAX_IDS_PER_STATEMENT) {
    return inIdChunks(unique, (chunk) => loadShipmentViews(db, accountId, chunk));
  }
  const build = (account: string | Placeholder, list: (string | Placeholder)[]) => [
    db
      .select()
      .from(shipments)
      .where(and(ownedBy(shipments.accountId, account), inArray(shipments.id, list))),
    ...shipmentLinkageQueries(db, account, list),
  ];
  let read: ReadItem[];
  if (unique.length > MAX_SHAPED_IDS) read = build(accountId, unique);
  else {
    const list = idList("id", unique);
    read = [
      shaped(db, `shipment.views:${list.key}`, () => build(placeholder("accountId"), list.placeholders), {
        accountId,
        ...list.values,
      }),
    ];
  }
  const [rows = [], found = [], customers = []] = await readMany(db, read);
  return withShipmentLinkage(rows as ShipmentRow[], found, customers);
}

/**
 * The linkage queries of shipments given by id (`shipmentLinkageQueries`), as a cached query shape keyed by the
 * number of ids up to `MAX_SHAPED_IDS`, built ad hoc beyond.
 */
function linkageReads(db: Database, accountId: string, ids: string[]): ReadItem[] {
  if (ids.length > MAX_SHAPED_IDS) return [...shipmentLinkageQueries(db, accountId, ids)];
  const list = idList("id", ids);
  return [
    shaped(
      db,
      `shipment.linkage:${list.key}`,
      () => [...shipmentLinkageQueries(db, placeholder("accountId"), list.placeholders)],
      { accountId, ...list.values },
    ),
  ];
}

/**
 * JSON:API type `shipment`; includable: `containers`, `pod_terminal`, `port_of_lading`,
 * `port_of_discharge`, `destination`, `destination_terminal` (docs/api.md §Includes). Read by id, completed with their
 * linkage (`loadShipmentViews`, or as queries that join another read's round trip), for the `shipment` of containers
 * and events and the `tracked_object` of tracking requests.
 */
export const shipmentResource = registerResourceType<ShipmentView>({
  type: "shipment",
  serializerName: "V2::ShipmentSerializer",
  hydrate: async (ctx, rows) => {
    if (rows.length === 0 || rows.every((r) => r.containerIds !== undefined)) return rows;
    const [found = [], customers = []] = await readMany(
      ctx.db,
      linkageReads(
        ctx.db,
        ctx.accountId,
        rows.map((r) => r.id),
      ),
    );
    return withShipmentLinkage(rows, found, customers);
  },
  serialize: serializeShipment,
  relationships: {
    containers: {
      target: "container",
      load: async (ctx, parents) => {
        if (parents.length === 0) return [];
        return ctx.db
          .select()
          .from(containers)
          .where(
            and(
              ownedBy(containers.accountId, ctx.accountId),
              inArray(
                containers.shipmentId,
                parents.map((s) => s.id),
              ),
            ),
          )
          .orderBy(containers.createdAt, containers.id);
      },
    },
    pod_terminal: { target: "terminal", idOf: (s) => s.podTerminalId },
    port_of_lading: { target: "port", idOf: (s) => s.portOfLadingId },
    port_of_discharge: { target: "port", idOf: (s) => s.portOfDischargeId },
    destination: { target: "port", idOf: (s) => s.destinationId },
    destination_terminal: { target: "terminal", idOf: (s) => s.destinationTerminalId },
  },
  loadByIds: (ctx, ids) =>
    loadShipmentViews(
      ctx.db,
      ctx.accountId,
      ids.filter((id): id is string => !!id),
    ),
  byIdsQueries: {
    size: 3,
    queries: (ctx, shipmentIds) => [
      ctx.db
        .select()
        .from(shipments)
        .where(and(ownedBy(shipments.accountId, ctx.accountId), inArray(shipments.id, shipmentIds))),
      ...shipmentLinkageQueries(ctx.db, ctx.accountId, shipmentIds),
    ],
    rows: ([rows = [], found = [], customers = []]) => withShipmentLinkage(rows as ShipmentRow[], found, customers),
  },
});
