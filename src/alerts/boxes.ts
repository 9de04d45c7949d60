import { and, eq, inArray } from "drizzle-orm";
import type { ContainerRow } from "../containers/serializer";
import type { Database } from "../db/client";
import { alertRules, alertSettings, containers, customFieldDefinitions, customFields, shipments } from "../db/schema";
import type { ShipmentRow } from "../shipments/serializer";
import type { AlertCandidate, BoxContext } from "./conditions";
import { type AlertRow, alertId, alertRow } from "./delivery";
import { alertFacts } from "./messages";
import { type AlertRuleRow, type AlertSettingsRow, defaultAlertSettings } from "./rule-service";

/** Ids per `IN (…)` list: D1 binds at most 100 parameters per statement. */
const CHUNK = 80;

function chunks<T>(xs: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < xs.length; i += CHUNK) out.push(xs.slice(i, i + CHUNK));
  return out;
}

/** The query of the active alert rules of some accounts (batchable with the box update's other reads). */
export function activeAlertRulesQuery(db: Database, accountIds: readonly string[]) {
  return db
    .select()
    .from(alertRules)
    .where(and(inArray(alertRules.accountId, [...new Set(accountIds)]), eq(alertRules.active, true)));
}

/** The query of the alert settings of some accounts. */
export function alertSettingsQuery(db: Database, accountIds: readonly string[]) {
  return db
    .select()
    .from(alertSettings)
    .where(inArray(alertSettings.accountId, [...new Set(accountIds)]));
}

/** The settings of `accountId` among `rows`, else the defaults. */
export function settingsOf(rows: readonly AlertSettingsRow[], accountId: string): AlertSettingsRow {
  return rows.find((r) => r.accountId === accountId) ?? defaultAlertSettings(accountId);
}

/**
 * The custom field values of some containers and their shipments, by container: api_slug → value as text (a box's
 * own value wins over its shipment's). Read only when a rule's scope names custom fields.
 */
export async function customFieldsByContainer(
  db: Database,
  boxes: readonly { id: string; shipmentId: string }[],
): Promise<Map<string, Record<string, string>>> {
  const out = new Map<string, Record<string, string>>();
  if (boxes.length === 0) return out;
  const ids = [...new Set(boxes.flatMap((b) => [b.id, b.shipmentId]))];
  const rows: { entityId: string; entityType: string; slug: string; value: unknown }[] = [];
  for (const chunk of chunks(ids)) {
    rows.push(
      ...(await db
        .select({
          entityId: customFields.entityId,
          entityType: customFields.entityType,
          slug: customFieldDefinitions.apiSlug,
          value: customFields.value,
        })
        .from(customFields)
        .innerJoin(customFieldDefinitions, eq(customFieldDefinitions.id, customFields.definitionId))
        .where(inArray(customFields.entityId, chunk))),
    );
  }
  const text = (v: unknown) => (Array.isArray(v) ? v.map(String).join(",") : v === null ? "" : String(v));
  for (const b of boxes) {
    const values: Record<string, string> = {};
    for (const r of rows) if (r.entityId === b.shipmentId) values[r.slug] = text(r.value);
    for (const r of rows) if (r.entityId === b.id) values[r.slug] = text(r.value);
    out.set(b.id, values);
  }
  return out;
}

/** Whether any of `rules` scopes by custom field (so their values must be read). */
export function needsCustomFields(rules: readonly AlertRuleRow[]): boolean {
  return rules.some((r) => Object.keys(r.scope.custom_fields ?? {}).length > 0);
}

/** Containers and their shipments by container id, as {@link BoxContext}s (custom fields when `withCustomFields`). */
export async function loadBoxes(
  db: Database,
  containerIds: readonly string[],
  withCustomFields: boolean,
): Promise<Map<string, BoxContext>> {
  const rows: ContainerRow[] = [];
  for (const chunk of chunks([...new Set(containerIds)])) {
    rows.push(...(await db.select().from(containers).where(inArray(containers.id, chunk))));
  }
  const ships = new Map<string, ShipmentRow>();
  for (const chunk of chunks([...new Set(rows.map((r) => r.shipmentId))])) {
    for (const s of await db.select().from(shipments).where(inArray(shipments.id, chunk))) ships.set(s.id, s);
  }
  const custom = withCustomFields ? await customFieldsByContainer(db, rows) : new Map<string, Record<string, string>>();
  const out = new Map<string, BoxContext>();
  for (const c of rows) {
    const s = ships.get(c.shipmentId);
    out.set(c.id, {
      container: c,
      shipment: {
        customerId: s?.customerId ?? null,
        podEtaAt: s?.podEtaAt ?? null,
        lineTrackingFailedReason: s?.lineTrackingFailedReason ?? null,
        lineTrackingLastSucceededAt: s?.lineTrackingLastSucceededAt ?? null,
        ...(s ? { billOfLadingNumber: s.billOfLadingNumber } : {}),
        portOfDischargeName: s?.portOfDischargeName ?? null,
      },
      customFields: custom.get(c.id),
    });
  }
  return out;
}

/** The alert rows of some candidates (ids derived from rule, box and episode; facts built from the box). */
export async function rowsOfCandidates(
  candidates: readonly AlertCandidate[],
  rules: ReadonlyMap<string, AlertRuleRow>,
  boxes: ReadonlyMap<string, BoxContext>,
  settings: readonly AlertSettingsRow[],
  nowMs: number,
  nowIso: string,
): Promise<AlertRow[]> {
  const rows: AlertRow[] = [];
  for (const candidate of candidates) {
    const rule = rules.get(candidate.ruleId);
    const box = boxes.get(candidate.containerId);
    if (!rule || !box) continue;
    const id = await alertId(rule.id, candidate.containerId, candidate.episodeKey);
    const facts = alertFacts(id, candidate, box.container, box.shipment, nowIso, box.charges);
    rows.push(alertRow(rule, candidate, id, facts, settingsOf(settings, rule.accountId), nowMs));
  }
  return rows;
}
