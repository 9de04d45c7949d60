import type { RawEventView } from "../raw-events/serializer";
import { findPortByLocode } from "../reference/locations";
import { labelOf } from "../transport-events/milestone-catalog";
import type { Milestone, Timeline } from "./container-data";
import { formatInstant, zoneOfPlace } from "./container-format";

/**
 * The container page's timeline (src/dashboard/container-page.tsx): the milestones as an ordered list, each with its
 * local time and zone at the event's place, "Actual" or "Estimated" in words (never colour alone), and the carrier
 * feed rows behind it in a `<details>` disclosure (works without JavaScript). Also served alone as part of the page's
 * live fragment, so ids are stable: the refresh keeps a disclosure open across updates by its id.
 */

/** The place of an event in words: `Los Angeles (USLAX)`, the LOCODE alone when unknown, null without one. */
function placeOf(locode: string | null, fallbackName?: string | null): string | null {
  if (!locode) return fallbackName ?? null;
  const port = findPortByLocode(locode);
  return `${port?.name ?? fallbackName ?? locode} (${locode})`;
}

function vesselOf(name: string | null, voyage: string | null): string | null {
  if (!name && !voyage) return null;
  return [name, voyage ? `voyage ${voyage}` : null].filter(Boolean).join(", ");
}

/** Whether an event is a journey milestone (`container.transport.*`), as opposed to an update (`*.changed`). */
function kindOf(m: Milestone): string {
  if (!m.event.event.startsWith("container.transport.")) return "Update";
  return m.estimated ? "Estimated" : "Actual";
}

function RawEventsTable({ rows, caption }: { rows: RawEventView[]; caption: string }) {
  return (
    <table class="raw-events">
      <caption>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">#</th>
          <th scope="col">Carrier's wording</th>
          <th scope="col">Event</th>
          <th scope="col">Time (local)</th>
          <th scope="col">Actual or estimated</th>
          <th scope="col">Place</th>
          <th scope="col">Vessel</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr>
            <td>{String(r.index)}</td>
            <td>{r.originalEvent ?? "—"}</td>
            <td>{r.event}</td>
            <td>
              {r.timestamp ? (
                <time datetime={r.timestamp}>
                  {formatInstant(r.timestamp, zoneOfPlace(r.timezone, r.locationLocode))}
                </time>
              ) : (
                "—"
              )}
            </td>
            <td>{r.estimated ? "Estimated" : "Actual"}</td>
            <td>{placeOf(r.locationLocode, r.location) ?? "—"}</td>
            <td>{vesselOf(r.vesselName, r.voyageNumber) ?? "—"}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function MilestoneItem({ m }: { m: Milestone }) {
  const e = m.event;
  const kind = kindOf(m);
  const place = placeOf(e.locationLocode);
  const vessel = vesselOf(e.vesselName, e.voyageNumber);
  return (
    <li class={`milestone milestone-${kind.toLowerCase()}`} id={`milestone-${e.id}`}>
      <p class="milestone-title">
        <strong>{labelOf(e.event)}</strong> <span class="milestone-kind">{kind}</span>
        {e.invalidatedAt ? <span class="milestone-withdrawn"> · withdrawn by the source</span> : null}
      </p>
      <p class="milestone-time">
        {e.timestamp ? (
          <time datetime={e.timestamp}>{formatInstant(e.timestamp, zoneOfPlace(e.timezone, e.locationLocode))}</time>
        ) : (
          "Time not reported"
        )}
      </p>
      {place || vessel ? <p class="milestone-place">{[place, vessel].filter(Boolean).join(" · ")}</p> : null}
      {e.value ? <p class="milestone-value">New value: {e.value}</p> : null}
      {m.rawEvents.length > 0 ? (
        <details id={`raw-${e.id}`}>
          <summary>Carrier events behind this milestone ({String(m.rawEvents.length)})</summary>
          <RawEventsTable rows={m.rawEvents} caption={`Carrier events behind “${labelOf(e.event)}”`} />
        </details>
      ) : null}
    </li>
  );
}

/** The timeline section, `id="timeline"` (replaced whole by the live refresh when it changed). */
export function TimelineSection({ timeline }: { timeline: Timeline }) {
  return (
    <section id="timeline" class="timeline-section" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Milestones</h2>
      <p class="hint">
        Times are local to each event's place, with the time zone named. “Estimated” marks a planned time, “Actual” one
        that happened.
      </p>
      {timeline.milestones.length === 0 ? (
        <p>No milestones yet.</p>
      ) : (
        <ol class="timeline">
          {timeline.milestones.map((m) => (
            <MilestoneItem m={m} />
          ))}
        </ol>
      )}
      {timeline.truncated ? <p>Only the first milestones are shown; the API lists them all.</p> : null}
      {timeline.otherRawEvents.length > 0 ? (
        <details id="raw-other">
          <summary>Carrier events behind no milestone ({String(timeline.otherRawEvents.length)})</summary>
          <RawEventsTable rows={timeline.otherRawEvents} caption="Carrier events behind no milestone" />
        </details>
      ) : null}
    </section>
  );
}
