import type { ContainerRow } from "../containers/serializer";
import type { AlertChargeLine, AlertCharges } from "./charges";
import { type AlertCandidate, whatToDo } from "./conditions";

/**
 * Alert messages (issue 27 §2): what a person reads, in each channel's format. Pure. Every message says the box,
 * what happened, what it costs and what to do.
 */

/** The content of one alert (stored as `alerts.facts`, so every retry sends the same message). */
export interface AlertFacts {
  alert_id: string;
  condition: string;
  container_id: string;
  container_number: string;
  bill_of_lading: string | null;
  scac: string | null;
  port_code: string | null;
  port_name: string | null;
  what: string;
  /**
   * What the box costs, from the tariff calculator, as a sentence ("USD 450.00 in demurrage to date; USD 600.00 if
   * out tomorrow"), or null when no tariff prices it.
   */
  cost: string | null;
  /** The calculator's line the cost and the dates come from, or null when none applies. */
  charge: AlertChargeFacts | null;
  /** The fee the POD terminal reports (`fees_at_pod_terminal`), as a sentence, or null when it reports none. */
  terminal_fee: string | null;
  what_to_do: string;
  due_on: string | null;
  occurred_at: string;
}

/** A digest: the alerts it gathers, for one account and channel, on one local date. */
export interface DigestFacts {
  digest_id: string;
  local_date: string;
  time_zone: string;
  alerts: AlertFacts[];
}

/** The calculator's line of an alert, as stored in its facts (amounts are decimal strings in `currency_code`). */
export interface AlertChargeFacts {
  /** `demurrage`, `detention` or `combined`. */
  kind: string;
  /** `terminal_lfd` (the terminal reported the last free day) or `tariff` (calculated from the tariff's free time). */
  basis: string;
  tariff_id: string | null;
  tariff_name: string | null;
  last_free_day: string | null;
  chargeable_days: number;
  currency_code: string | null;
  amount_to_date: string | null;
  /** Null once stopped. */
  amount_if_out_tomorrow: string | null;
}

/**
 * The terminal-reported fee of a box (`fees_at_pod_terminal`: the `demurrage` fee, else the `total`) as a sentence,
 * or null when the terminal reports none: shown beside the calculator's figures, as the terminal's own word.
 */
export function terminalFeeOf(c: Pick<ContainerRow, "feesAtPodTerminal">): string | null {
  const fees = c.feesAtPodTerminal ?? [];
  const fee = fees.find((f) => f.type === "demurrage" && f.amount > 0) ?? fees.find((f) => f.type === "total");
  if (!fee || !(fee.amount > 0)) return null;
  return `${fee.currency_code} ${fee.amount.toFixed(2)} in ${fee.type === "demurrage" ? "demurrage" : "terminal fees"} reported by the terminal`;
}

/** The calculator's line an alert of `condition` is about: the empty return's for `empty_return_due`, else demurrage. */
function lineFor(condition: string, charges: AlertCharges | undefined): AlertChargeLine | null {
  if (!charges) return null;
  return condition === "empty_return_due" ? charges.emptyReturn : charges.demurrage;
}

function chargeFacts(line: AlertChargeLine | null): AlertChargeFacts | null {
  if (!line) return null;
  return {
    kind: line.kind,
    basis: line.basis,
    tariff_id: line.tariffId,
    tariff_name: line.tariffName,
    last_free_day: line.lastFreeDay,
    chargeable_days: line.chargeableDays,
    currency_code: line.currencyCode,
    amount_to_date: line.amountToDate,
    amount_if_out_tomorrow: line.amountIfOutTomorrow,
  };
}

const CHARGE_NAMES: Record<string, string> = { demurrage: "demurrage", detention: "detention", combined: "D&D" };

/**
 * What a charge costs, as a sentence: the amount to date and, while it runs, if out (or returned) tomorrow, with the
 * currency; null when no tariff prices it (a terminal LFD alone).
 */
export function costOf(charge: AlertChargeFacts | null): string | null {
  if (!charge?.currency_code || charge.amount_to_date === null) return null;
  const name = CHARGE_NAMES[charge.kind] ?? charge.kind;
  const toDate = `${charge.currency_code} ${charge.amount_to_date} in ${name} to date`;
  if (charge.amount_if_out_tomorrow === null) return toDate;
  const verb = charge.kind === "detention" ? "returned" : "out";
  return `${toDate}; ${charge.currency_code} ${charge.amount_if_out_tomorrow} if ${verb} tomorrow`;
}

/** Which fact the dates and amounts come from, as a phrase. */
export function basisOf(charge: AlertChargeFacts): string {
  const tariff = charge.tariff_id
    ? `tariff ${charge.tariff_name ? `"${charge.tariff_name}" (${charge.tariff_id})` : charge.tariff_id}`
    : null;
  if (charge.basis === "terminal_lfd") {
    const lfd = `last free day ${charge.last_free_day} reported by the terminal`;
    return tariff ? `${lfd}; rates of ${tariff}` : `${lfd}; no tariff of yours applies, so no amounts`;
  }
  return `free time calculated from ${tariff ?? "a tariff"}`;
}

/**
 * The facts of an alert raised for `container` (with its shipment's BL and POD name when known), its cost and basis
 * from the calculator's `charges` of the box when read (the empty return's line for `empty_return_due`, else the
 * demurrage or combined line).
 */
export function alertFacts(
  alertId: string,
  candidate: AlertCandidate,
  container: ContainerRow,
  shipment: { billOfLadingNumber?: string | null; portOfDischargeName?: string | null } | null,
  nowIso: string,
  charges?: AlertCharges,
): AlertFacts {
  const charge = chargeFacts(lineFor(candidate.condition, charges));
  return {
    alert_id: alertId,
    condition: candidate.condition,
    container_id: container.id,
    container_number: container.number,
    bill_of_lading: shipment?.billOfLadingNumber ?? null,
    scac: container.scac,
    port_code: container.podLocode,
    port_name: shipment?.portOfDischargeName ?? null,
    what: candidate.what,
    cost: costOf(charge),
    charge,
    terminal_fee: terminalFeeOf(container),
    what_to_do: whatToDo(candidate.condition),
    due_on: candidate.dueOn ?? null,
    occurred_at: nowIso,
  };
}

const TITLES: Record<string, string> = {
  free_time_ending: "Free time ending",
  charges_accruing: "Demurrage accruing",
  hold_changed: "Hold changed",
  available_for_pickup: "Available for pickup",
  eta_changed: "ETA moved",
  empty_return_due: "Empty return due",
  tracking_failed: "Tracking failed",
};

/** The one-line title of an alert: `<title>: <container number>`. */
export function alertTitle(f: AlertFacts): string {
  return `${TITLES[f.condition] ?? f.condition}: ${f.container_number}`;
}

function where(f: AlertFacts): string {
  const parts = [f.bill_of_lading ? `BL ${f.bill_of_lading}` : null, f.scac, f.port_name ?? f.port_code];
  return parts.filter(Boolean).join(" · ");
}

function lines(f: AlertFacts): string[] {
  return [
    `Box: ${f.container_number}${where(f) ? ` (${where(f)})` : ""}`,
    `What happened: ${f.what}`,
    `Cost: ${f.cost ?? (f.charge ? "no tariff prices it: amounts unknown" : "no charges known yet")}`,
    ...(f.charge ? [`Basis: ${basisOf(f.charge)}`] : []),
    ...(f.terminal_fee ? [`Terminal: ${f.terminal_fee}`] : []),
    `What to do: ${f.what_to_do}`,
  ];
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
}

/** An e-mail: subject, plain text and HTML bodies. */
export interface EmailContent {
  subject: string;
  text: string;
  html: string;
}

/** The e-mail of one alert. */
export function alertEmail(f: AlertFacts): EmailContent {
  const body = lines(f);
  return {
    subject: alertTitle(f),
    text: `${alertTitle(f)}\n\n${body.join("\n")}\n`,
    html: `<h2>${escapeHtml(alertTitle(f))}</h2><ul>${body.map((l) => `<li>${escapeHtml(l)}</li>`).join("")}</ul>`,
  };
}

/** The e-mail of a digest: one section per alert. */
export function digestEmail(d: DigestFacts): EmailContent {
  const subject = `Daily digest ${d.local_date}: ${d.alerts.length} alert${d.alerts.length === 1 ? "" : "s"}`;
  const text = [subject, "", ...d.alerts.flatMap((f) => [alertTitle(f), ...lines(f), ""])].join("\n");
  const html = `<h2>${escapeHtml(subject)}</h2>${d.alerts
    .map(
      (f) =>
        `<h3>${escapeHtml(alertTitle(f))}</h3><ul>${lines(f)
          .map((l) => `<li>${escapeHtml(l)}</li>`)
          .join("")}</ul>`,
    )
    .join("")}`;
  return { subject, text, html };
}

function slackSection(f: AlertFacts) {
  return [
    { type: "header", text: { type: "plain_text", text: alertTitle(f).slice(0, 150) } },
    {
      type: "section",
      text: {
        type: "mrkdwn",
        text: lines(f)
          .map((l) => l.replace(/^([^:]+):/, "*$1:*"))
          .join("\n"),
      },
    },
  ];
}

/**
 * A Slack incoming-webhook message (Block Kit): `text` is the notification fallback, `blocks` a header and a section
 * per alert (Slack allows 50 blocks a message; a digest lists its first 24 alerts and says how many more).
 */
export function slackMessage(content: AlertFacts | DigestFacts): Record<string, unknown> {
  if ("alerts" in content) {
    const shown = content.alerts.slice(0, 24);
    const more = content.alerts.length - shown.length;
    const blocks = shown.flatMap(slackSection);
    if (more > 0) blocks.push({ type: "section", text: { type: "mrkdwn", text: `…and ${more} more.` } });
    return { text: digestEmail(content).subject, blocks };
  }
  return { text: `${alertTitle(content)}: ${content.what}`, blocks: slackSection(content) };
}

function teamsFacts(f: AlertFacts) {
  return [
    { type: "TextBlock", text: alertTitle(f), weight: "Bolder", size: "Medium", wrap: true },
    {
      type: "FactSet",
      facts: lines(f).map((l) => {
        const i = l.indexOf(": ");
        return { title: l.slice(0, i), value: l.slice(i + 2) };
      }),
    },
  ];
}

/**
 * A Microsoft Teams workflow-webhook message: `{type: "message", attachments: [Adaptive Card 1.4]}` with a title and
 * a fact set per alert.
 */
export function teamsMessage(content: AlertFacts | DigestFacts): Record<string, unknown> {
  const body =
    "alerts" in content
      ? [
          { type: "TextBlock", text: digestEmail(content).subject, weight: "Bolder", size: "Large", wrap: true },
          ...content.alerts.flatMap(teamsFacts),
        ]
      : teamsFacts(content);
  return {
    type: "message",
    attachments: [
      {
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: {
          $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
          type: "AdaptiveCard",
          version: "1.4",
          body,
        },
      },
    ],
  };
}

/**
 * The body our signed webhook channel POSTs: `{event: "alert.triggered" | "alert.digest", data: facts}` (signed like
 * every webhook delivery, docs/webhooks.md §Signatures).
 */
export function webhookAlertBody(content: AlertFacts | DigestFacts): Record<string, unknown> {
  return "alerts" in content ? { event: "alert.digest", data: content } : { event: "alert.triggered", data: content };
}
