import { z } from "@hono/zod-openapi";
import { IMPORT_ROW_OUTCOMES, IMPORT_STATUSES } from "../db/schema/imports";
import { listDocumentSchema, resourceSchema, singleDocumentSchema } from "../lib/openapi";
import { MAX_IMPORT_ROWS } from "./parse";

/** One JSON row of an import: header names as in a file (`request_number`, `scac`, …), string (or list) values. */
const JsonImportRow = z
  .record(z.string().max(64), z.union([z.string().max(1000), z.array(z.string().max(255)).max(50), z.null()]))
  .openapi({
    example: { request_number: "MSCU1234566", request_type: "container", scac: "MSCU", ref_numbers: ["PO-1"] },
  });

/**
 * JSON body of `POST /tracking_request_imports` (docs/api.md §Tracking request imports): the rows a file would hold,
 * checked and created exactly as a file's.
 */
export const CreateImportJsonBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("tracking_request_import"),
      attributes: z.strictObject({
        rows: z.array(JsonImportRow).max(MAX_IMPORT_ROWS),
        dry_run: z.boolean().optional().openapi({ description: "Validate only; start later with …/start." }),
      }),
    }),
  })
  .openapi("CreateTrackingRequestImport");

/** Multipart body of `POST /tracking_request_imports`: the file, and `dry_run`. */
export const CreateImportFormBody = z
  .object({
    file: z.any().openapi({ type: "string", format: "binary", description: "A .csv or .xlsx file." }),
    dry_run: z.string().optional().openapi({ description: "`true`: validate only." }),
  })
  .openapi("CreateTrackingRequestImportUpload");

const ReasonSchema = z.object({
  code: z.string().openapi({ example: "check_digit" }),
  detail: z.string().openapi({ example: "Check digit failed (ISO 6346): 'MSCU1234567' should end in 6." }),
});

export const TrackingRequestImportAttributes = z
  .object({
    status: z.enum(IMPORT_STATUSES),
    format: z.enum(["csv", "xlsx", "json"]),
    file_name: z.string().nullable(),
    counts: z.object({
      total: z.number().int(),
      valid: z.number().int(),
      invalid: z.number().int(),
      created: z.number().int(),
      failed: z.number().int(),
      pending: z.number().int().openapi({ description: "Valid rows not yet created." }),
    }),
    progress: z.number().min(0).max(1).openapi({ description: "Valid rows done over valid rows; 1 when completed." }),
    created_at: z.string(),
    updated_at: z.string(),
    started_at: z.string().nullable(),
    completed_at: z.string().nullable(),
  })
  .openapi("TrackingRequestImportAttributes");
/** An import's attributes as `serializeImport` writes them. */
export type TrackingRequestImportAttributes = z.infer<typeof TrackingRequestImportAttributes>;

export const ImportRowAttributes = z
  .object({
    row_number: z.number().int().openapi({ description: "The file's row (the header is row 1)." }),
    request_number: z.string(),
    request_type: z.string().nullable(),
    scac: z.string().nullable(),
    scac_source: z.enum(["file", "inferred"]).nullable(),
    suggested_scac: z.string().nullable(),
    ref_numbers: z.array(z.string()),
    shipment_tags: z.array(z.string()),
    outcome: z.enum(IMPORT_ROW_OUTCOMES),
    reasons: z.array(ReasonSchema),
  })
  .openapi("TrackingRequestImportRowAttributes");
/** An import row's attributes as `serializeImportRow` writes them. */
export type ImportRowAttributes = z.infer<typeof ImportRowAttributes>;

const ImportResource = resourceSchema(
  "tracking_request_import",
  TrackingRequestImportAttributes,
  "TrackingRequestImport",
);
export const TrackingRequestImportDocument = singleDocumentSchema(ImportResource, "TrackingRequestImportDocument");
const RowResource = resourceSchema("tracking_request_import_row", ImportRowAttributes, "TrackingRequestImportRow");
export const ImportRowListDocument = listDocumentSchema(RowResource, "TrackingRequestImportRowList");
