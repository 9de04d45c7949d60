import type { ContainerRow } from "../containers/serializer";
import type { AlertScope, TerminalHold } from "../db/schema";
import type { ShipmentView } from "../shipments/serializer";
import type { AlertCharges } from "./charges";

/**
 * Alert conditions and their episodes (issue 27 §2). Pure: no I/O, time passed in. A rule alerts once per
 * (rule, box, episode); the episode key of each condition says what "once" means:
 *
 * | condition | fires when | episode key |
 * | --- | --- | --- |
 * | `free_time_ending` | the free time ends within `threshold_days` local days and the box is not out | `free_time:<last free day>` (one per LFD value in force) |
 * | `charges_accruing` | the calculator says demurrage is accruing (free time ended, the day chargeable) | `charges:<last free day>` |
 * | `hold_changed` | a terminal hold is placed, or released | `hold:<name>:placed\|released:<update time>` (one placed→released cycle gives two alerts) |
 * | `available_for_pickup` | the box becomes available for pickup | `available:<update time>` |
 * | `eta_changed` | the POD ETA moves by more than `threshold_hours` in one update | `eta:<new ETA>` |
 * | `empty_return_due` | the empty return is due within `threshold_days` local days and the box is not back | `empty_return:<due date>` |
 * | `tracking_failed` | the shipping line or the POD terminal stops answering for the box | `tracking_failed:<source>:<last success or never>` (one per failure run) |
 *
 * The last free day, `accruing` and the empty return's due date are the tariff calculator's (src/charges/, read
 * through src/alerts/charges.ts into `BoxContext.charges`): the terminal's LFD when reported, else the account's
 * matching tariff's calculated one; the due date is the detention (or combined) tariff's, and with no such tariff there
 * is no known due date, so no `empty_return_due`.
 *
 * "Update time" is the time of the box update that saw the change (the Tracker's `nowIso`): a replayed update has the
 * same time, so it writes the same episode. The first four event-driven conditions are evaluated in the box update's
 * D1 batch (src/alerts/box-alerts.ts); the date-driven ones (`free_time_ending`, `charges_accruing`,
 * `empty_return_due`, `tracking_failed`) by the cron (src/alerts/cron.ts).
 */
export const ALERT_CONDITIONS = [
  "free_time_ending",
  "charges_accruing",
  "hold_changed",
  "available_for_pickup",
  "eta_changed",
  "empty_return_due",
  "tracking_failed",
] as const;

/** One of {@link ALERT_CONDITIONS}. */
export type AlertCondition = (typeof ALERT_CONDITIONS)[number];

/** Conditions evaluated by the cron from dates and failure states. */
export const TIME_DRIVEN_CONDITIONS: readonly AlertCondition[] = [
  "free_time_ending",
  "charges_accruing",
  "empty_return_due",
  "tracking_failed",
];

/** Conditions that need `threshold_days` (≥ 0) / `threshold_hours` (≥ 1). */
export const NEEDS_THRESHOLD_DAYS: readonly AlertCondition[] = ["free_time_ending", "empty_return_due"];
export const NEEDS_THRESHOLD_HOURS: readonly AlertCondition[] = ["eta_changed"];

/** The rule fields evaluation needs. */
export interface RuleForEvaluation {
  id: string;
  condition: string;
  thresholdDays: number | null;
  thresholdHours: number | null;
  scope: AlertScope;
}

/** What a box carries for scope matching besides its row: its shipment's customer and its custom field values. */
export interface BoxContext {
  container: ContainerRow;
  shipment: Pick<ShipmentView, "customerId" | "podEtaAt" | "lineTrackingFailedReason" | "lineTrackingLastSucceededAt"> &
    Partial<Pick<ShipmentView, "billOfLadingNumber" | "portOfDischargeName">>;
  /** Custom field api_slug → value as text, of the box and its shipment. */
  customFields?: Readonly<Record<string, string>>;
  /** The tariff calculator's charges of the box as of the evaluation (src/alerts/charges.ts), when read. */
  charges?: AlertCharges;
}

/** One alert a rule raises for a box. `what`: one sentence of what happened (for the messages). */
export interface AlertCandidate {
  ruleId: string;
  containerId: string;
  condition: AlertCondition;
  episodeKey: string;
  what: string;
  /** The free time end or due date the alert is about (YYYY-MM-DD, local), when there is one. */
  dueOn?: string;
}

/** Whether a box is in the rule's scope (every non-empty list must contain the box's value). */
export function inScope(scope: AlertScope, box: BoxContext): boolean {
  const c = box.container;
  if (scope.ports?.length && !scope.ports.includes(c.podLocode ?? "")) return false;
  if (scope.scacs?.length && !scope.scacs.includes(c.scac ?? "")) return false;
  if (scope.customers?.length && !scope.customers.includes(box.shipment.customerId ?? "")) return false;
  for (const [key, value] of Object.entries(scope.custom_fields ?? {})) {
    if (box.customFields?.[key] !== value) return false;
  }
  return true;
}

/** The local calendar date (YYYY-MM-DD) of `ms` in `timeZone` (IANA; an unknown zone reads as UTC). */
export function localDate(ms: number, timeZone: string | null | undefined): string {
  try {
    return new Intl.DateTimeFormat("en-CA", { timeZone: timeZone || "UTC" }).format(ms);
  } catch {
    return new Date(ms).toISOString().slice(0, 10);
  }
}

/** Whole days from local date `from` to local date `to` (both YYYY-MM-DD); negative when `to` is earlier. */
export function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Whether the full box has left the terminal (POD or inland ramp). */
export function isOut(c: Pick<ContainerRow, "podFullOutAt" | "finalDestinationFullOutAt">): boolean {
  return c.podFullOutAt !== null || c.finalDestinationFullOutAt !== null;
}

/**
 * The date-driven alerts a rule raises for a box (the cron's evaluation): `free_time_ending`, `charges_accruing`,
 * `empty_return_due`, `tracking_failed`. The first three read `box.charges` (the calculator's, as of the cron's now;
 * nothing without it); dates are local dates at the POD. Nothing for a box out of scope or a rule of
 * another condition.
 */
export function evaluateTimeDriven(rule: RuleForEvaluation, box: BoxContext): AlertCandidate[] {
  if (!inScope(rule.scope, box)) return [];
  const c = box.container;
  const base = { ruleId: rule.id, containerId: c.id };
  switch (rule.condition) {
    case "free_time_ending":
    case "charges_accruing": {
      const line = box.charges?.demurrage;
      const today = box.charges?.today;
      const lfd = line?.lastFreeDay;
      if (!line || !lfd || !today || line.stopped || isOut(c) || c.emptyTerminatedAt) return [];
      const left = daysBetween(today, lfd);
      if (rule.condition === "free_time_ending" && left >= 0 && left <= (rule.thresholdDays ?? 0)) {
        const when = left === 0 ? "today" : left === 1 ? "tomorrow" : `in ${left} days`;
        return [
          {
            ...base,
            condition: "free_time_ending",
            episodeKey: `free_time:${lfd}`,
            what: `Free time ends ${when} (last free day ${lfd}) and the box is still at the terminal.`,
            dueOn: lfd,
          },
        ];
      }
      if (rule.condition === "charges_accruing" && line.accruing) {
        const days = line.chargeableDays;
        return [
          {
            ...base,
            condition: "charges_accruing",
            episodeKey: `charges:${lfd}`,
            what: `Free time ended on ${lfd}; demurrage is accruing (${days} chargeable day${days === 1 ? "" : "s"} so far).`,
            dueOn: lfd,
          },
        ];
      }
      return [];
    }
    case "empty_return_due": {
      const line = box.charges?.emptyReturn;
      const today = box.charges?.today;
      const due = line?.lastFreeDay;
      if (!line || !due || !today || line.stopped || c.emptyTerminatedAt || !isOut(c)) return [];
      const left = daysBetween(today, due);
      if (left > (rule.thresholdDays ?? 0)) return [];
      const what =
        left < 0
          ? `The empty return was due on ${due}; ${line.accruing ? "detention is accruing" : "detention has not started (days not chargeable)"}.`
          : `The empty must be back by ${due} (${left === 0 ? "today" : `in ${left} day${left === 1 ? "" : "s"}`}).`;
      return [{ ...base, condition: "empty_return_due", episodeKey: `empty_return:${due}`, what, dueOn: due }];
    }
    case "tracking_failed": {
      const out: AlertCandidate[] = [];
      if (box.shipment.lineTrackingFailedReason) {
        out.push({
          ...base,
          condition: "tracking_failed",
          episodeKey: `tracking_failed:shipping_line:${box.shipment.lineTrackingLastSucceededAt ?? "never"}`,
          what: `The shipping line stopped answering for this box (${box.shipment.lineTrackingFailedReason}).`,
        });
      }
      if (c.terminalTrackingFailedReason) {
        out.push({
          ...base,
          condition: "tracking_failed",
          episodeKey: `tracking_failed:terminal:${c.podLastTrackingRequestAt ?? "never"}`,
          what: `The POD terminal stopped answering for this box (${c.terminalTrackingFailedReason}).`,
        });
      }
      return out;
    }
    default:
      return [];
  }
}

function activeHolds(holds: readonly TerminalHold[] | null | undefined): Set<string> {
  return new Set((holds ?? []).filter((h) => h.status === "hold").map((h) => h.name));
}

/**
 * The event-driven alerts a rule raises for one box update (`before` → `after`, seen at `nowIso`):
 * `hold_changed`, `available_for_pickup`, `eta_changed`. `before` null (a box seen for the first time) raises nothing:
 * a starting state is not news.
 */
export function evaluateTransition(
  rule: RuleForEvaluation,
  before: BoxContext | null,
  after: BoxContext,
  nowIso: string,
): AlertCandidate[] {
  if (!before || !inScope(rule.scope, after)) return [];
  const base = { ruleId: rule.id, containerId: after.container.id };
  switch (rule.condition) {
    case "hold_changed": {
      const was = activeHolds(before.container.holdsAtPodTerminal);
      const now = activeHolds(after.container.holdsAtPodTerminal);
      const out: AlertCandidate[] = [];
      for (const name of now) {
        if (!was.has(name)) {
          out.push({
            ...base,
            condition: "hold_changed",
            episodeKey: `hold:${name}:placed:${nowIso}`,
            what: `A ${name} hold was placed at the terminal: the box cannot be picked up until it is released.`,
          });
        }
      }
      for (const name of was) {
        if (!now.has(name)) {
          out.push({
            ...base,
            condition: "hold_changed",
            episodeKey: `hold:${name}:released:${nowIso}`,
            what: `The ${name} hold was released.`,
          });
        }
      }
      return out;
    }
    case "available_for_pickup":
      if (after.container.availableForPickup === true && before.container.availableForPickup !== true) {
        return [
          {
            ...base,
            condition: "available_for_pickup",
            episodeKey: `available:${nowIso}`,
            what: "The box is available for pickup at the terminal.",
          },
        ];
      }
      return [];
    case "eta_changed": {
      const from = before.shipment.podEtaAt;
      const to = after.shipment.podEtaAt;
      if (!from || !to || from === to) return [];
      const hours = (Date.parse(to) - Date.parse(from)) / 3_600_000;
      if (!(Math.abs(hours) > (rule.thresholdHours ?? 0))) return [];
      const moved = `${hours > 0 ? "later" : "earlier"} by ${Math.abs(Math.round(hours))} h`;
      return [
        {
          ...base,
          condition: "eta_changed",
          episodeKey: `eta:${to}`,
          what: `The ETA at the POD moved ${moved}: from ${from} to ${to}.`,
        },
      ];
    }
    default:
      return [];
  }
}

/** What a person should do about an alert of `condition` (the "what to do" line of every message). */
export function whatToDo(condition: string): string {
  switch (condition) {
    case "free_time_ending":
      return "Book a pickup appointment and dispatch a truck before the last free day.";
    case "charges_accruing":
      return "Pick the box up as soon as possible; every day adds demurrage.";
    case "hold_changed":
      return "Check the hold with your customs broker or the line; a released box can be booked for pickup.";
    case "available_for_pickup":
      return "Book a pickup appointment.";
    case "eta_changed":
      return "Re-plan trucking and warehouse slots for the new ETA.";
    case "empty_return_due":
      return "Return the empty to the depot the line named before the due date.";
    case "tracking_failed":
      return "Check the box's numbers and the source's status; updates are paused until the source answers.";
    default:
      return "Review the box.";
  }
}
