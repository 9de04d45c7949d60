import type { ContainerRow } from "../containers/serializer";
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
  /** What the box costs so far, as a sentence ("USD 450.00 in terminal demurrage"), or null when nothing is known. */
  cost: string | null;
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

/**
 * What the box costs so far, from the terminal-reported fees (`fees_at_pod_terminal`: the `demurrage` fee, else the
 * `total`), or null when the terminal reports none. Interim: the charges calculator of issue 27 §1 replaces it at merge.
 */
export function costOf(c: Pick<ContainerRow, "feesAtPodTerminal">): string | null {
  const fees = c.feesAtPodTerminal ?? [];
  const fee = fees.find((f) => f.type === "demurrage" && f.amount > 0) ?? fees.find((f) => f.type === "total");
  if (!fee || !(fee.amount > 0)) return null;
  return `${fee.currency_code} ${fee.amount.toFixed(2)} in ${fee.type === "demurrage" ? "demurrage" : "terminal fees"} so far`;
}

/** The facts of an alert raised for `container` (with its shipment's BL and POD name when known). */
export function alertFacts(
  alertId: string,
  candidate: AlertCandidate,
  container: ContainerRow,
  shipment: { billOfLadingNumber?: string | null; portOfDischargeName?: string | null } | null,
  nowIso: string,
): AlertFacts {
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
    cost: costOf(container),
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
    `Cost: ${f.cost ?? "no charges reported yet"}`,
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
