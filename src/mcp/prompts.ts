/**
 * Prompts (docs/mcp.md §Tools): `track-shipment`, `check-demurrage`, `analyze-delays`. Container arguments accept a
 * container number or an id (docs/mcp.md §Where we go further gap 3): a number is resolved to its id in the account
 * when possible, otherwise the prompt tells the model to resolve it with `search_container` first. Arguments complete
 * from the account's containers and the carriers' SCACs.
 */

import { completable } from "@modelcontextprotocol/sdk/server/completable.js";
import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { GetPromptResult } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { completeContainer, completeScac } from "./completions";
import { isUuid, type McpDeps, resolveContainerId } from "./tools/common";

/** What a container argument names, as far as it could be resolved. */
interface ResolvedContainer {
  /** The container id when known. */
  id: string | null;
  /** How the prompt names it. */
  label: string;
  /** The tool call the model should start with. */
  firstStep: string;
}

async function resolveForPrompt(deps: McpDeps, value: string): Promise<ResolvedContainer> {
  const v = value.trim();
  if (isUuid(v)) {
    return { id: v.toLowerCase(), label: `container ${v}`, firstStep: `Call get_container with id "${v}".` };
  }
  try {
    const api = await deps.resolveApi();
    const id = await resolveContainerId(api, v);
    return {
      id,
      label: `container ${v.toUpperCase()} (id ${id})`,
      firstStep: `Call get_container with id "${id}".`,
    };
  } catch {
    // Not found, ambiguous or unavailable: the model resolves it itself.
    return {
      id: null,
      label: `container ${v}`,
      firstStep: `"${v}" is not a container id: call search_container with query "${v}" to find its id (if it is not tracked, say so and offer track_container), then call get_container with that id.`,
    };
  }
}

function userMessage(text: string): GetPromptResult {
  return { messages: [{ role: "user", content: { type: "text", text } }] };
}

const containerArg = (deps: McpDeps) =>
  completable(
    z.string().min(1).max(64).describe("Container number (e.g. MSCU1234566) or container id (UUID)."),
    (value) => completeContainer(deps, value ?? "", "number"),
  );

/** Registers the three prompts. */
export function registerPrompts(server: McpServer, deps: McpDeps): void {
  server.registerPrompt(
    "track-shipment",
    {
      title: "Track a shipment",
      description:
        "Track a container: find it in the account or start tracking it, then report status, location, readiness for pickup, holds and the last free day.",
      argsSchema: {
        container_number: completable(
          z.string().min(1).max(64).describe("Container number, e.g. MSCU1234566."),
          (value) => completeContainer(deps, value ?? "", "number"),
        ),
        carrier: completable(
          z.string().max(4).optional().describe("SCAC of the shipping line, e.g. MAEU (optional; inferred)."),
          (value) => completeScac(deps, value ?? ""),
        ),
      },
    },
    async ({ container_number, carrier }) => {
      const n = container_number.trim();
      const c = carrier?.trim().toUpperCase();
      return userMessage(
        [
          `Track container ${n}${c ? ` with carrier ${c}` : ""}. Show current status, location, and any holds or issues.`,
          "",
          `1. Call search_container with query "${n}". If it is already tracked, use the container id it returns.`,
          `2. If it is not tracked, call track_container with number "${n}"${c ? ` and scac "${c}"` : ""}. If the result is needs_carrier, ask me to confirm the carrier from the candidates; if a request was created, tell me tracking has started and data will follow. Do not invent data for a pending request.`,
          "3. For a tracked container, call get_container and report: status and where it is, whether it is ready for pickup (available and no active hold), the last free day in local time with its urgency, active holds, and fees.",
          "Keep it short. Use local times where the tool gives them.",
        ].join("\n"),
      );
    },
  );

  server.registerPrompt(
    "check-demurrage",
    {
      title: "Check demurrage exposure",
      description:
        "Last free day and days remaining, what it costs under the account's tariffs (get_demurrage_report), readiness for pickup, holds, terminal fees and a recommended action for one container (number or id).",
      argsSchema: { container_id: containerArg(deps) },
    },
    async ({ container_id }) => {
      const target = await resolveForPrompt(deps, container_id);
      return userMessage(
        [
          `Check the demurrage exposure of ${target.label}.`,
          "",
          target.firstStep,
          target.id
            ? `Then call get_demurrage_report with id "${target.id}" (its charges under the account's tariffs).`
            : "Then call get_demurrage_report with that id (its charges under the account's tariffs).",
          "Then report:",
          "- The last free day (pickup_lfd, and the report's last_free_day with its basis: the terminal's LFD or the tariff's free time) in the terminal's local time and the days remaining; say plainly if it is overdue or due within 48 hours. If the urgency is unknown, give the reason from the tool's note.",
          "- What it costs: chargeable days and the amount to date, and the amount if picked up (or the empty returned) tomorrow, per charge, with its currency. If no tariff applies, say so and that the account can add one (POST /v2/tariffs).",
          "- Days marked not chargeable in the ledger (the box could not be picked up) and why: they are what to check on an invoice.",
          "- Whether it is ready for pickup: available for pickup AND no hold with status `hold`. Name the active holds and who usually clears them (customs: the broker; freight: pay the shipping line; USDA/VACIS: inspection).",
          "- Terminal fees: each item and their sum, excluding the terminal's `total` line.",
          "- A recommended action: e.g. book a pickup appointment before the last free day, clear the named holds, or nothing if it was already picked up.",
        ].join("\n"),
      );
    },
  );

  server.registerPrompt(
    "analyze-delays",
    {
      title: "Analyze delays",
      description:
        "Compare estimated and actual times per milestone for one container (number or id), find unusual gaps and likely causes, and the impact on transit time.",
      argsSchema: { container_id: containerArg(deps) },
    },
    async ({ container_id }) => {
      const target = await resolveForPrompt(deps, container_id);
      return userMessage(
        [
          `Analyze the delays of ${target.label}.`,
          "",
          target.firstStep,
          "Then call get_shipment_details with the container's shipment id (ETD/ETA vs. original estimates), get_container_transport_events (actual milestones), and get_container_route (if it says the routing feature is not enabled, continue without it).",
          "Report:",
          "- Per milestone: estimated vs. actual time and the difference (departure, transshipments, arrival, discharge, availability, rail).",
          "- Unusual gaps: e.g. more than 48 h from vessel arrival to discharge, long dwell at a transshipment port, waiting for rail, holds.",
          "- Likely causes: port congestion, vessel schedule changes, missed transshipment connections, customs or terminal holds.",
          "- The impact on total transit time and on the last free day.",
          "Say what is unknown rather than guessing.",
        ].join("\n"),
      );
    },
  );
}
