import { and, asc, count, eq, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import {
  type ImportRowOutcome,
  type ImportRowReason,
  trackingRequestImportRows,
  trackingRequestImports,
} from "../db/schema";
import { toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import { createTrackingRequest, type TrackingRequestDeps } from "../tracking-requests/service";
import type { ImportFormat, ParsedImport } from "./parse";
import { type ValidatedRow, validateImportRows } from "./validate";

/** A `tracking_request_imports` row. */
export type ImportRow = typeof trackingRequestImports.$inferSelect;
/** A `tracking_request_import_rows` row. */
export type ImportRowRecord = typeof trackingRequestImportRows.$inferSelect;

/** Message on the `tracking-request-imports` queue: create the next valid rows of this import. */
export interface TrackingRequestImportMessage {
  importId: string;
  accountId: string;
}

/** A decision of the account's create bucket (src/ratelimit/client.ts `checkRateLimit`). */
export interface BucketDecision {
  allowed: boolean;
  retryAfterSeconds: number;
}

/** What imports need: the create path's deps, the import queue, and a token from the account's create bucket. */
export interface ImportDeps extends TrackingRequestDeps {
  importQueue: Pick<Queue<TrackingRequestImportMessage>, "send">;
  /** Takes one admission from `create_tracking_request` of the account at `nowMs` (ms since epoch). */
  takeCreateToken(accountId: string, nowMs: number): Promise<BucketDecision>;
}

/** Rows one background step creates at most before it hands over to the next message (keeps each step short). */
export const ROWS_PER_STEP = 50;

/** What to import: the parsed file and how it came. */
export interface NewImport {
  format: ImportFormat;
  fileName: string | null;
  parsed: ParsedImport;
  /** False (a dry run): validate and store the rows only; `startImport` creates them later. */
  start: boolean;
}

/**
 * Creates an import (docs/api.md §Tracking request imports): validates every row (`validateImportRows`) and stores the
 * import with its rows, nothing created yet; with `start`, starts it (`startImport`).
 * @throws ApiError 422 when the file has no data row.
 */
export async function createImport(deps: ImportDeps, accountId: string, input: NewImport): Promise<ImportRow> {
  if (input.parsed.rows.length === 0) {
    throw new ApiError(422, [{ detail: "The file has no data rows.", code: "empty", source: { pointer: "/file" } }]);
  }
  const validated = await validateImportRows(deps, accountId, input.parsed.rows);
  const now = toIsoSeconds(deps.clock.now());
  const valid = validated.filter((r) => r.outcome === "valid").length;
  const row: ImportRow = {
    id: newId(),
    accountId,
    status: "validated",
    format: input.format,
    fileName: input.fileName,
    totalRows: validated.length,
    validRows: valid,
    invalidRows: validated.length - valid,
    createdRows: 0,
    failedRows: 0,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
  };
  const { db } = deps;
  // D1 binds at most 100 values per statement: 14 columns → 7 rows per insert.
  const inserts = [];
  for (let i = 0; i < validated.length; i += 7) {
    inserts.push(
      db
        .insert(trackingRequestImportRows)
        .values(validated.slice(i, i + 7).map((r) => rowRecord(row.id, accountId, r))),
    );
  }
  await db.batch([db.insert(trackingRequestImports).values(row), ...inserts]);
  return input.start ? startImport(deps, accountId, row.id) : row;
}

function rowRecord(importId: string, accountId: string, r: ValidatedRow): ImportRowRecord {
  return {
    importId,
    rowNumber: r.rowNumber,
    accountId,
    requestNumber: r.requestNumber,
    requestType: r.requestType,
    scac: r.scac,
    scacSource: r.scacSource,
    suggestedScac: r.suggestedScac,
    refNumbers: r.refNumbers,
    shipmentTags: r.shipmentTags,
    customerId: r.customerId,
    outcome: r.outcome,
    reasons: r.reasons,
    trackingRequestId: null,
  };
}

/** One import of the account. @throws ApiError 404 when absent or another account's. */
export async function getImport(db: Database, accountId: string, id: string): Promise<ImportRow> {
  const [row] = await db
    .select()
    .from(trackingRequestImports)
    .where(and(ownedBy(trackingRequestImports.accountId, accountId), eq(trackingRequestImports.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find TrackingRequestImport");
  return row;
}

/**
 * Starts a validated import: `running`, and a message on the import queue; an import without valid rows completes at
 * once. Starting one already running or completed changes nothing (idempotent).
 * @throws ApiError 404 when absent or another account's.
 */
export async function startImport(deps: ImportDeps, accountId: string, id: string): Promise<ImportRow> {
  const current = await getImport(deps.db, accountId, id);
  if (current.status !== "validated") return current;
  const now = toIsoSeconds(deps.clock.now());
  const done = current.validRows === 0;
  const [row] = await deps.db
    .update(trackingRequestImports)
    .set({ status: done ? "completed" : "running", startedAt: now, updatedAt: now, completedAt: done ? now : null })
    .where(and(eq(trackingRequestImports.id, id), eq(trackingRequestImports.status, "validated")))
    .returning();
  // Another start won the race: it sent the message.
  if (!row) return getImport(deps.db, accountId, id);
  if (!done) await deps.importQueue.send({ importId: id, accountId });
  return row;
}

/** How a background step ended: the import is complete, or more rows wait (after `delaySeconds`). */
export type StepResult = { done: true } | { done: false; delaySeconds: number };

/**
 * Creates up to `maxRows` valid rows of a running import through the create path of POST /tracking_requests
 * (`createTrackingRequest`), taking one token of the account's create bucket per row first
 * (RATE_LIMIT_CREATE_TRACKING_REQUEST per rolling 60 s, shared with the API): a refused token ends the step with the
 * bucket's `Retry-After` as the delay, so no row is ever refused for the rate. Each row is claimed (`valid` →
 * `creating`) before its create, so two steps never create one row twice. A create refused with a 422 (tracked
 * meanwhile, a customer deleted) marks the row `failed` with the errors' details. When no valid row is left the import
 * is `completed`.
 */
export async function runImportStep(
  deps: ImportDeps,
  message: TrackingRequestImportMessage,
  maxRows = ROWS_PER_STEP,
): Promise<StepResult> {
  const { db } = deps;
  const [current] = await db
    .select()
    .from(trackingRequestImports)
    .where(
      and(
        ownedBy(trackingRequestImports.accountId, message.accountId),
        eq(trackingRequestImports.id, message.importId),
      ),
    )
    .limit(1);
  // Gone, not started, or already completed: nothing to do.
  if (current?.status !== "running") return { done: true };
  const pending = await db
    .select()
    .from(trackingRequestImportRows)
    .where(and(eq(trackingRequestImportRows.importId, current.id), eq(trackingRequestImportRows.outcome, "valid")))
    .orderBy(asc(trackingRequestImportRows.rowNumber))
    .limit(maxRows + 1);
  for (const row of pending.slice(0, maxRows)) {
    const token = await deps.takeCreateToken(current.accountId, deps.clock.now());
    if (!token.allowed) {
      // A heartbeat: the chain of steps is alive while it waits for the bucket (`requeueStalledImports`).
      await db
        .update(trackingRequestImports)
        .set({ updatedAt: toIsoSeconds(deps.clock.now()) })
        .where(eq(trackingRequestImports.id, current.id));
      return { done: false, delaySeconds: Math.max(1, token.retryAfterSeconds) };
    }
    const claimed = await db
      .update(trackingRequestImportRows)
      .set({ outcome: "creating" })
      .where(rowIs(current.id, row.rowNumber, "valid"))
      .returning({ rowNumber: trackingRequestImportRows.rowNumber });
    if (claimed.length === 0) continue;
    await createRow(deps, current, row);
  }
  if (pending.length > maxRows) return { done: false, delaySeconds: 0 };
  const now = toIsoSeconds(deps.clock.now());
  await db
    .update(trackingRequestImports)
    .set({ status: "completed", completedAt: now, updatedAt: now })
    .where(and(eq(trackingRequestImports.id, current.id), eq(trackingRequestImports.status, "running")));
  return { done: true };
}

async function createRow(deps: ImportDeps, current: ImportRow, row: ImportRowRecord): Promise<void> {
  const { db } = deps;
  const now = toIsoSeconds(deps.clock.now());
  let outcome: ImportRowOutcome;
  let reasons: ImportRowReason[] = [];
  let trackingRequestId: string | null = null;
  try {
    const created = await createTrackingRequest(deps, current.accountId, {
      requestType: (row.requestType ?? "bill_of_lading") as Parameters<typeof createTrackingRequest>[2]["requestType"],
      requestNumber: row.requestNumber,
      scac: row.scac,
      refNumbers: row.refNumbers,
      shipmentTags: row.shipmentTags,
      customerId: row.customerId,
    });
    outcome = "created";
    trackingRequestId = created.id;
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 422) {
      // Not the row's fault (D1, the queue): give the row back for the message's retry.
      await db
        .update(trackingRequestImportRows)
        .set({ outcome: "valid" })
        .where(rowIs(current.id, row.rowNumber, "creating"));
      throw err;
    }
    outcome = "failed";
    reasons = err.errors.map((e) => ({ code: e.code ?? "invalid", detail: e.detail ?? "Refused." }));
  }
  const counter = outcome === "created" ? trackingRequestImports.createdRows : trackingRequestImports.failedRows;
  await db.batch([
    db
      .update(trackingRequestImportRows)
      .set({ outcome, reasons, trackingRequestId })
      .where(rowIs(current.id, row.rowNumber, "creating")),
    db
      .update(trackingRequestImports)
      .set(
        outcome === "created"
          ? { createdRows: sql`${counter} + 1`, updatedAt: now }
          : { failedRows: sql`${counter} + 1`, updatedAt: now },
      )
      .where(eq(trackingRequestImports.id, current.id)),
  ]);
}

function rowIs(importId: string, rowNumber: number, outcome: ImportRowOutcome) {
  return and(
    eq(trackingRequestImportRows.importId, importId),
    eq(trackingRequestImportRows.rowNumber, rowNumber),
    eq(trackingRequestImportRows.outcome, outcome),
  );
}

/** A running import whose steps have not touched it for this long lost its message (steps wait at most 60 s). */
export const STALLED_IMPORT_MS = 15 * 60_000;

/**
 * The cron's sweep (docs/architecture.md §Cron): running imports untouched for {@link STALLED_IMPORT_MS} lost their
 * message (a step is at most a minute apart from the next, and touches the import even while it waits for the
 * bucket). Their rows left `creating` by a step that died are given back (`valid`; a create that did happen then fails
 * as a duplicate, which the row reports) and a new step is queued. At most 50 imports per run. Returns how many.
 */
export async function requeueStalledImports(deps: Pick<ImportDeps, "db" | "clock" | "importQueue">): Promise<number> {
  const { db } = deps;
  const now = deps.clock.now();
  const before = toIsoSeconds(now - STALLED_IMPORT_MS);
  const stalled = await db
    .select({ id: trackingRequestImports.id, accountId: trackingRequestImports.accountId })
    .from(trackingRequestImports)
    .where(and(eq(trackingRequestImports.status, "running"), sql`${trackingRequestImports.updatedAt} < ${before}`))
    .limit(50);
  for (const imp of stalled) {
    await db.batch([
      db
        .update(trackingRequestImportRows)
        .set({ outcome: "valid" })
        .where(and(eq(trackingRequestImportRows.importId, imp.id), eq(trackingRequestImportRows.outcome, "creating"))),
      db
        .update(trackingRequestImports)
        .set({ updatedAt: toIsoSeconds(now) })
        .where(eq(trackingRequestImports.id, imp.id)),
    ]);
    await deps.importQueue.send({ importId: imp.id, accountId: imp.accountId });
  }
  return stalled.length;
}

/** Outcomes a rows listing may be filtered by. */
export type RowOutcomeFilter = "valid" | "invalid" | "created" | "failed";

/**
 * A page of an import's rows in file order, optionally of one outcome (`valid` includes rows being created).
 * @throws ApiError 404 when the import is absent or another account's.
 */
export async function listImportRows(
  db: Database,
  accountId: string,
  id: string,
  page: Pick<PageRequest, "size" | "offset">,
  outcome?: RowOutcomeFilter,
): Promise<{ rows: ImportRowRecord[]; total: number }> {
  await getImport(db, accountId, id);
  const t = trackingRequestImportRows;
  const where = and(
    eq(t.importId, id),
    eq(t.accountId, accountId),
    outcome === undefined
      ? undefined
      : outcome === "valid"
        ? sql`${t.outcome} IN ('valid', 'creating')`
        : eq(t.outcome, outcome),
  );
  const [rows, totals] = await db.batch([
    db.select().from(t).where(where).orderBy(asc(t.rowNumber)).limit(page.size).offset(page.offset),
    db.select({ n: count() }).from(t).where(where),
  ]);
  return { rows, total: Number(totals[0]?.n ?? 0) };
}

/** Every row of an import in file order (at most MAX_IMPORT_ROWS), for the results CSV and the dashboard. */
export async function allImportRows(db: Database, accountId: string, id: string): Promise<ImportRowRecord[]> {
  const t = trackingRequestImportRows;
  return db
    .select()
    .from(t)
    .where(and(eq(t.importId, id), eq(t.accountId, accountId)))
    .orderBy(asc(t.rowNumber));
}
