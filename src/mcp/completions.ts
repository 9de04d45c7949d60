/**
 * Completion sources (MCP `completion/complete`): carrier SCACs and the account's container numbers/ids
 * (docs/mcp.md §Where we go further gap 2). Completions never fail once handled: any error gives `[]` (and is reported
 * to the server log), so a client's autocomplete degrades rather than breaks. Over `/mcp` each `completion/complete`
 * draws one request from the account's default bucket before it gets here, and is refused when the bucket is spent
 * (src/mcp/agent.ts).
 */

import { SANDBOX_SCAC } from "../reference/shipping-lines";
import type { ShippingLineAttributes } from "../shipping-lines/schemas";
import type { McpDeps } from "./tools/common";

/** Most values a completion returns (the MCP limit is 100). */
export const MAX_COMPLETIONS = 100;
/** Containers offered per completion. */
const CONTAINER_COMPLETIONS = 20;

/**
 * SCACs for what the user typed (issue 16 §5): lines whose SCAC starts with it first, then lines whose name or short
 * name contains it (`maer` → `MAEU`); within each, lines trackable here first, then by SCAC. The sandbox `TEST`
 * line is left out as in `get_supported_shipping_lines`.
 */
export async function completeScac(deps: McpDeps, typed: string): Promise<string[]> {
  try {
    const api = await deps.resolveApi();
    const upper = typed.trim().toUpperCase();
    const lower = typed.trim().toLowerCase();
    const rank = (l: ShippingLineAttributes) =>
      l.scac.startsWith(upper)
        ? 0
        : l.name.toLowerCase().includes(lower) || l.short_name.toLowerCase().includes(lower)
          ? 1
          : 2;
    const lines = (await api.listShippingLines())
      .map((l) => l.attributes)
      .filter((l) => l.scac !== SANDBOX_SCAC && rank(l) < 2)
      .sort((a, b) => rank(a) - rank(b) || Number(b.supported) - Number(a.supported) || a.scac.localeCompare(b.scac));
    return lines.slice(0, MAX_COMPLETIONS).map((l) => l.scac);
  } catch (err) {
    // Degrade to no values, but keep the cause in the server log.
    deps.reportError(err, "completion", "completion/complete carrier");
    return [];
  }
}

/**
 * Container values starting with `prefix`: numbers when the prefix matches numbers (or `prefer` is `number` and
 * the prefix is empty), ids when it matches ids. Newest containers first when the prefix is empty.
 */
export async function completeContainer(deps: McpDeps, prefix: string, prefer: "number" | "id"): Promise<string[]> {
  try {
    const api = await deps.resolveApi();
    const p = prefix.trim();
    const keys = await api.completeContainers(p, CONTAINER_COMPLETIONS);
    const upper = p.toUpperCase();
    const lower = p.toLowerCase();
    const values: string[] = [];
    for (const k of keys) {
      if (p === "") values.push(prefer === "number" ? k.number : k.id);
      else if (k.number.startsWith(upper)) values.push(k.number);
      else if (k.id.startsWith(lower)) values.push(k.id);
    }
    return [...new Set(values)].slice(0, CONTAINER_COMPLETIONS);
  } catch (err) {
    deps.reportError(err, "completion", "completion/complete container");
    return [];
  }
}
