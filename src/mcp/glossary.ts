/**
 * The `svc://docs/milestone-glossary` resource (docs/mcp.md §Resources): the milestone catalog
 * (src/transport-events/milestone-catalog.ts) as markdown, by journey phase, with the typical sequences of events.
 */
import { JOURNEY_PHASES, MILESTONES, PHASE_LABELS } from "../transport-events/milestone-catalog";

/** URI of the glossary resource. */
export const GLOSSARY_URI = "svc://docs/milestone-glossary";

/** Typical sequences, as short names. */
const SEQUENCES: { name: string; steps: string[] }[] = [
  {
    name: "Direct ocean, picked up at the port",
    steps: [
      "empty_out",
      "full_in",
      "vessel_loaded",
      "vessel_departed",
      "vessel_arrived",
      "vessel_berthed",
      "vessel_discharged",
      "available",
      "full_out",
      "empty_in",
    ],
  },
  {
    name: "With a transshipment",
    steps: [
      "vessel_loaded",
      "vessel_departed",
      "transshipment_arrived",
      "transshipment_discharged",
      "transshipment_loaded",
      "transshipment_departed",
      "vessel_arrived",
      "vessel_discharged",
      "available",
      "full_out",
    ],
  },
  {
    name: "Ocean then rail to an inland destination",
    steps: [
      "vessel_departed",
      "vessel_arrived",
      "vessel_discharged",
      "rail_loaded",
      "rail_departed",
      "rail_arrived",
      "rail_unloaded",
      "arrived_at_inland_destination",
      "available",
      "full_out",
      "empty_in",
    ],
  },
];

/** The `svc://docs/milestone-glossary` document (markdown), generated from the catalog above. */
export function milestoneGlossaryMarkdown(): string {
  const lines: string[] = [
    "# Container milestone glossary",
    "",
    "Transport events are named `{object}.{category}.{action}`, e.g. `container.transport.vessel_departed`.",
    "Times are UTC (ISO 8601); the event's `timezone` (IANA) gives local time at its location.",
    "Events below are grouped by journey phase, in the order a box usually lives through them.",
    "",
  ];
  for (const phase of JOURNEY_PHASES) {
    const entries = MILESTONES.filter((m) => m.phase === phase);
    if (entries.length === 0) continue;
    lines.push(`## ${PHASE_LABELS[phase]}`, "");
    lines.push("| event | meaning | sets |", "|---|---|---|");
    for (const m of entries) {
      lines.push(`| \`${m.event}\` | ${m.meaning} | ${m.sets.length ? m.sets.join("; ") : "—"} |`);
    }
    lines.push("");
  }
  lines.push("## Typical sequences", "");
  for (const s of SEQUENCES) lines.push(`- **${s.name}**: ${s.steps.join(" → ")}`);
  lines.push(
    "",
    "## Reading a timeline",
    "",
    "- Present events chronologically; the latest actual event is the box's current position.",
    "- `vessel_arrived` means the ship is in port, not that the box is off it: wait for `vessel_discharged` (often 0–48 h later).",
    "- Several departures in one journey usually mean transshipments; compare with `get_container_route` (paid `routing` feature).",
    "- Rail events can arrive out of order with the discharge: sort by timestamp, not by arrival.",
    "- Ready for pickup = `available_for_pickup` true **and** no hold with status `hold` (docs/api.md §Readiness). An `available` event while holds are listed means the data are out of sync; the next update settles it.",
    "- Delays: compare ETAs (`pod_eta_at`) with their originals (`pod_original_eta_at`) and the actual times.",
    "- Estimates (`*.estimated.*`) are not listed by `get_container_transport_events`; they move the shipment's ETD/ETAs.",
  );
  return lines.join("\n");
}
