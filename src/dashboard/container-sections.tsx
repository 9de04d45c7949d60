import type { Child } from "hono/jsx";
import type { ChargeLine } from "../charges/ledger";
import type { ContainerAttributes } from "../containers/schemas";
import { effectiveDocumentType } from "../documents/list";
import type { DocumentView } from "../documents/serializer";
import { findPortByLocode, findTerminalById } from "../reference/locations";
import { findShippingLine } from "../reference/shipping-lines";
import type { ContainerPageData, ContainerSummary } from "./container-data";
import {
  availabilityLabel,
  formatInstant,
  formatLocalDate,
  formatMoney,
  statusLabel,
  zoneOfPlace,
} from "./container-format";

/**
 * The container page's sections other than the timeline, the map and the custom fields
 * (src/dashboard/container-page.tsx): the summary (the part the live refresh replaces), charges, holds and fees, and
 * documents. Every value comes from the same views the REST serializers read; text only, escaped by JSX.
 */

type Holds = ContainerAttributes["holds_at_pod_terminal"];
type Fees = ContainerAttributes["fees_at_pod_terminal"];

function portText(locode: string | null | undefined, name?: string | null): string {
  if (!locode) return name ?? "—";
  return `${findPortByLocode(locode)?.name ?? name ?? locode} (${locode})`;
}

function Fact({ term, children }: { term: string; children?: Child }) {
  return (
    <>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </>
  );
}

/**
 * The summary, `id="live-summary"` with `aria-live="polite"`: the live refresh replaces it when the status, the
 * availability or the LFD change, and a screen reader announces the new text.
 */
export function SummarySection({ data }: { data: ContainerSummary }) {
  const c = data.container;
  const s = data.shipment;
  const podZone = zoneOfPlace(c.podTimezone, c.podLocode);
  const line = c.scac ?? s?.shippingLineScac ?? null;
  const lineName = line ? findShippingLine(line)?.name : undefined;
  const terminal = findTerminalById(c.podTerminalId);
  const vessel = [s?.podVesselName, s?.podVoyageNumber ? `voyage ${s.podVoyageNumber}` : null].filter(Boolean);
  return (
    <div id="live-summary" aria-live="polite">
      <dl class="facts summary">
        <Fact term="Status">{statusLabel(c.currentStatus)}</Fact>
        <Fact term="Available for pickup">{availabilityLabel(c.availableForPickup, c.availabilityKnown)}</Fact>
        <Fact term="Last free day (LFD)">{formatLocalDate(c.pickupLfd, podZone)}</Fact>
        <Fact term="Shipping line">{line ? `${lineName ?? line} (${line})` : "—"}</Fact>
        <Fact term="Port of lading (POL)">{portText(s?.portOfLadingLocode, s?.portOfLadingName)}</Fact>
        <Fact term="Port of discharge (POD)">
          {portText(c.podLocode ?? s?.portOfDischargeLocode, s?.portOfDischargeName)}
        </Fact>
        <Fact term="POD terminal">{terminal?.name ?? "—"}</Fact>
        <Fact term="Vessel / voyage">{vessel.length > 0 ? vessel.join(", ") : "—"}</Fact>
        <Fact term="ETA at POD">{formatInstant(s?.podEtaAt, podZone)}</Fact>
        <Fact term="Arrived at POD">{formatInstant(c.podArrivedAt, podZone)}</Fact>
        <Fact term="Customer">{data.customerName ?? "—"}</Fact>
        <Fact term="Bill of lading (BL)">{s?.billOfLadingNumber ?? "—"}</Fact>
        <Fact term="Reference numbers">{c.refNumbers.length > 0 ? c.refNumbers.join(", ") : "—"}</Fact>
        <Fact term="Location at terminal">{c.locationAtPodTerminal ?? "—"}</Fact>
        <Fact term="Terminal last checked">{formatInstant(c.terminalCheckedAt, podZone)}</Fact>
      </dl>
    </div>
  );
}

const CHARGE_NAMES = [
  ["demurrage", "Demurrage"],
  ["detention", "Detention"],
  ["terminalStorage", "Terminal storage"],
] as const;

function chargeText(line: ChargeLine): string {
  const parts = [`${formatMoney(line.amountToDate, line.currencyCode)} to date`];
  parts.push(`${line.chargeableDays} chargeable ${line.chargeableDays === 1 ? "day" : "days"}`);
  if (line.lastFreeDay) parts.push(`last free day ${line.lastFreeDay}`);
  if (line.kind === "combined") parts.push("demurrage and detention combined");
  parts.push(line.stoppedAt ? "stopped" : line.accruing ? "accruing now" : "not accruing");
  return parts.join(", ");
}

/** Charges so far (`GET /v2/containers/{id}/charges`): each kind's amount to date, or why there is none. */
export function ChargesSection({ data }: { data: ContainerPageData }) {
  const { charges } = data.charges;
  return (
    <section id="charges" aria-labelledby="charges-heading">
      <h2 id="charges-heading">Charges so far</h2>
      <p class="hint">As of {data.charges.asOfDate}, the local date at the POD.</p>
      <dl class="facts">
        {CHARGE_NAMES.map(([key, label]) => {
          const line = charges[key];
          return (
            <Fact term={line?.kind === "combined" ? "Demurrage and detention" : label}>
              {line ? chargeText(line) : "No tariff of the account applies."}
            </Fact>
          );
        })}
      </dl>
    </section>
  );
}

/** Holds and fees at the POD terminal, as `holds_at_pod_terminal` and `fees_at_pod_terminal` serve them. */
export function HoldsAndFeesSection({ data }: { data: ContainerPageData }) {
  const holds = (data.container.holdsAtPodTerminal ?? []) as Holds;
  const fees = (data.container.feesAtPodTerminal ?? []) as Fees;
  return (
    <section id="holds-fees" aria-labelledby="holds-fees-heading">
      <h2 id="holds-fees-heading">Holds and fees</h2>
      {holds.length === 0 ? (
        <p>No holds reported by the terminal.</p>
      ) : (
        <table>
          <caption>Holds at the POD terminal</caption>
          <thead>
            <tr>
              <th scope="col">Hold</th>
              <th scope="col">Status</th>
              <th scope="col">Description</th>
            </tr>
          </thead>
          <tbody>
            {holds.map((h) => (
              <tr>
                <td>{h.name}</td>
                <td>{h.status === "hold" ? "On hold" : "Pending"}</td>
                <td>{h.description ?? "—"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {fees.length === 0 ? (
        <p>No fees reported by the terminal.</p>
      ) : (
        <table>
          <caption>Fees at the POD terminal</caption>
          <thead>
            <tr>
              <th scope="col">Fee</th>
              <th scope="col" class="number">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {fees.map((f) => (
              <tr>
                <td>{statusLabel(f.type)}</td>
                <td class="number">{formatMoney(f.amount, f.currency_code)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

/**
 * The documents that name the container (`GET /v2/documents?filter[reference]=<number>`: linked to it, or carrying
 * its number), each with a download link through `/app/containers/{id}/documents/{document_id}`, which redirects to a
 * fresh signed URL (`GET /v2/documents/{id}/download_url`).
 */
export function DocumentsSection({ data }: { data: ContainerPageData }) {
  const docs: DocumentView[] = data.documents;
  const base = `/app/containers/${encodeURIComponent(data.container.id)}/documents`;
  return (
    <section id="documents" aria-labelledby="documents-heading">
      <h2 id="documents-heading">Documents</h2>
      {docs.length === 0 ? (
        <p>No documents name this container.</p>
      ) : (
        <table>
          <caption>Documents naming {data.container.number}</caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Uploaded</th>
              <th scope="col">File</th>
            </tr>
          </thead>
          <tbody>
            {docs.map((d) => (
              <tr>
                <td>{d.name ?? d.fileName}</td>
                <td>{effectiveDocumentType(d) ?? "Not classified"}</td>
                <td>
                  <time datetime={d.createdAt}>{formatInstant(d.createdAt, "UTC")}</time>
                </td>
                <td>
                  <a href={`${base}/${encodeURIComponent(d.id)}`}>Download {d.fileName}</a>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {data.documentsTotal > docs.length ? <p>{`${data.documentsTotal - docs.length} more in the API.`}</p> : null}
    </section>
  );
}
