import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { queryParams } from "../lib/http";
import { parseEnumFilter } from "../lib/jsonapi/filters";
import { listLinksAndMeta, parsePage } from "../lib/jsonapi/pagination";
import {
  commonErrors,
  jsonApiContent,
  jsonBodyContent,
  notFoundResponse,
  pathIdParam,
  sendJsonApi,
} from "../lib/openapi";
import { BODY_TOO_LARGE, readBodyUpTo } from "../lib/request-body";
import { formatOf, MAX_IMPORT_BYTES, type ParsedImport, parseImportFile, parseJsonRows } from "./parse";
import { importDepsFromEnv } from "./queue";
import {
  CreateImportFormBody,
  CreateImportJsonBody,
  ImportRowListDocument,
  TrackingRequestImportDocument,
} from "./schemas";
import { resultsCsv, serializeImport, serializeImportRow } from "./serializer";
import {
  allImportRows,
  createImport,
  getImport,
  type ImportDeps,
  listImportRows,
  type NewImport,
  startImport,
} from "./service";

const tags = ["Tracking requests"];
const IdParam = pathIdParam("TrackingRequestImport");
const errorContent = commonErrors[400].content;

/** Media type of an XLSX workbook. */
export const XLSX_MEDIA_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

const createRouteDef = createRoute({
  method: "post",
  path: "/tracking_request_imports",
  tags,
  summary: "Import tracking requests from a CSV/XLSX file or JSON rows (extension)",
  description:
    "Extension (docs/api.md §Tracking request imports). Send a file (multipart `file`, or the raw body as `text/csv` or XLSX) or JSON rows. Columns by header name, case-insensitive: `request_number` (or `number`, `container_number`, `bill_of_lading`, `booking_number`), `request_type` (`type`), `scac` (`shipping_line`, `carrier`), `ref_numbers`, `shipment_tags`, `customer` (a party id or name). Every row is validated before anything is created (check digit, line, duplicates in the file and in the account; a missing line is filled by infer_number when confident). The valid rows are then created in the background through the same path as POST /tracking_requests, within the create bucket (so a large file takes minutes and no row is refused for the rate). `dry_run=true` only validates; start with POST …/{id}/start. At most 1 MiB and 1000 rows.",
  request: {
    query: z.object({
      dry_run: z.enum(["true", "false"]).optional().openapi({ description: "`true`: validate only (default false)." }),
      file_name: z.string().max(255).optional().openapi({ description: "Name of a raw-body file, for the results." }),
    }),
    body: {
      content: {
        ...jsonBodyContent(CreateImportJsonBody),
        "multipart/form-data": { schema: CreateImportFormBody },
        "text/csv": { schema: z.string().openapi({ description: "A CSV file (UTF-8; `,` `;` tab or `|`)." }) },
        [XLSX_MEDIA_TYPE]: { schema: z.string().openapi({ type: "string", format: "binary" }) },
      },
      required: false,
    },
  },
  responses: {
    201: {
      description: "Validated (and, unless dry_run, started); per-row results under `links.rows`.",
      content: jsonApiContent(TrackingRequestImportDocument),
    },
    ...commonErrors,
    413: { description: "File larger than 1 MiB.", content: errorContent },
    415: { description: "Neither JSON, multipart, CSV nor XLSX.", content: errorContent },
    422: {
      description:
        "The file cannot be read (`invalid_file`), has no number column (`missing_column`), no data rows (`empty`) or over 1000 rows (`too_many_rows`).",
      content: errorContent,
    },
  },
});

const getRouteDef = createRoute({
  method: "get",
  path: "/tracking_request_imports/{id}",
  tags,
  summary: "Get a tracking request import (extension)",
  description: "Status (`validated`, `running`, `completed`), counts and progress; poll it while `running`.",
  request: { params: IdParam },
  responses: {
    200: { description: "The import.", content: jsonApiContent(TrackingRequestImportDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const ROW_OUTCOMES = ["valid", "invalid", "created", "failed"] as const;

const rowsRouteDef = createRoute({
  method: "get",
  path: "/tracking_request_imports/{id}/rows",
  tags,
  summary: "List an import's rows with their outcomes (extension)",
  description:
    "In file order. Each row: what it asks for, `outcome` (`valid`, `invalid`, `creating`, `created`, `failed`), `reasons` (`code`, `detail`) and the `tracking_request` created.",
  request: {
    params: IdParam,
    query: z.object({
      "page[number]": z.string().optional(),
      "page[size]": z.string().optional(),
      "filter[outcome]": z.enum(ROW_OUTCOMES).optional(),
    }),
  },
  responses: {
    200: { description: "A page of rows.", content: jsonApiContent(ImportRowListDocument) },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const startRouteDef = createRoute({
  method: "post",
  path: "/tracking_request_imports/{id}/start",
  tags,
  summary: "Start a validated import (extension)",
  description: "Creates the valid rows of a dry run in the background; starting a started import changes nothing.",
  request: { params: IdParam },
  responses: {
    200: {
      description: "The import, `running` (or `completed`).",
      content: jsonApiContent(TrackingRequestImportDocument),
    },
    ...commonErrors,
    ...notFoundResponse,
  },
});

const resultsRouteDef = createRoute({
  method: "get",
  path: "/tracking_request_imports/{id}/results.csv",
  tags,
  summary: "Download an import's per-row results as CSV (extension)",
  description:
    "One line per row: row, request_number, request_type, scac, scac_source, suggested_scac, ref_numbers, shipment_tags, customer_id, outcome, tracking_request_id, reasons. Cells that a spreadsheet would read as a formula start with `'`.",
  request: { params: IdParam },
  responses: {
    200: { description: "The results.", content: { "text/csv": { schema: z.string() } } },
    ...commonErrors,
    ...notFoundResponse,
  },
});

/**
 * The import a POST body describes: JSON rows, a multipart `file`, or a raw CSV/XLSX body.
 * @throws ApiError 413 over {@link MAX_IMPORT_BYTES}; 415 for another media type; 422 when unreadable (`parse.ts`).
 */
export async function importFromRequest(c: Context<AppEnv>): Promise<Omit<NewImport, "start"> & { dryRun: boolean }> {
  const type = (c.req.header("content-type") ?? "").split(";")[0]?.trim().toLowerCase() ?? "";
  const query = c.req.query("dry_run") === "true";
  if (type === "application/json" || type === "application/vnd.api+json") {
    const body = (await c.req.json()) as z.infer<typeof CreateImportJsonBody>;
    const parsed = CreateImportJsonBody.safeParse(body);
    if (!parsed.success) throw new ApiError(422, [{ detail: "Invalid import body.", source: { pointer: "/data" } }]);
    const a = parsed.data.data.attributes;
    return { format: "json", fileName: null, parsed: parseJsonRows(a.rows), dryRun: query || a.dry_run === true };
  }
  if (type === "multipart/form-data") {
    const length = Number(c.req.header("content-length") ?? "0");
    if (length > MAX_IMPORT_BYTES + 64 * 1024) throw tooLarge();
    const form = await c.req.parseBody();
    const file = form.file;
    if (!(file instanceof File)) {
      throw new ApiError(422, [{ detail: "Attach the file as `file`.", code: "blank", source: { pointer: "/file" } }]);
    }
    const { format, parsed } = await readFile(file);
    return { format, fileName: file.name || null, parsed, dryRun: query || form.dry_run === "true" };
  }
  const format = formatOf(type, null);
  if (!format) throw unsupported();
  const bytes = await readBodyUpTo(c.req.raw, MAX_IMPORT_BYTES);
  if (bytes === BODY_TOO_LARGE) throw tooLarge();
  return { format, fileName: c.req.query("file_name") ?? null, parsed: parseImportFile(format, bytes), dryRun: query };
}

/**
 * Reads an uploaded file (by its media type, then its name).
 * @throws ApiError 413 over {@link MAX_IMPORT_BYTES}; 415 when neither CSV nor XLSX; 422 when unreadable.
 */
export async function readFile(file: File): Promise<{ format: "csv" | "xlsx"; parsed: ParsedImport }> {
  if (file.size > MAX_IMPORT_BYTES) throw tooLarge();
  const format = formatOf(file.type, file.name);
  if (!format) throw unsupported();
  return { format, parsed: parseImportFile(format, new Uint8Array(await file.arrayBuffer())) };
}

function tooLarge(): ApiError {
  return new ApiError(413, [{ detail: `An import file must be at most ${MAX_IMPORT_BYTES} bytes.` }]);
}

function unsupported(): ApiError {
  return new ApiError(415, [
    { detail: "Send a CSV (text/csv) or XLSX file, multipart/form-data with `file`, or JSON rows." },
  ]);
}

/**
 * The import services' dependencies of a request (REST and the dashboard alike): the bindings' (`importDepsFromEnv`),
 * with the request's `db`, the account's shard (docs/SCALING.md §Shards), in place of the primary.
 */
export function requestImportDeps(c: Context<AppEnv>): ImportDeps {
  return { ...importDepsFromEnv(c.env, c.var.clock), db: c.var.db };
}

/** Routes of `/tracking_request_imports` (docs/api.md §Tracking request imports, an extension). */
export const trackingRequestImportRoutes = new OpenAPIHono<AppEnv>()
  .openapi(createRouteDef, async (c) => {
    const input = await importFromRequest(c);
    const row = await createImport(requestImportDeps(c), c.var.principal.accountId, {
      ...input,
      start: !input.dryRun,
    });
    return sendJsonApi(c, { data: serializeImport(row) }, 201);
  })
  .openapi(getRouteDef, async (c) => {
    const row = await getImport(c.var.db, c.var.principal.accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: serializeImport(row), links: { self: c.req.url } });
  })
  .openapi(rowsRouteDef, async (c) => {
    const params = queryParams(c);
    const page = parsePage(params, 100);
    const outcome = parseEnumFilter(params.get("filter[outcome]"), "filter[outcome]", ROW_OUTCOMES);
    const { rows, total } = await listImportRows(
      c.var.db,
      c.var.principal.accountId,
      c.req.valid("param").id,
      page,
      outcome,
    );
    const { links, meta } = listLinksAndMeta(c.req.url, page, rows.length, total);
    return sendJsonApi(c, { data: rows.map(serializeImportRow), links, meta });
  })
  .openapi(startRouteDef, async (c) => {
    const row = await startImport(requestImportDeps(c), c.var.principal.accountId, c.req.valid("param").id);
    return sendJsonApi(c, { data: serializeImport(row) });
  })
  .openapi(resultsRouteDef, async (c) => {
    const { id } = c.req.valid("param");
    await getImport(c.var.db, c.var.principal.accountId, id);
    const rows = await allImportRows(c.var.db, c.var.principal.accountId, id);
    return c.body(resultsCsv(rows), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="import-${id}-results.csv"`,
    }) as never;
  });
