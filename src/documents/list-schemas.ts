import { z } from "@hono/zod-openapi";
import { DOCUMENT_SORT_KEYS } from "./list";

/** The OpenAPI query parameters of the filters and sort of `GET /documents` (src/documents/list.ts). */
export const documentListQuery = {
  "filter[filename]": z.string().optional().openapi({
    description:
      "Documents whose file name contains this text (case-insensitive for ASCII letters; `%` and `_` match themselves; at most 1000 characters).",
    example: "invoice",
  }),
  "filter[document_types]": z.string().optional().openapi({
    description:
      "Comma-separated codes of `GET /documents/types`, matched against the effective type: `document_type_manual` when set, else `document_type`.",
    example: "bill_of_lading,arrival_notice",
  }),
  "filter[reference]": z.string().optional().openapi({
    description:
      "Documents that mention, or are linked to a shipment or container numbered, a reference token (BL, booking, container or reference / PO number), compared normalized (case, spaces, dashes, dots, slashes and underscores ignored) and by prefix: `MSKU123` finds `MSKU 123456-7`; 3 to 50 characters after normalization.",
    example: "MAEU241234567",
  }),
  sort: z
    .string()
    .optional()
    .openapi({
      description: `Comma-separated keys of ${DOCUMENT_SORT_KEYS.join(", ")}, each with \`-\` for descending. \`document_type\` is the effective type (no type first when ascending); \`added_by\` is the document's \`source\` (no users here). Ties by \`created_at\`, then \`id\`, in the first key's direction. Default: newest first.`,
      example: "-created_at",
    }),
};
