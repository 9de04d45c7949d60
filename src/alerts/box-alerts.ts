import type { ContainerRow } from "../containers/serializer";
import type { ShipmentView } from "../shipments/serializer";
import { rowsOfCandidates } from "./boxes";
import type { AlertCharges } from "./charges";
import { type BoxContext, evaluateTransition } from "./conditions";
import type { AlertRow } from "./delivery";
import type { AlertRuleRow, AlertSettingsRow } from "./rule-service";

/** What the box pipeline read for alerts (with the webhook context, in the same round trip). */
export interface BoxAlertContext {
  rules: AlertRuleRow[];
  settings: AlertSettingsRow[];
  /** Custom field values by container id, read only when a rule's scope names custom fields. */
  customFields: Map<string, Record<string, string>>;
}

function boxOf(
  container: ContainerRow,
  shipment: ShipmentView | null,
  customFields: Record<string, string> | undefined,
): BoxContext {
  return {
    container,
    shipment: {
      customerId: shipment?.customerId ?? null,
      podEtaAt: shipment?.podEtaAt ?? null,
      lineTrackingFailedReason: shipment?.lineTrackingFailedReason ?? null,
      lineTrackingLastSucceededAt: shipment?.lineTrackingLastSucceededAt ?? null,
      ...(shipment
        ? { billOfLadingNumber: shipment.billOfLadingNumber, portOfDischargeName: shipment.portOfDischargeName }
        : {}),
    },
    customFields,
  };
}

/**
 * The alert rows one box update raises (issue 27 §2, event-driven conditions: holds, availability, ETA), to write in
 * the update's own D1 batch (src/tracking/box-writes.ts): for each subscribed row, every active rule of its account
 * evaluated on the row before the update and after it. A joining row raises nothing (its state is not news).
 * When an alert is raised and `chargesOf` is given, the calculator's charges of its boxes are read (one more round
 * trip, only then; src/alerts/charges.ts `chargesOfBoxes`) so its message states the cost.
 */
export async function boxAlertRows(
  ctx: BoxAlertContext,
  rows: readonly {
    before: ContainerRow | undefined;
    after: ContainerRow | null;
    shipmentBefore: ShipmentView | undefined;
    shipmentAfter: ShipmentView | null;
  }[],
  nowMs: number,
  nowIso: string,
  chargesOf?: (boxes: ContainerRow[]) => Promise<Map<string, AlertCharges>>,
): Promise<AlertRow[]> {
  if (ctx.rules.length === 0) return [];
  const boxes = new Map<string, BoxContext>();
  const candidates = rows.flatMap((r) => {
    if (!r.before || !r.after) return [];
    const custom = ctx.customFields.get(r.after.id);
    const before = boxOf(r.before, r.shipmentBefore ?? null, custom);
    const after = boxOf(r.after, r.shipmentAfter, custom);
    boxes.set(r.after.id, after);
    return ctx.rules
      .filter((rule) => rule.accountId === r.after?.accountId)
      .flatMap((rule) => evaluateTransition(rule, before, after, nowIso));
  });
  if (candidates.length > 0 && chargesOf) {
    const alerted = [...new Set(candidates.map((c) => c.containerId))];
    const charges = await chargesOf(alerted.flatMap((id) => boxes.get(id)?.container ?? []));
    for (const id of alerted) {
      const box = boxes.get(id);
      if (box) box.charges = charges.get(id);
    }
  }
  return rowsOfCandidates(candidates, new Map(ctx.rules.map((r) => [r.id, r])), boxes, ctx.settings, nowMs, nowIso);
}
