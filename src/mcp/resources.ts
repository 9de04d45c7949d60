/**
 * Resources (SPEC.md §4.7): the `svc://container/{id}` template (listable: the account's newest containers;
 * `id` completes from container ids and numbers; a number is accepted in place of the id) and the static
 * `svc://docs/milestone-glossary`.
 */

import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { TrackingApiError } from "./api";
import { completeContainer } from "./completions";
import { GLOSSARY_URI, milestoneGlossaryMarkdown } from "./glossary";
import { containerUri, errorMessage, type McpDeps, resolveContainerId } from "./tools/common";
import { containerMarkdown, containerSnapshot } from "./tools/containers";

/** JSON-RPC error code of an unknown resource (MCP specification, resources: "Resource not found"). */
export const RESOURCE_NOT_FOUND = -32002;
/** JSON-RPC error code of a refused read (rate limited, unauthorized): implementation-defined server error. */
export const RESOURCE_REFUSED = -32000;

/** Containers listed by `resources/list` (the newest of the account). */
const LISTED_CONTAINERS = 25;

/** A safe `McpError` for a failed resource read. */
function readError(err: unknown, deps: McpDeps, uri: string): McpError {
  const message = errorMessage(err, deps, `resources/read ${uri}`);
  if (err instanceof TrackingApiError && err.kind === "not_found")
    return new McpError(RESOURCE_NOT_FOUND, message, { uri });
  if (err instanceof TrackingApiError && err.kind === "rate_limited") {
    return new McpError(RESOURCE_REFUSED, message, { uri, retry_after_seconds: err.retryAfterSeconds ?? 60 });
  }
  return new McpError(RESOURCE_REFUSED, message, { uri });
}

/** Registers the container template and the milestone glossary. */
export function registerResources(server: McpServer, deps: McpDeps): void {
  server.registerResource(
    "container",
    new ResourceTemplate("svc://container/{id}", {
      list: async (extra) => {
        try {
          const api = await deps.resolveApi({ kind: "resource_list", headers: extra.requestInfo?.headers });
          const page = await api.listContainers({}, { page: 1, pageSize: LISTED_CONTAINERS });
          return {
            resources: page.items.map((c) => ({
              uri: containerUri(c.id),
              name: `Container ${c.number}`,
              description: `${c.current_status}${c.pickup_lfd ? `, last free day ${c.pickup_lfd}` : ""}`,
              mimeType: "text/markdown",
            })),
          };
        } catch {
          // Listing is a convenience: a refused or failed read lists no containers rather than failing the list.
          return { resources: [] };
        }
      },
      complete: { id: (value) => completeContainer(deps, value ?? "", "id") },
    }),
    {
      title: "Container",
      description:
        "A container's current state as markdown: status, readiness for pickup, last free day and urgency, holds, fees, rail and shipment. `{id}` is the container id (a container number also works).",
      mimeType: "text/markdown",
    },
    async (uri, variables, extra) => {
      const raw = Array.isArray(variables.id) ? variables.id[0] : variables.id;
      const value = decodeURIComponent(raw ?? "");
      try {
        const api = await deps.resolveApi({ kind: "resource", headers: extra.requestInfo?.headers });
        const id = await resolveContainerId(api, value);
        const details = await api.getContainer(id, ["shipment", "pod_terminal"]);
        const text = containerMarkdown(containerSnapshot(details, deps.clock.now()));
        return { contents: [{ uri: uri.href, mimeType: "text/markdown", text }] };
      } catch (err) {
        throw readError(
          err instanceof TrackingApiError && err.kind === "not_found"
            ? new TrackingApiError("not_found", `No container with id or number "${value}" in this account.`)
            : err,
          deps,
          uri.href,
        );
      }
    },
  );

  server.registerResource(
    "milestone-glossary",
    GLOSSARY_URI,
    {
      title: "Container milestone glossary",
      description:
        "Transport events by journey phase (origin, transshipment, feeder, port of discharge, rail, inland), what each milestone means and sets, typical sequences, and how to read a timeline.",
      mimeType: "text/markdown",
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: milestoneGlossaryMarkdown() }] }),
  );
}
