import type { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { z } from "zod";
import { DOCUMENT_TYPES, extractionPayloadSchema } from "../../documents/extraction";
import type { ResourceObject } from "../../lib/jsonapi/types";
import { orNull } from "../../lib/nullable";
import { TrackingApiError } from "../api-errors";
import type { DocumentDetails, DocumentSummaryDetails } from "../documents-api";
import {
  type McpDeps,
  pageOptions,
  pagingAliases,
  pagingInput,
  pagingOf,
  pagingOutput,
  plural,
  READ_ONLY,
  registerTrackingTool,
} from "./common";

/**
 * Document tools (docs/mcp.md §Tools): `list_documents` and `get_document`, over `api.documents`
 * (src/mcp/documents-api.ts), the services of `GET /v2/documents` and `GET /v2/documents/{id}`.
 */

const nullableString = orNull(z.string());
const DOCUMENT_TYPE_CODES = DOCUMENT_TYPES.map((t) => t.code) as [string, ...string[]];

/**
 * The payload keys that hold one field (`ExtractedField | null`), in the payload schema's order: every key of
 * `extractionPayloadSchema` (src/documents/extraction/payload-schema.ts) but the type guess and the two lists.
 */
const SINGLE_FIELDS = Object.keys(extractionPayloadSchema.shape).filter(
  (k) => k !== "document_type" && k !== "container_numbers" && k !== "reference_numbers",
);

/** One extracted value (docs/documents.md §Payload, §Confidence). */
const ExtractedFieldOutput = z.object({
  field: z.string(),
  value: z.string(),
  confidence: z.number(),
  source_text: z.string(),
});

type ExtractedFieldRow = z.infer<typeof ExtractedFieldOutput>;

function asField(field: string, raw: unknown): ExtractedFieldRow | null {
  if (!raw || typeof raw !== "object") return null;
  const f = raw as { value?: unknown; confidence?: unknown; source_text?: unknown };
  if (typeof f.value !== "string") return null;
  return {
    field,
    value: f.value,
    confidence: typeof f.confidence === "number" ? f.confidence : 0,
    source_text: typeof f.source_text === "string" ? f.source_text : "",
  };
}

/** The fields of an extraction payload, flat, and the single-value keys it did not find. */
function fieldsOf(payload: Record<string, unknown> | undefined): { fields: ExtractedFieldRow[]; missing: string[] } {
  if (!payload) return { fields: [], missing: [] };
  const fields: ExtractedFieldRow[] = [];
  const missing: string[] = [];
  for (const key of SINGLE_FIELDS) {
    const field = asField(key, payload[key]);
    if (field) fields.push(field);
    else missing.push(key);
  }
  const boxes = Array.isArray(payload.container_numbers) ? payload.container_numbers : [];
  for (const box of boxes) {
    const field = asField("container_number", box);
    if (field) fields.push(field);
  }
  if (boxes.length === 0) missing.push("container_numbers");
  return { fields, missing };
}

/** A document in `list_documents` (and the head of `get_document`). */
const DocumentSummary = z.object({
  id: z.string(),
  name: z.string(),
  file_name: z.string(),
  document_type: nullableString,
  source: z.string(),
  extraction_status: z.enum(["pending", "extracted", "failed"]),
  failure_reason: nullableString,
  references: z.object({
    bill_of_lading_number: nullableString,
    booking_number: nullableString,
    container_numbers: z.array(z.string()),
  }),
  created_at: z.string(),
});

function documentSummary(d: DocumentSummaryDetails): z.infer<typeof DocumentSummary> {
  const a = d.document.attributes;
  const { fields } = fieldsOf(d.representation?.attributes.payload);
  const first = (key: string) => fields.find((f) => f.field === key)?.value ?? null;
  return {
    id: d.document.id,
    name: a.name,
    file_name: a.file_name,
    document_type: d.effective_type,
    source: a.source,
    extraction_status: d.extraction.status,
    failure_reason: d.extraction.failure_reason,
    references: {
      bill_of_lading_number: first("bill_of_lading_number"),
      booking_number: first("booking_number"),
      container_numbers: fields.filter((f) => f.field === "container_number").map((f) => f.value),
    },
    created_at: a.created_at,
  };
}

/** A linked shipment or container, as small as the agent needs to call get_shipment_details / get_container. */
const LinkedEntity = z.object({ id: z.string(), number: nullableString });

function linked(resources: ResourceObject[], numberKey: string): z.infer<typeof LinkedEntity>[] {
  return resources.map((r) => {
    const value = r.attributes?.[numberKey];
    return { id: r.id, number: typeof value === "string" ? value : null };
  });
}

const documentIdArg = z.string().min(1).max(64).describe("Document id (from list_documents).");

/** The output of `get_document`: the document, how it was classified and read, its e-mail, its links. */
const DocumentView = {
  id: z.string(),
  name: z.string(),
  file_name: z.string(),
  content_type: nullableString,
  source: z.string(),
  created_at: z.string(),
  document_type: nullableString,
  manual_type: nullableString,
  extracted_type: nullableString,
  extracted_type_confidence: orNull(z.number()),
  extraction_status: z.enum(["pending", "extracted", "failed"]),
  failure_reason: nullableString,
  extracted_at: nullableString,
  fields: z.array(ExtractedFieldOutput),
  missing_fields: z.array(z.string()),
  manual_corrections: orNull(z.record(z.string(), z.unknown())),
  email_submission: z
    .object({ id: z.string(), subject: z.string(), from: z.array(z.string()), sent_at: nullableString })
    .nullable(),
  linked_shipments: z.array(LinkedEntity).describe("number: the BL."),
  linked_containers: z.array(LinkedEntity),
};

type DocumentViewOutput = z.infer<z.ZodObject<typeof DocumentView>>;

function documentMarkdown(s: DocumentViewOutput): string {
  const typeNote = s.manual_type
    ? " (set manually)"
    : s.extracted_type_confidence !== null
      ? ` (extractor, confidence ${s.extracted_type_confidence})`
      : "";
  const lines = [
    `# Document ${s.name}`,
    "",
    `- Type: ${s.document_type ?? "unknown"}${typeNote}`,
    `- File: ${s.file_name} (${s.content_type ?? "?"}), source ${s.source}, added ${s.created_at}`,
    `- Extraction: ${s.extraction_status}${s.failure_reason ? ` (${s.failure_reason})` : ""}`,
  ];
  for (const f of s.fields) lines.push(`  - ${f.field}: ${f.value} (confidence ${f.confidence})`);
  if (s.extraction_status === "extracted" && s.missing_fields.length > 0) {
    lines.push(`  - not found: ${s.missing_fields.join(", ")}`);
  }
  if (s.email_submission) {
    lines.push(`- E-mailed: "${s.email_submission.subject}" from ${s.email_submission.from.join(", ")}`);
  }
  const links = [
    ...s.linked_shipments.map((x) => `shipment ${x.number ?? x.id}`),
    ...s.linked_containers.map((x) => `container ${x.number ?? x.id}`),
  ];
  lines.push(`- Linked to: ${links.length > 0 ? links.join(", ") : "nothing yet"}`);
  lines.push(`- Id: ${s.id}`);
  return lines.join("\n");
}

function documentView(d: DocumentDetails): DocumentViewOutput {
  const a = d.document.attributes;
  const rep = d.representation?.attributes;
  const { fields, missing } = fieldsOf(rep?.payload);
  const guess = rep?.payload.document_type as { confidence?: unknown } | undefined;
  const mail = d.email_submission;
  return {
    id: d.document.id,
    name: a.name,
    file_name: a.file_name,
    content_type: a.file_content_type,
    source: a.source,
    created_at: a.created_at,
    document_type: d.effective_type,
    manual_type: a.document_type_manual,
    extracted_type: a.document_type,
    extracted_type_confidence: typeof guess?.confidence === "number" ? guess.confidence : null,
    extraction_status: d.extraction.status,
    failure_reason: d.extraction.failure_reason,
    extracted_at: rep?.created_at ?? null,
    fields,
    missing_fields: missing,
    manual_corrections: d.extracted_data_manual,
    email_submission: mail
      ? { id: mail.id, subject: mail.attributes.subject, from: mail.attributes.from, sent_at: mail.attributes.sent_at }
      : null,
    // Filled from the document's `shipments` / `cargos` relationships (src/mcp/documents-api.ts).
    linked_shipments: linked(d.linked.shipments, "bill_of_lading_number"),
    linked_containers: linked(d.linked.containers, "number"),
  };
}

/** Registers `list_documents` and `get_document` (docs/mcp.md §Tools). */
export function registerDocumentTools(server: McpServer, deps: McpDeps): void {
  registerTrackingTool(server, deps, {
    name: "list_documents",
    title: "List documents",
    description:
      "The account's shipping documents (BL, arrival notice, invoice …), newest first, by type (manual if set, else extracted), file name or a number they name or are linked to; each with the BL, booking and container numbers read from it.",
    input: {
      document_types: z.array(z.enum(DOCUMENT_TYPE_CODES)).min(1).max(DOCUMENT_TYPE_CODES.length).optional(),
      file_name: z.string().min(1).max(255).optional().describe("Part of the file name."),
      reference: z
        .string()
        .min(3)
        .max(200)
        .optional()
        .describe("A BL, booking, container or PO number, or its start (spaces and dashes ignored)."),
      ...pagingInput,
    },
    aliases: {
      ...pagingAliases,
      "filter[filename]": (v) => ({ file_name: v }),
      "filter[reference]": (v) => ({ reference: v }),
      "filter[document_types]": (v) => ({
        document_types: typeof v === "string" ? v.split(",").map((t) => t.trim()) : v,
      }),
    },
    fields: {
      "filter[filename]": "file_name",
      "filter[reference]": "reference",
      "filter[document_types]": "document_types",
      "page[size]": "page_size",
      "page[number]": "page",
    },
    output: { items: z.array(DocumentSummary), ...pagingOutput },
    annotations: READ_ONLY,
    async run(args, { api }) {
      const page = await api.documents.list(
        {
          "filter[filename]": args.file_name,
          "filter[reference]": args.reference,
          "filter[document_types]": args.document_types?.join(","),
        },
        pageOptions(args),
      );
      const items = page.items.map(documentSummary);
      const paging = pagingOf(page);
      const text =
        items.length === 0
          ? page.total === 0
            ? "No documents match."
            : `Page ${paging.page} is past the last page (${page.total} documents).`
          : `${plural(page.total, "document")} match; page ${paging.page} has ${items.length}${paging.next_page ? ` (next_page ${paging.next_page})` : ""}:\n${items
              .map(
                (d) =>
                  `- ${d.name}: ${d.document_type ?? "type unknown"}, ${d.extraction_status}${d.references.bill_of_lading_number ? `, BL ${d.references.bill_of_lading_number}` : ""}${d.references.container_numbers.length ? `, containers ${d.references.container_numbers.join(" ")}` : ""} (id ${d.id})`,
              )
              .join("\n")}`;
      return { structured: { items, ...paging }, text };
    },
  });

  registerTrackingTool(server, deps, {
    name: "get_document",
    title: "Get a document",
    description:
      "A document's type, each field read from it (BL, booking, container numbers, SCAC, vessel, voyage, POL/POD, ETD/ETA) with confidence 0..1 and source text, manual corrections, its e-mail, and the shipments/containers linked to it.",
    input: { id: documentIdArg },
    output: DocumentView,
    annotations: READ_ONLY,
    async run(args, { api }) {
      const id = args.id.trim().toLowerCase();
      const details = await api.documents.get(id).catch((err: unknown) => {
        if (err instanceof TrackingApiError && err.kind === "not_found") {
          throw new TrackingApiError(
            "not_found",
            `No document with id ${id} in this account. Use list_documents to find it.`,
          );
        }
        throw err;
      });
      const structured = documentView(details);
      return { structured, text: documentMarkdown(structured) };
    },
  });
}
