/**
 * The documents part of `TrackingApi` (`api.documents`, src/mcp/api.ts): what the MCP document tools read, over the
 * services and serializers of `GET /v2/documents`, `GET /v2/documents/{id}` and `GET /v2/email_submissions/{id}`
 * (docs/api.md §Documents, §E-mail submissions). The extraction result is read as `include=last_document_representation`
 * reads it; linked shipments and containers as `include=shipments,cargos` reads them once the document resource has
 * those relationships (until then the lists are empty). Another account's id is `not_found`.
 */

import type { Database } from "../db/client";
import { emailSubmissionResource } from "../documents/email-submission-serializer";
import {
  type DocumentFilterParameter,
  effectiveDocumentType,
  listDocuments,
  parseDocumentFilters,
} from "../documents/list";
import { type DocumentRow, documentResource } from "../documents/serializer";
import { getDocument, getEmailSubmission } from "../documents/service";
import { ApiError } from "../lib/errors";
import { hydrated } from "../lib/jsonapi/document";
import type { FilterValues } from "../lib/jsonapi/filters";
import { type LoadContext, parseInclude, resolveIncluded } from "../lib/jsonapi/include";
import type { Resource, ResourceObject } from "../lib/jsonapi/types";
import { mapErrors } from "./api-errors";
import { type Page, type PageOptions, pageOf, pageRequest } from "./api-paging";

/** A document as `GET /v2/documents/{id}` serves it (docs/api.md §Documents "Document resource"). */
export type DocumentResource = Resource<{
  name: string;
  document_type: string | null;
  document_type_manual: string | null;
  classification_notes: string | null;
  source: string;
  file_name: string;
  file_content_type: string | null;
  file_size_bytes: number | null;
  created_at: string;
  updated_at: string;
}>;

/**
 * An extraction result (`document_representation`): `payload` holds the extractor's fields, each
 * `{value, confidence, source_text}` or null, lists as arrays (docs/documents.md §Payload).
 */
export type DocumentRepresentationResource = Resource<{
  schema_version: string;
  payload: Record<string, unknown>;
  created_at: string;
  updated_at: string;
}>;

/** The e-mail a document came in (docs/api.md §E-mail submissions). */
export type EmailSubmissionResource = Resource<{
  subject: string;
  body: string | null;
  from: string[];
  to: string[];
  sent_at: string | null;
  documents_count: number;
}>;

/**
 * Where a document's extraction stands: `extracted` (a representation exists), `failed` (the last run's reason code,
 * src/documents/extraction/types.ts `ExtractionFailureReason`), else `pending` (queued or running).
 */
export interface ExtractionState {
  status: "pending" | "extracted" | "failed";
  failure_reason: string | null;
}

/** A document with its effective type, extraction state and latest extraction result. */
export interface DocumentSummaryDetails {
  document: DocumentResource;
  /** The manual type (`PATCH`) when set, else the extractor's guess, else null (docs/api.md §Documents). */
  effective_type: string | null;
  extraction: ExtractionState;
  /** The latest extraction result, null until one succeeded. */
  representation: DocumentRepresentationResource | null;
}

/** {@link DocumentSummaryDetails} with what `get_document` adds. */
export interface DocumentDetails extends DocumentSummaryDetails {
  /** Corrections set with `PATCH /documents/{id}` `extracted_data_manual`, null when none. */
  extracted_data_manual: Record<string, unknown> | null;
  /** The e-mail submission it came in, null for an uploaded document. */
  email_submission: EmailSubmissionResource | null;
  /**
   * The account's shipments and containers the document is linked to (its `shipments` and `cargos` relationships,
   * docs/api.md §Documents), as `include=shipments,cargos` serves them; empty while the resource has no such links.
   */
  linked: { shipments: ResourceObject[]; containers: ResourceObject[] };
}

/** Relationships of a document read for `get_document`, when the document resource has them. */
const LINK_INCLUDES = ["shipments", "cargos"] as const;

function extractionOf(row: DocumentRow): ExtractionState {
  if (row.lastDocumentRepresentationId) return { status: "extracted", failure_reason: null };
  if (row.extractionError) return { status: "failed", failure_reason: row.extractionError };
  return { status: "pending", failure_reason: null };
}

/** The documents reads of one account (see the module comment). Every method may reject with `TrackingApiError`. */
export class DocumentsApi {
  private readonly ctx: LoadContext;

  constructor(deps: { db: Database; accountId: string }) {
    this.ctx = { db: deps.db, accountId: deps.accountId };
  }

  /**
   * A page of the account's documents, newest first, filtered as `GET /v2/documents` filters (`filters` by its
   * parameter names, checked by `parseDocumentFilters`), each with its latest extraction result.
   * @throws TrackingApiError `invalid_argument` naming the parameter (an unknown document type, a too long name).
   */
  async list(
    filters: FilterValues<DocumentFilterParameter> = {},
    page: PageOptions = {},
  ): Promise<Page<DocumentSummaryDetails>> {
    return mapErrors(async () => {
      const request = pageRequest(page);
      const parsed = parseDocumentFilters(filters);
      const { rows, total } = await listDocuments(this.ctx.db, this.ctx.accountId, parsed, request);
      const { resources, included } = await this.read(rows, ["last_document_representation"]);
      const items = rows.map((row, i) => this.summary(row, resources[i] as DocumentResource, included));
      return pageOf(items, request, total);
    });
  }

  /**
   * One document of the account with its latest extraction result, its e-mail submission and its links.
   * @throws TrackingApiError `not_found` (unknown or another account's).
   */
  async get(id: string): Promise<DocumentDetails> {
    return mapErrors(async () => {
      const row = await getDocument(this.ctx.db, this.ctx.accountId, id);
      const links = LINK_INCLUDES.filter((name) => Object.hasOwn(documentResource.relationships, name));
      const [{ resources, included }, submission] = await Promise.all([
        this.read([row], ["last_document_representation", ...links]),
        row.emailSubmissionId ? this.submission(row.emailSubmissionId) : null,
      ]);
      const resource = resources[0] as DocumentResource;
      const linkedOf = (name: string, type: string) => {
        const ids = new Set(
          (resource.relationships?.[name]?.data as { id: string }[] | undefined)?.map((d) => d.id) ?? [],
        );
        return included.filter((r) => r.type === type && ids.has(r.id));
      };
      return {
        ...this.summary(row, resource, included),
        extracted_data_manual: row.extractedDataManual ?? null,
        email_submission: submission,
        linked: { shipments: linkedOf("shipments", "shipment"), containers: linkedOf("cargos", "container") },
      };
    });
  }

  /** `rows` serialized as the REST API serializes them, with `include` resolved as `?include=` resolves it. */
  private async read(rows: DocumentRow[], include: string[]) {
    const complete = await hydrated(this.ctx, documentResource, rows);
    const resources = complete.map((r) => documentResource.serialize(r));
    const tree = parseInclude(include.join(","), documentResource);
    const included = await resolveIncluded(this.ctx, documentResource, complete, tree, resources);
    return { resources, included };
  }

  private summary(row: DocumentRow, resource: DocumentResource, included: ResourceObject[]): DocumentSummaryDetails {
    const representation = row.lastDocumentRepresentationId
      ? (included.find((r) => r.type === "document_representation" && r.id === row.lastDocumentRepresentationId) ??
        null)
      : null;
    return {
      document: resource,
      effective_type: effectiveDocumentType(row),
      extraction: extractionOf(row),
      representation: representation as DocumentRepresentationResource | null,
    };
  }

  /** The e-mail submission of a document, serialized with its documents; null if it is gone. */
  private async submission(id: string): Promise<EmailSubmissionResource | null> {
    const row = await getEmailSubmission(this.ctx.db, this.ctx.accountId, id).catch((err: unknown) => {
      if (err instanceof ApiError && err.status === 404) return null;
      throw err;
    });
    if (!row) return null;
    const [complete = row] = await hydrated(this.ctx, emailSubmissionResource, [row]);
    return emailSubmissionResource.serialize(complete) as EmailSubmissionResource;
  }
}
