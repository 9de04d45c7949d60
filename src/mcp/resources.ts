/**
 * Resources (docs/mcp.md §Tools): the `svc://container/{id}` template (listable: the account's newest containers;
 * `id` completes from container ids and numbers; a number is accepted in place of the id) and the static
 * `svc://docs/milestone-glossary`, `svc://docs/mcp-query-guidance` and `svc://docs/list-display-columns`.
 */

import { type McpServer, ResourceTemplate } from "@modelcontextprotocol/sdk/server/mcp.js";
import { TrackingApiError } from "./api-errors";
import { completeContainer } from "./completions";
import { GLOSSARY_URI, milestoneGlossaryMarkdown } from "./glossary";
import { LIST_COLUMNS_URI, listDisplayColumns, QUERY_GUIDANCE_URI, queryGuidanceMarkdown } from "./guides";
import { INVALID_PARAMS, RpcError } from "./tools/calls";
import { containerUri, errorMessage, type McpDeps, resolveContainerId } from "./tools/common";
import { containerMarkdown, containerSnapshot } from "./tools/containers";

/** JSON-RPC error code of an unknown resource (MCP specification, resources: "Resource not found"). */
export const RESOURCE_NOT_FOUND = -32002;
/** JSON-RPC error code of a refused read (rate limited, unauthorized): implementation-defined server error. */
export const RESOURCE_REFUSED = -32000;

/** Containers listed by `resources/list` (the newest of the account). */
const LISTED_CONTAINERS = 25;

/**
 * A safe JSON-RPC error for a failed resource read. An {@link RpcError}, not the SDK's `McpError`, whose message
 * already starts "MCP error -32002:" and reaches the client with that prefix twice (issue 16 §4).
 */
function readError(err: unknown, deps: McpDeps, uri: string): RpcError {
  const message = errorMessage(err, deps, `resources/read ${uri}`);
  if (err instanceof TrackingApiError && err.kind === "not_found")
    return new RpcError(RESOURCE_NOT_FOUND, message, { uri });
  if (err instanceof TrackingApiError && err.kind === "rate_limited") {
    return new RpcError(RESOURCE_REFUSED, message, { uri, retry_after_seconds: err.retryAfterSeconds ?? 60 });
  }
  return new RpcError(RESOURCE_REFUSED, message, { uri });
}

/** The `{id}` of a container URI, percent-decoded. @throws RpcError -32602 for a malformed escape (`%ZZ`). */
function decodeId(raw: string, uri: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RpcError(INVALID_PARAMS, `Invalid params: malformed percent-encoding in the resource URI ${uri}.`, {
      uri,
    });
  }
}

/** Registers the container template and the milestone glossary. */
export function registerResources(server: McpServer, deps: McpDeps): void {
  server.registerResource(
    "container",
    new ResourceTemplate("svc://container/{id}", {
      list: async () => {
        try {
          const api = await deps.resolveApi();
          const page = await api.listContainers({}, { page: 1, pageSize: LISTED_CONTAINERS });
          return {
            resources: page.items.map(({ container: { id, attributes: c } }) => ({
              uri: containerUri(id),
              name: `Container ${c.number}`,
              description: `${c.current_status}${c.pickup_lfd ? `, last free day ${c.pickup_lfd}` : ""}`,
              mimeType: "text/markdown",
            })),
          };
        } catch {
          // Listing is a convenience: a failed read lists no containers rather than failing the list.
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
    async (uri, variables) => {
      const raw = Array.isArray(variables.id) ? variables.id[0] : variables.id;
      const value = decodeId(raw ?? "", uri.href);
      try {
        const api = await deps.resolveApi();
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

  server.registerResource(
    "mcp-query-guidance",
    QUERY_GUIDANCE_URI,
    {
      title: "Which tool answers which question",
      description:
        "Questions about containers and shipments mapped to the tools that answer them, argument habits (ids or numbers, accepted aliases, paging) and what errors mean.",
      mimeType: "text/markdown",
    },
    async (uri) => ({ contents: [{ uri: uri.href, mimeType: "text/markdown", text: queryGuidanceMarkdown() }] }),
  );

  server.registerResource(
    "list-display-columns",
    LIST_COLUMNS_URI,
    {
      title: "Columns to show for list results",
      description:
        "For list_containers, list_shipments and list_tracking_requests: column sets (field and header) for a default table and common intents (pickup, arrivals, failures).",
      mimeType: "application/json",
    },
    async (uri) => ({
      contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(listDisplayColumns()) }],
    }),
  );
}
