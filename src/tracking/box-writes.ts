import { and, asc, eq, exists, inArray, or, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import { type BoxAlertContext, boxAlertRows } from "../alerts/box-alerts";
import { activeAlertRulesQuery, alertSettingsQuery, customFieldsByContainer, needsCustomFields } from "../alerts/boxes";
import { chargesOfBoxes } from "../alerts/charges";
import { alertInserts, dueNow } from "../alerts/delivery";
import type { ContainerRow } from "../containers/serializer";
import type { Database } from "../db/client";
import { excluded, insertChunks } from "../db/insert-chunks";
import {
  alertRules,
  containers,
  containerUpdatedEvents,
  estimatedEvents,
  parties,
  rawEvents,
  shipments,
  trackedEquipment,
  transportEvents,
  webhooks,
} from "../db/schema";
import { deterministicId } from "../lib/ids";
import { findPortByLocode, logUnknownLocations, resolveTerminal, unknownLocations } from "../reference/locations";
import type { ShipmentRow, ShipmentView } from "../shipments/serializer";
import type { TransportEventRow } from "../transport-events/serializer";
import {
  activeWebhooksQuery,
  type NotificationDraft,
  notificationInserts,
  type WebhookTarget,
} from "../webhooks/outbox";
import {
  type ContainerUpdatedEventRow,
  containerCreatedIncluded,
  containerUpdatedIncluded,
  type EstimatedEventRow,
  estimatedArrivalIncluded,
  podTerminalChangedIncluded,
  transportEventIncluded,
} from "../webhooks/payloads";
import type { ContainerState, ShipmentState } from "./derive";
import type { EngineEvent } from "./events";

/** One account's container row following a box. */
export interface Subscription {
  accountId: string;
  containerId: string;
  shipmentId: string;
}

/** What one update of a box writes. */
export interface BoxUpdate {
  /**
   * The box's `tracked_equipment` row, updated with the poll times in this batch; null when another batch writes it
   * (the Tracker builds one batch per shard, and the row lives in the primary: src/tracking/tracker.ts).
   */
  trackedEquipmentId: string | null;
  /** Rows that get `events` (they already had the previous state). */
  subscriptions: Subscription[];
  /** Rows that join now and get `historyEvents` (everything recorded so far) instead. */
  joining: Subscription[];
  state: ContainerState;
  shipment: ShipmentState;
  events: EngineEvent[];
  historyEvents: EngineEvent[];
  nowIso: string;
  /**
   * When the carrier / the terminal last answered for the box (`*_last_tracking_request_at`; the carrier's is also the
   * shipments' `line_tracking_last_succeeded_at`), or null.
   */
  carrierCheckedAt: string | null;
  /**
   * When the carrier was last asked, answered or not (`line_tracking_last_attempted_at`), and why that attempt failed
   * (`line_tracking_failed_reason`, null when it answered); issue 13 §1. Absent: `carrierCheckedAt` and null.
   */
  carrierAttemptedAt?: string | null;
  carrierFailedReason?: string | null;
  terminalCheckedAt: string | null;
  /** When the inland rail ramp last answered for the box (`rail_last_tracking_request_at`); absent: left as is. */
  railCheckedAt?: string | null;
  /**
   * The POD terminal's / the inland ramp's latest attempt, answered or not, and why it failed (null when it
   * answered): the containers' `terminal_tracking_*` / `rail_tracking_*` extensions (issue 13 §1). Absent: left as is.
   */
  facilityAttempts?: FacilityAttempts;
  nextPollAt: string | null;
  /** `index` given to the first raw event written now (raw events are numbered per box, in arrival order). */
  rawIndexStart: number;
  /**
   * What the webhook outbox needs to announce the update (from {@link loadBoxWebhookContext}); null when nothing is
   * announced (no event, or no subscriber).
   */
  webhooks?: BoxWebhookContext | null;
}

/**
 * The latest attempt to poll each facility of a box, as the container rows carry it (issue 13 §1): when the POD
 * terminal / the inland rail ramp was last asked (UTC ISO seconds, answered or not; null: never), and why that attempt
 * failed (a `TerminalPollResult` temporary-failure reason; null when it answered).
 */
export interface FacilityAttempts {
  terminalAttemptedAt: string | null;
  terminalFailedReason: string | null;
  railAttemptedAt: string | null;
  railFailedReason: string | null;
}

/** The `containers` columns of {@link FacilityAttempts}. */
export function facilityAttemptColumns(attempts: FacilityAttempts) {
  return {
    terminalTrackingLastAttemptedAt: attempts.terminalAttemptedAt,
    terminalTrackingFailedReason: attempts.terminalFailedReason,
    railTrackingLastAttemptedAt: attempts.railAttemptedAt,
    railTrackingFailedReason: attempts.railFailedReason,
  };
}

/**
 * The subscribed accounts' active webhooks and the rows the notification bodies include, as they were before the
 * update (the update's own values are laid over them, exactly as its UPDATE statements set them).
 */
export interface BoxWebhookContext {
  targets: WebhookTarget[];
  /** The accounts' active alert rules and settings (issue 27 §2), evaluated on the same before/after rows. */
  alerts?: BoxAlertContext;
  containers: Map<string, ContainerRow>;
  shipments: Map<string, ShipmentView>;
}

/**
 * Reads, in one D1 round trip, what the webhook outbox needs to announce an update of these rows: the accounts'
 * active webhooks, the container rows, the shipment rows with their customer names (one statement), the shipments'
 * container ids, and the accounts' alert rules and settings (6 statements). Called only for updates that announce
 * something, so an unchanged poll stays at one D1 batch and a changed one at two.
 */
export async function loadBoxWebhookContext(db: Database, subs: Subscription[]): Promise<BoxWebhookContext> {
  const containerIds = [...new Set(subs.map((s) => s.containerId))];
  const shipmentIds = [...new Set(subs.map((s) => s.shipmentId))];
  const accountIds = [...new Set(subs.map((s) => s.accountId))];
  // The row reads only run when some account has an active webhook (an uncorrelated EXISTS, evaluated once), so a
  // box whose accounts have none pays one indexed lookup.
  const anyWebhook = or(
    exists(
      db
        .select({ one: sql`1` })
        .from(webhooks)
        .where(and(inArray(webhooks.accountId, accountIds), eq(webhooks.active, true))),
    ),
    exists(
      db
        .select({ one: sql`1` })
        .from(alertRules)
        .where(and(inArray(alertRules.accountId, accountIds), eq(alertRules.active, true))),
    ),
  );
  const [targets, containerRows, shipmentRows, siblings, rules, settings] = await db.batch([
    activeWebhooksQuery(db, accountIds),
    db
      .select()
      .from(containers)
      .where(and(inArray(containers.id, containerIds), anyWebhook)),
    // The shipments with their customers' names, in one statement (a LEFT JOIN on the party's primary key).
    db
      .select({ shipment: shipments, customerName: parties.companyName })
      .from(shipments)
      .leftJoin(parties, eq(parties.id, shipments.customerId))
      .where(and(inArray(shipments.id, shipmentIds), anyWebhook)),
    db
      .select({ id: containers.id, shipmentId: containers.shipmentId })
      .from(containers)
      .where(and(inArray(containers.shipmentId, shipmentIds), anyWebhook))
      .orderBy(asc(containers.createdAt), asc(containers.id)),
    activeAlertRulesQuery(db, accountIds),
    alertSettingsQuery(db, accountIds),
  ]);
  const views = new Map<string, ShipmentView>();
  for (const { shipment, customerName } of shipmentRows as { shipment: ShipmentRow; customerName: string | null }[]) {
    views.set(shipment.id, {
      ...shipment,
      containerIds: siblings.filter((c) => c.shipmentId === shipment.id).map((c) => c.id),
      customerName: shipment.customerId ? (customerName ?? null) : null,
    });
  }
  // Only a rule scoped by custom field values costs one more read.
  const customFields = needsCustomFields(rules) ? await customFieldsByContainer(db, containerRows) : new Map();
  return {
    targets,
    containers: new Map(containerRows.map((c) => [c.id, c])),
    shipments: views,
    alerts: { rules, settings, customFields },
  };
}

/**
 * The D1 statements of one box update, for one batch (docs/architecture.md §Tracking pipeline step 4): every subscribed
 * container row gets the same state in one UPDATE, every subscribed shipment row the shipment state, and each event
 * becomes a row per container. Event rows have ids derived from the container and the fact, and are inserted with
 * ON CONFLICT DO NOTHING (an actual milestone's row: DO UPDATE of its time, place and vessel, so a corrected actual
 * is updated in place), so replaying an update (a retried message, a Tracker that restarted between its
 * D1 write and its own bookkeeping) writes nothing twice.
 *
 * With `update.webhooks`, the batch also writes the webhook outbox (docs/decisions.md §Webhooks): for each subscribed
 * row, one notification per event per active webhook of its account subscribed to it — `container.transport.*`,
 * `container.pickup_lfd*.changed`, `container.pickup_appointment.changed` (reference object: the transport event),
 * `container.updated` (its changeset), `shipment.estimated.arrival` (once per shipment),
 * `container.pod_terminal_changed` — and `container.created` for each joining row. A joining row's history events
 * are written but not announced.
 * With alert rules in `update.webhooks.alerts`, the batch also writes the alerts of the event-driven conditions (a hold
 * placed or released, available for pickup, ETA moved; src/alerts/box-alerts.ts), once per (rule, box, episode).
 * @returns the statements, how many raw events they number, and the ids of the notifications and of the alerts due
 *   now they write (to enqueue once the batch committed).
 */
export async function boxUpdateStatements(
  db: Database,
  update: BoxUpdate,
): Promise<{ statements: BatchItem<"sqlite">[]; rawCount: number; notificationIds: string[]; alertIds: string[] }> {
  const statements: BatchItem<"sqlite">[] = [];
  const all = [...update.subscriptions, ...update.joining];
  const { state, shipment, nowIso } = update;
  const containerSet = {
    ...state,
    updatedAt: nowIso,
    shipmentLastTrackingRequestAt: update.carrierCheckedAt,
    podLastTrackingRequestAt: update.terminalCheckedAt,
    ...(update.railCheckedAt !== undefined ? { railLastTrackingRequestAt: update.railCheckedAt } : {}),
    ...(update.facilityAttempts ? facilityAttemptColumns(update.facilityAttempts) : {}),
  };
  const pol = findPortByLocode(shipment.portOfLadingLocode);
  const pod = findPortByLocode(shipment.portOfDischargeLocode);
  const destination = findPortByLocode(shipment.destinationLocode);
  const shipmentSet = {
    ...shipment,
    portOfLadingId: pol?.id ?? null,
    portOfLadingName: pol?.name ?? null,
    portOfDischargeId: pod?.id ?? null,
    portOfDischargeName: pod?.name ?? null,
    destinationId: destination?.id ?? null,
    destinationName: destination?.name ?? null,
    podTerminalId: state.podTerminalId,
    updatedAt: nowIso,
    ...((update.carrierAttemptedAt ?? update.carrierCheckedAt)
      ? {
          lineTrackingLastAttemptedAt: update.carrierAttemptedAt ?? update.carrierCheckedAt,
          lineTrackingLastSucceededAt: update.carrierCheckedAt,
          lineTrackingFailedReason: update.carrierFailedReason ?? null,
        }
      : {}),
  };
  if (all.length > 0) {
    statements.push(
      db
        .update(containers)
        .set(containerSet)
        .where(
          inArray(
            containers.id,
            all.map((s) => s.containerId),
          ),
        ),
    );
    statements.push(
      db
        .update(shipments)
        .set(shipmentSet)
        .where(inArray(shipments.id, [...new Set(all.map((s) => s.shipmentId))])),
    );
  }
  // Each table's new rows, in the order one INSERT per row wrote them; written as multi-row INSERTs below.
  const transportRows: { row: TransportEventRow; actual: boolean }[] = [];
  const rawRows: (typeof rawEvents.$inferInsert)[] = [];
  const containerUpdatedRows: ContainerUpdatedEventRow[] = [];
  const estimatedRows: EstimatedEventRow[] = [];
  let rawIndex = update.rawIndexStart;
  const rawIndexByKey = new Map<string, number>();
  const drafts: NotificationDraft[] = [];
  const hooks = update.webhooks ?? null;
  // The rows as they stand once this batch has run: what was there, with the UPDATEs above laid over it.
  const containerAfter = (id: string): ContainerRow | null => {
    const before = hooks?.containers.get(id);
    return before ? { ...before, ...containerSet } : null;
  };
  const shipmentAfter = (id: string): ShipmentView | null => {
    const before = hooks?.shipments.get(id);
    return before ? { ...before, ...shipmentSet } : null;
  };
  /** Announces events of rows that already had the previous state (a joining row only gets `container.created`). */
  const announce = (draft: Omit<NotificationDraft, "createdAt">) => {
    if (hooks) drafts.push({ ...draft, createdAt: nowIso });
  };
  const writeEvents = async (subs: Subscription[], events: EngineEvent[], announced: boolean) => {
    for (const sub of subs) {
      for (const e of events) {
        if (e.kind === "transport_event") {
          const location = findPortByLocode(e.locationLocode);
          const terminal = resolveTerminal(e.facilityCode, e.locationLocode);
          const m = e.milestone;
          // The carrier's correction is a report of its own in the raw feed, next to the one it corrects.
          const rawKey = m ? (e.revision ? `${e.key}|${e.revision}` : e.key) : null;
          // The event links the raw row written with it (its `source_event`): a read needs no lookup of the feed.
          const rawEventId = rawKey ? await deterministicId(`raw_event:${sub.containerId}:${rawKey}`) : null;
          const row: TransportEventRow = {
            id: await deterministicId(`transport_event:${sub.containerId}:${e.key}`),
            accountId: sub.accountId,
            containerId: sub.containerId,
            shipmentId: sub.shipmentId,
            event: e.event,
            voyageNumber: e.voyageNumber,
            timestamp: e.timestamp,
            timezone: location?.timeZone ?? terminal?.timeZone ?? null,
            locationLocode: e.locationLocode,
            locationId: location?.id ?? null,
            terminalId: terminal?.id ?? null,
            vesselName: e.vesselName,
            vesselImo: e.vesselImo,
            value: e.value,
            dataSource: e.dataSource,
            invalidatedAt: null,
            createdAt: nowIso,
            rawEventId,
          };
          // An actual milestone's row is upserted (a corrected actual updates it in place); any other is kept as first
          // written.
          transportRows.push({ row, actual: e.milestone !== null && !e.milestone.estimated });
          // A quiet record (the carrier's copy of a move a terminal reported first) updates its row, announces nothing.
          if (announced && !e.quiet) {
            announce({
              accountId: sub.accountId,
              event: e.event,
              reference: { id: row.id, type: "transport_event" },
              // A correction is news of its own: one more notification, once (its id derives from the new time).
              dedupKey: e.revision ? `${e.event}:${row.id}:${e.revision}` : `${e.event}:${row.id}`,
              included: () =>
                transportEventIncluded({
                  event: row,
                  container: containerAfter(sub.containerId),
                  shipment: shipmentAfter(sub.shipmentId),
                }),
            });
          }
          if (m && rawKey && rawEventId) {
            let index = rawIndexByKey.get(rawKey);
            if (index === undefined) {
              index = rawIndex++;
              rawIndexByKey.set(rawKey, index);
            }
            rawRows.push({
              id: rawEventId,
              accountId: sub.accountId,
              containerId: sub.containerId,
              index,
              event: m.event.replace("container.transport.", ""),
              originalEvent: m.originalEvent,
              timestamp: m.timestamp,
              estimated: m.estimated,
              actualOn: m.estimated ? null : m.timestamp.slice(0, 10),
              estimatedOn: m.estimated ? m.timestamp.slice(0, 10) : null,
              location: location?.name ?? m.locationName ?? null,
              locationLocode: m.locationLocode,
              vesselName: m.vesselName,
              vesselImo: m.vesselImo,
              voyageNumber: m.voyageNumber,
              timezone: location?.timeZone ?? null,
              dataSource: e.dataSource,
              payload: m.raw ?? null,
              createdAt: nowIso,
            });
          }
        } else if (e.kind === "container_updated") {
          const row: ContainerUpdatedEventRow = {
            // Derived from the update (its time and changeset), so a replayed update writes it once.
            id: await deterministicId(`container_updated:${sub.containerId}:${nowIso}:${JSON.stringify(e.changeset)}`),
            accountId: sub.accountId,
            containerId: sub.containerId,
            shipmentId: sub.shipmentId,
            terminalId: state.pickupFacilityId ?? state.podTerminalId,
            changeset: e.changeset,
            timestamp: e.timestamp,
            timezone: state.pickupFacilityId ? state.finalDestinationTimezone : state.podTimezone,
            dataSource: e.dataSource,
            createdAt: nowIso,
          };
          containerUpdatedRows.push(row);
          if (announced) {
            announce({
              accountId: sub.accountId,
              event: "container.updated",
              reference: { id: row.id, type: "container_updated_event" },
              dedupKey: `container.updated:${row.id}`,
              included: () =>
                containerUpdatedIncluded(row, containerAfter(sub.containerId), shipmentAfter(sub.shipmentId)),
            });
          }
        } else if (e.kind === "shipment_estimated_arrival") {
          const location = findPortByLocode(e.locationLocode);
          const row: EstimatedEventRow = {
            id: await deterministicId(`estimated_event:${sub.shipmentId}:${e.estimatedTimestamp}`),
            accountId: sub.accountId,
            shipmentId: sub.shipmentId,
            event: "shipment.estimated.arrival",
            estimatedTimestamp: e.estimatedTimestamp,
            locationLocode: e.locationLocode,
            locationId: location?.id ?? null,
            voyageNumber: e.voyageNumber,
            timezone: location?.timeZone ?? null,
            dataSource: "shipping_line",
            createdAt: nowIso,
          };
          estimatedRows.push(row);
          // One per shipment: every box of the shipment writes the same estimated event (and notification id).
          if (announced) {
            announce({
              accountId: sub.accountId,
              event: "shipment.estimated.arrival",
              reference: { id: row.id, type: "estimated_event" },
              dedupKey: `shipment.estimated.arrival:${row.id}`,
              included: () =>
                estimatedArrivalIncluded(row, shipmentAfter(sub.shipmentId), {
                  name: shipment.podVesselName,
                  imo: shipment.podVesselImo,
                }),
            });
          }
        } else if (e.kind === "pod_terminal_changed" && announced) {
          const changed = {
            id: await deterministicId(`pod_terminal_changed:${sub.containerId}:${nowIso}:${e.terminalId ?? ""}`),
            containerId: sub.containerId,
            shipmentId: sub.shipmentId,
            terminalId: e.terminalId,
            timestamp: nowIso,
            dataSource: "shipping_line" as const,
          };
          announce({
            accountId: sub.accountId,
            event: "container.pod_terminal_changed",
            reference: { id: changed.id, type: "container_pod_terminal_changed_event" },
            dedupKey: `container.pod_terminal_changed:${changed.id}`,
            included: () =>
              podTerminalChangedIncluded(changed, containerAfter(sub.containerId), shipmentAfter(sub.shipmentId)),
          });
        }
      }
    }
  };
  // Codes the reference data does not know stay on the rows as given; the log line shows the gap (issue 12).
  logUnknownLocations(
    "box update",
    unknownLocations([
      { locode: shipment.portOfLadingLocode },
      { locode: shipment.portOfDischargeLocode },
      { locode: shipment.destinationLocode },
      ...[...update.events, ...update.historyEvents].flatMap((e) =>
        e.kind === "transport_event" ? [{ locode: e.locationLocode, facilityCode: e.facilityCode }] : [],
      ),
    ]),
  );
  await writeEvents(update.subscriptions, update.events, true);
  // A joining row's history is its starting state, not news: it is announced once, as `container.created`.
  await writeEvents(update.joining, update.historyEvents, false);
  for (const sub of update.joining) {
    const created = {
      id: await deterministicId(`container_created:${sub.containerId}`),
      containerId: sub.containerId,
      shipmentId: sub.shipmentId,
      timestamp: hooks?.containers.get(sub.containerId)?.createdAt ?? nowIso,
      timezone: "Etc/UTC",
    };
    announce({
      accountId: sub.accountId,
      event: "container.created",
      reference: { id: created.id, type: "container_created_event" },
      dedupKey: `container.created:${sub.containerId}`,
      included: () => containerCreatedIncluded(created, containerAfter(sub.containerId), shipmentAfter(sub.shipmentId)),
    });
  }
  statements.push(...eventInserts(db, transportRows, rawRows, containerUpdatedRows, estimatedRows));
  const outbox = hooks
    ? await notificationInserts(db, hooks.targets, drafts, nowIso)
    : { statements: [], ids: [] as string[] };
  statements.push(...outbox.statements);
  // Alerts of the event-driven conditions, in the same batch as the change (issue 27 §2).
  const nowMs = Date.parse(nowIso);
  const alertRows = hooks?.alerts
    ? await boxAlertRows(
        hooks.alerts,
        update.subscriptions.map((sub) => ({
          before: hooks.containers.get(sub.containerId),
          after: containerAfter(sub.containerId),
          shipmentBefore: hooks.shipments.get(sub.shipmentId),
          shipmentAfter: shipmentAfter(sub.shipmentId),
        })),
        nowMs,
        nowIso,
        // Only when an alert is raised: the calculator's charges for its message, with this update's availability
        // changes (written in this batch, not in D1 yet).
        (boxes) =>
          chargesOfBoxes(
            db,
            boxes,
            nowMs,
            update.subscriptions.flatMap((sub) =>
              update.events.flatMap((e) =>
                e.kind === "transport_event"
                  ? [{ containerId: sub.containerId, event: e.event, timestamp: e.timestamp }]
                  : [],
              ),
            ),
          ),
      )
    : [];
  statements.push(...alertInserts(db, alertRows));
  if (update.trackedEquipmentId !== null) {
    statements.push(
      db
        .update(trackedEquipment)
        .set({
          lastPolledAt: nowIso,
          nextPollAt: update.nextPollAt,
          stoppedAt: update.nextPollAt ? null : nowIso,
        })
        .where(inArray(trackedEquipment.id, [update.trackedEquipmentId])),
    );
  }
  return {
    statements,
    rawCount: rawIndex - update.rawIndexStart,
    notificationIds: outbox.ids,
    alertIds: dueNow(alertRows, nowMs),
  };
}

/**
 * The INSERTs of one update's event rows, one multi-row statement per table (chunked under D1's 100 bound parameters,
 * src/db/insert-chunks.ts) instead of one per row, with the same ON CONFLICT clauses and, for rows of the same id, in
 * the same order, so they write exactly what one INSERT per row would: an actual milestone's transport event is upserted (its time,
 * place, source, vessel and raw event from the row proposed, `excluded`), every other row is kept as first written.
 */
function eventInserts(
  db: Database,
  transportRows: readonly { row: TransportEventRow; actual: boolean }[],
  rawRows: readonly (typeof rawEvents.$inferInsert)[],
  containerUpdatedRows: readonly ContainerUpdatedEventRow[],
  estimatedRows: readonly EstimatedEventRow[],
): BatchItem<"sqlite">[] {
  const statements: BatchItem<"sqlite">[] = [];
  // Actual milestones' rows first, then the others (each in its order), so each kind fills its statements: two rows
  // of different kinds never touch the same row (the id is the only unique key) unless they share an id, and then the
  // order as given is kept.
  const actualIds = new Set(transportRows.filter((r) => r.actual).map((r) => r.row.id));
  const ordered = transportRows.every((r) => r.actual || !actualIds.has(r.row.id))
    ? [...transportRows.filter((r) => r.actual), ...transportRows.filter((r) => !r.actual)]
    : transportRows;
  for (const run of insertChunks(
    transportEvents,
    ordered,
    (r) => r.actual,
    (r) => r.row,
  )) {
    const insert = db.insert(transportEvents).values(run.rows.map((r) => r.row));
    statements.push(
      run.group
        ? insert.onConflictDoUpdate({
            target: transportEvents.id,
            // The carrier's copy of a terminal-reported move (issue 14) may name another place (an empty return) and
            // makes the event the carrier's.
            set: {
              timestamp: excluded(transportEvents.timestamp),
              timezone: excluded(transportEvents.timezone),
              locationLocode: excluded(transportEvents.locationLocode),
              locationId: excluded(transportEvents.locationId),
              dataSource: excluded(transportEvents.dataSource),
              terminalId: excluded(transportEvents.terminalId),
              vesselName: excluded(transportEvents.vesselName),
              vesselImo: excluded(transportEvents.vesselImo),
              voyageNumber: excluded(transportEvents.voyageNumber),
              rawEventId: excluded(transportEvents.rawEventId),
            },
          })
        : insert.onConflictDoNothing(),
    );
  }
  for (const run of insertChunks(rawEvents, rawRows)) {
    statements.push(db.insert(rawEvents).values(run.rows).onConflictDoNothing());
  }
  for (const run of insertChunks(containerUpdatedEvents, containerUpdatedRows)) {
    statements.push(db.insert(containerUpdatedEvents).values(run.rows).onConflictDoNothing());
  }
  for (const run of insertChunks(estimatedEvents, estimatedRows)) {
    statements.push(db.insert(estimatedEvents).values(run.rows).onConflictDoNothing());
  }
  return statements;
}
