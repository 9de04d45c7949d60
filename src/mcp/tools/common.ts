/**
 * What every MCP tool shares: the API resolver, the registration helper (input/output schemas,
 * annotations, text + structured result), safe and specific tool errors (docs/mcp.md §Where we go further gap 1),
 * id-or-number resolution, and the summary schemas list results reuse.
 */

import type { ToolAnnotations } from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { toManyIds, toOneId } from "../../lib/jsonapi/types";
import { orNull } from "../../lib/nullable";
import type { ContainerResource, ShipmentResource, TrackingApi, TrackingRequestResource } from "../api";
import { TrackingApiError } from "../api-errors";
import { type ArgumentAlias, addTool, errorMessage, FULL_SCHEMA_IN, type ToolContext, type ToolOutput } from "./calls";

export type { ApiResolver, McpDeps } from "./deps";

/** Read-only, private-account tools (docs/mcp.md §Compatibility with the reference server). */
export const READ_ONLY: ToolAnnotations = {
  readOnlyHint: true,
  destructiveHint: false,
  idempotentHint: true,
  openWorldHint: false,
};

/**
 * Registers a tool (see {@link addTool} in calls.ts): zod input and output shapes, annotations, the reference's
 * argument aliases, and a `run` whose result becomes `structuredContent`, a text block with the summary and a text
 * block with the JSON (MCP 2025-06-18: structured results SHOULD also be serialised as text for clients that do not
 * read `structuredContent`). Errors become `isError` results naming the argument at fault.
 */
export const registerTrackingTool = addTool;

export type { ToolContext, ToolOutput };
export { errorMessage };

// ---------------------------------------------------------------------------------------------------------------
// Ids and numbers
// ---------------------------------------------------------------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether a string has the shape of a UUID (any version). */
export function isUuid(value: string): boolean {
  return UUID.test(value.trim());
}

/** Input schema of a container argument: an id, or a container number that is resolved. */
export const containerIdArg = z
  .string()
  .min(1)
  .max(64)
  .describe(
    "Container id (UUID, from search_container or list_containers). A container number such as MSCU1234566 is also accepted and resolved within this account.",
  );

/** Input schema of a shipment argument: an id, or the tracked BL/booking number. */
export const shipmentIdArg = z
  .string()
  .min(1)
  .max(64)
  .describe(
    "Shipment id (UUID, from search_container or list_shipments). The tracked bill of lading or booking number is also accepted and resolved within this account.",
  );

/**
 * The container id an argument names: a UUID as is, else a container number looked up in the account.
 * @throws TrackingApiError `not_found` (no container with that number), `invalid_argument` (several).
 */
export async function resolveContainerId(api: TrackingApi, value: string): Promise<string> {
  const v = value.trim();
  if (isUuid(v)) return v.toLowerCase();
  const { containers } = await api.searchContainers(v, { limit: 5 });
  const [first, second] = containers;
  if (!first) {
    throw new TrackingApiError(
      "not_found",
      `No container with id or number "${v}" in this account. Use search_container to look it up, or track_container to start tracking it.`,
    );
  }
  if (second) {
    throw new TrackingApiError(
      "invalid_argument",
      `Several containers numbered ${first.attributes.number} are tracked in this account (ids: ${containers.map((c) => c.id).join(", ")}); pass one id.`,
      { field: "id" },
    );
  }
  return first.id;
}

/**
 * The shipment id an argument names: a UUID as is, else the tracked BL/booking number looked up in the account.
 * @throws TrackingApiError `not_found`, `invalid_argument` (several).
 */
export async function resolveShipmentId(api: TrackingApi, value: string): Promise<string> {
  const v = value.trim();
  if (isUuid(v)) return v.toLowerCase();
  const { shipments } = await api.searchContainers(v, { limit: 5 });
  const [first, second] = shipments;
  if (!first) {
    throw new TrackingApiError(
      "not_found",
      `No shipment with id or number "${v}" in this account. Use search_container to look it up.`,
    );
  }
  if (second) {
    throw new TrackingApiError(
      "invalid_argument",
      `Several shipments numbered ${first.attributes.bill_of_lading_number} exist in this account (ids: ${shipments.map((s) => s.id).join(", ")}); pass one id.`,
      { field: "id" },
    );
  }
  return first.id;
}

/** A not-found error naming the kind and id, with the next step. */
export function notFound(kind: "container" | "shipment", id: string): TrackingApiError {
  return new TrackingApiError(
    "not_found",
    `No ${kind} with id ${id} in this account. Use search_container to find it by number.`,
  );
}

/** Runs `fn`, turning a `not_found` into the specific message of {@link notFound}. */
export async function withNotFound<T>(kind: "container" | "shipment", id: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (err instanceof TrackingApiError && err.kind === "not_found") throw notFound(kind, id);
    throw err;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Paging
// ---------------------------------------------------------------------------------------------------------------

/** Default page size of the list tools (docs/mcp.md §Compatibility with the reference server). */
export const MCP_DEFAULT_PAGE_SIZE = 25;
/** Largest page size; larger requests are clamped (not rejected), and the output says the size used. */
export const MCP_MAX_PAGE_SIZE = 100;

/** Paging inputs of the list tools. */
export const pagingInput = {
  page: z.number().int().min(1).max(1_000_000).optional().describe("1-based page number (default 1)."),
  page_size: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `Items per page (default ${MCP_DEFAULT_PAGE_SIZE}); above ${MCP_MAX_PAGE_SIZE} is clamped to ${MCP_MAX_PAGE_SIZE}.`,
    ),
};

/** A page number the reference sends as a string (`"2"`) read as a number; anything else is left to validation. */
function pageNumber(value: unknown): unknown {
  return typeof value === "string" && /^\d{1,7}$/.test(value) ? Number(value) : value;
}

/** The reference's JSON:API paging names (`page[size]`, `page[number]`) as aliases of `page_size` and `page`. */
export const pagingAliases: Record<string, ArgumentAlias> = {
  "page[size]": (v) => ({ page_size: pageNumber(v) }),
  "page[number]": (v) => ({ page: pageNumber(v) }),
};

/**
 * REST query parameters of the list filters → the tool argument that sets them, so a value the API rejects is
 * reported under the argument the agent sent (issue 16 §3).
 */
export const listFilterFields: Record<string, string> = {
  "filter[status]": "status",
  "filter[pod_locode]": "port",
  "filter[scac]": "carrier",
  "filter[updated_at][start]": "updated_after",
  "filter[has_holds]": "has_holds",
  sort: "sort",
  "filter[tracking_stopped]": "status",
  "filter[number]": "number",
  "page[size]": "page_size",
  "page[number]": "page",
};

/** Paging outputs of the list tools: what was served and how to get more. */
export const pagingOutput = {
  page: z.number().int().describe("The page served (1-based)."),
  page_size: z.number().int().describe("The page size used."),
  total: z.number().int().describe("Matching records."),
  has_more: z.boolean(),
  next_page: z.number().int().nullable().describe("`page` of the next page; null on the last."),
};

/** The page options for the API from the tool inputs (default 25, clamped to 100). */
export function pageOptions(args: { page?: number | undefined; page_size?: number | undefined }): {
  page: number;
  pageSize: number;
} {
  return {
    page: args.page ?? 1,
    pageSize: Math.min(MCP_MAX_PAGE_SIZE, args.page_size ?? MCP_DEFAULT_PAGE_SIZE),
  };
}

/** The paging fields of a list result. */
export function pagingOf(page: { page: number; page_size: number; total: number; has_more: boolean }) {
  return {
    page: page.page,
    page_size: page.page_size,
    total: page.total,
    has_more: page.has_more,
    next_page: page.has_more ? page.page + 1 : null,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Summary schemas
// ---------------------------------------------------------------------------------------------------------------

const nullableString = orNull(z.string());

/** URI of a container resource. */
export function containerUri(id: string): string {
  return `svc://container/${id}`;
}

/** A container in lists and search results. */
export const ContainerSummary = z
  .object({
    id: z.string(),
    number: z.string().describe("ISO 6346 container number."),
    current_status: z.string(),
    shipment_id: nullableString,
    available_for_pickup: orNull(z.boolean()),
    active_holds: z.array(z.string()).describe("Names of holds with status `hold`."),
    pickup_lfd: nullableString.describe("Last free day (UTC)."),
    pod_arrived_at: nullableString,
    pod_discharged_at: nullableString,
    equipment: nullableString.describe("e.g. `40' high_cube dry`."),
    resource_uri: z.string().describe("svc://container/{id}"),
  })
  .meta({ [FULL_SCHEMA_IN]: "list_containers" });

/** A container as a {@link ContainerSummary}. */
export function containerSummary(c: ContainerResource): z.infer<typeof ContainerSummary> {
  const a = c.attributes;
  const equipment = [a.equipment_length ? `${a.equipment_length}'` : null, a.equipment_height, a.equipment_type].filter(
    Boolean,
  );
  return {
    id: c.id,
    number: a.number,
    current_status: a.current_status,
    shipment_id: toOneId(c, "shipment"),
    available_for_pickup: a.available_for_pickup,
    active_holds: a.holds_at_pod_terminal.filter((h) => h.status === "hold").map((h) => h.name),
    pickup_lfd: a.pickup_lfd,
    pod_arrived_at: a.pod_arrived_at,
    pod_discharged_at: a.pod_discharged_at,
    equipment: equipment.length > 0 ? equipment.join(" ") : null,
    resource_uri: containerUri(c.id),
  };
}

/** A shipment in lists and search results. */
export const ShipmentSummary = z
  .object({
    id: z.string(),
    bill_of_lading_number: z.string(),
    shipping_line_scac: z.string(),
    shipping_line_name: z.string(),
    port_of_lading_locode: nullableString,
    port_of_lading_name: nullableString,
    port_of_discharge_locode: nullableString,
    port_of_discharge_name: nullableString,
    destination_name: nullableString,
    pod_vessel_name: nullableString,
    pol_atd_at: nullableString,
    pod_eta_at: nullableString,
    pod_ata_at: nullableString,
    container_count: z.number().int(),
    ref_numbers: z.array(z.string()),
    tracking_stopped: z.boolean(),
  })
  .meta({ [FULL_SCHEMA_IN]: "list_shipments" });

/** A shipment as a {@link ShipmentSummary}. */
export function shipmentSummary(s: ShipmentResource): z.infer<typeof ShipmentSummary> {
  const a = s.attributes;
  return {
    id: s.id,
    bill_of_lading_number: a.bill_of_lading_number,
    shipping_line_scac: a.shipping_line_scac,
    shipping_line_name: a.shipping_line_name,
    port_of_lading_locode: a.port_of_lading_locode,
    port_of_lading_name: a.port_of_lading_name,
    port_of_discharge_locode: a.port_of_discharge_locode,
    port_of_discharge_name: a.port_of_discharge_name,
    destination_name: a.destination_name,
    pod_vessel_name: a.pod_vessel_name,
    pol_atd_at: a.pol_atd_at,
    pod_eta_at: a.pod_eta_at,
    pod_ata_at: a.pod_ata_at,
    container_count: toManyIds(s, "containers").length,
    ref_numbers: a.ref_numbers,
    tracking_stopped: a.line_tracking_stopped_at !== null,
  };
}

/** A tracking request in lists and search results. */
export const TrackingRequestSummary = z
  .object({
    id: z.string(),
    request_number: z.string(),
    request_type: z.string(),
    scac: nullableString,
    status: z.string().describe("pending, awaiting_manifest, created, failed or tracking_stopped."),
    failed_reason: nullableString,
    is_retrying: z.boolean(),
    shipment_id: nullableString.describe("The tracked shipment once status is created."),
    ref_numbers: z.array(z.string()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .meta({ [FULL_SCHEMA_IN]: "list_tracking_requests" });

/** A tracking request as a {@link TrackingRequestSummary}. */
export function trackingRequestSummary(t: TrackingRequestResource): z.infer<typeof TrackingRequestSummary> {
  const a = t.attributes;
  return {
    id: t.id,
    request_number: a.request_number,
    request_type: a.request_type,
    scac: a.scac,
    status: a.status,
    failed_reason: a.failed_reason,
    is_retrying: a.is_retrying,
    shipment_id: toOneId(t, "tracked_object"),
    ref_numbers: a.ref_numbers,
    created_at: a.created_at,
    updated_at: a.updated_at,
  };
}

/** `n thing` / `n things`. */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

/** UN/LOCODE input (5 characters: country + location). */
export const locodeArg = z
  .string()
  .regex(/^[A-Za-z]{2}[A-Za-z0-9]{3}$/, "a UN/LOCODE such as USLAX")
  .describe("UN/LOCODE of the port of discharge, e.g. USLAX.");

/** SCAC input (2–4 letters). */
export const scacArg = z
  .string()
  .regex(/^[A-Za-z]{2,4}$/, "a SCAC of 2–4 letters such as MAEU")
  .describe("Carrier SCAC, e.g. MAEU (see get_supported_shipping_lines).");

/** ISO 8601 date or date-time input. */
export const isoDateArg = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/, "an ISO 8601 date or date-time")
  .describe("ISO 8601, e.g. 2025-06-01 or 2025-06-01T00:00:00Z.");

/** A custom field value in a tool's output (docs/api.md §Custom fields): the REST resource's attributes. */
export const CustomFieldOutput = z.object({
  api_slug: z.string(),
  value: z.unknown().describe("Raw value: string, number, boolean, array of option values, or {type, id}."),
  display_value: z.string().nullable().describe("Formatted: option labels, Yes/No, YYYY-MM-DD HH:MM:SS."),
});

/** The `custom_fields` of a tool's output from the values `TrackingApi` read. */
export function customFieldsOutput(
  values: { attributes: { api_slug: string; value: unknown; display_value: string | null } }[] | undefined,
): z.infer<typeof CustomFieldOutput>[] {
  return (values ?? []).map((v) => ({
    api_slug: v.attributes.api_slug,
    value: v.attributes.value,
    display_value: v.attributes.display_value,
  }));
}
