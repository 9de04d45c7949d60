import { and, eq, or, type SQLWrapper, sql } from "drizzle-orm";
import type { BatchItem } from "drizzle-orm/batch";
import type { Database } from "../db/client";
import { MAX_IDS_PER_STATEMENT } from "../db/query-shapes";
import { containers, documentLinks, documentReferences, documents, shipments } from "../db/schema";
import { deterministicId } from "../lib/ids";
import { resourceTypeNamed } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import { ownedBy } from "../lib/tenant";
import { batchWithNotifications, type NotificationDraft, type WebhookDeliveryMessage } from "../webhooks/outbox";
import { normalizedSql, normalizeReference } from "./references";
import { type DocumentView, loadByIdsChunked, serializeDocument } from "./serializer";

/**
 * Links between documents and the account's shipments and containers (docs/documents.md §Links): the document's
 * `shipments` and `cargos` relationships. A link is made when a reference token of the document
 * (`document_references`, src/documents/references.ts) equals, in normalized form, a number of a shipment (its
 * `normalized_number`, its `bill_of_lading_number`, one of its `ref_numbers`) or of a container (its `number`, one of
 * its `ref_numbers`) of the same account. Linking runs both ways in time:
 * - after a document's tokens are written (extraction, relink): {@link linkDocument} matches them against the
 *   shipments and containers that exist;
 * - after a lookup wrote a new shipment and its containers: {@link linkShipmentDocuments} matches their numbers
 *   against the tokens of the account's documents (one indexed read on `(account_id, normalized_value)`).
 * Each side reads only after its own write has committed, so a document and a shipment written at the same time are
 * linked by one side or the other. Each new link is announced as `link.created` (an extension event) in the batch that
 * writes it; link ids and notification ids derive from (document, target), so running either side again adds nothing.
 */

/** `document_links.target_type`: the JSON:API type of the linked resource. */
export type LinkTargetType = "shipment" | "container";

/** The extension event announcing a new link (docs/webhooks.md §Extension events). */
export const LINK_CREATED_EVENT = "link.created";

/** A link that the tokens support. */
interface CandidateLink {
  documentId: string;
  targetType: LinkTargetType;
  targetId: string;
  /** The normalized token that matched. */
  matchedValue: string;
}

/** What linking needs: D1, the time of the write, and the `webhook-deliveries` producer (else the cron sweep sends). */
export interface LinkDeps {
  db: Database;
  nowIso: string;
  webhookQueue?: Queue<WebhookDeliveryMessage>;
}

/** What a linking run did. */
export interface LinkOutcome {
  /** Links written by this run. */
  created: number;
  /** Links removed because no token of the document supports them any more (relink only). */
  removed: number;
}

/** `column IN (…values)` with the values bound as one JSON array (any number of them, one parameter). */
const inJsonArray = (column: SQLWrapper, values: readonly string[]) =>
  sql`${column} IN (SELECT value FROM json_each(${JSON.stringify(values)}))`;

const linkKey = (l: { documentId: string; targetType: string; targetId: string }) =>
  `${l.documentId}:${l.targetType}:${l.targetId}`;

/** The normalized numbers of a shipment or container row, for matching. */
function numbersOf(values: (string | null | undefined)[], refNumbers: readonly string[] | null): Set<string> {
  const out = new Set<string>();
  for (const v of [...values, ...(refNumbers ?? [])]) if (v) out.add(normalizeReference(v));
  out.delete("");
  return out;
}

/** The candidate links of one document: its tokens against the account's shipments and containers. */
async function candidatesForDocument(db: Database, accountId: string, documentId: string): Promise<CandidateLink[]> {
  const refs = await db
    .select({ normalizedValue: documentReferences.normalizedValue })
    .from(documentReferences)
    .where(and(eq(documentReferences.accountId, accountId), eq(documentReferences.documentId, documentId)));
  const tokens = [...new Set(refs.map((r) => r.normalizedValue))];
  if (tokens.length === 0) return [];
  // One bound JSON array instead of one parameter per token (D1 binds at most 100 per statement).
  const list = sql`(SELECT value FROM json_each(${JSON.stringify(tokens)}))`;
  const refMatch = (column: typeof shipments.refNumbers | typeof containers.refNumbers) =>
    sql`EXISTS (SELECT 1 FROM json_each(${column}) AS r WHERE ${normalizedSql(sql`r.value`)} IN ${list})`;
  // The account's rows are scanned (the numbers are compared normalized): a background job's cost, once per run.
  const [ships, boxes] = await db.batch([
    db
      .select({
        id: shipments.id,
        bl: shipments.billOfLadingNumber,
        number: shipments.normalizedNumber,
        refNumbers: shipments.refNumbers,
      })
      .from(shipments)
      .where(
        and(
          eq(shipments.accountId, accountId),
          or(
            sql`${normalizedSql(shipments.normalizedNumber)} IN ${list}`,
            sql`${normalizedSql(shipments.billOfLadingNumber)} IN ${list}`,
            refMatch(shipments.refNumbers),
          ),
        ),
      ),
    db
      .select({ id: containers.id, number: containers.number, refNumbers: containers.refNumbers })
      .from(containers)
      .where(
        and(
          eq(containers.accountId, accountId),
          or(sql`${normalizedSql(containers.number)} IN ${list}`, refMatch(containers.refNumbers)),
        ),
      ),
  ]);
  const firstMatch = (numbers: Set<string>) => tokens.find((t) => numbers.has(t));
  const out: CandidateLink[] = [];
  for (const s of ships) {
    const matched = firstMatch(numbersOf([s.number, s.bl], s.refNumbers));
    if (matched) out.push({ documentId, targetType: "shipment", targetId: s.id, matchedValue: matched });
  }
  for (const c of boxes) {
    const matched = firstMatch(numbersOf([c.number], c.refNumbers));
    if (matched) out.push({ documentId, targetType: "container", targetId: c.id, matchedValue: matched });
  }
  return out;
}

/**
 * The candidate links of one shipment and its containers: their numbers against the account's documents' tokens.
 * One D1 round trip: the shipment, its containers, and the tokens equal to one of their normalized numbers (an
 * `IN (…)` on the `(account_id, normalized_value)` index, the numbers computed in SQL from the rows).
 */
async function candidatesForShipment(db: Database, accountId: string, shipmentId: string): Promise<CandidateLink[]> {
  const numbers = sql`SELECT ${normalizedSql(shipments.normalizedNumber)} FROM ${shipments} WHERE ${shipments.id} = ${shipmentId}
    UNION SELECT ${normalizedSql(shipments.billOfLadingNumber)} FROM ${shipments} WHERE ${shipments.id} = ${shipmentId}
    UNION SELECT ${normalizedSql(sql`r.value`)} FROM ${shipments}, json_each(${shipments.refNumbers}) AS r WHERE ${shipments.id} = ${shipmentId}
    UNION SELECT ${normalizedSql(containers.number)} FROM ${containers} WHERE ${containers.shipmentId} = ${shipmentId}
    UNION SELECT ${normalizedSql(sql`r.value`)} FROM ${containers}, json_each(${containers.refNumbers}) AS r WHERE ${containers.shipmentId} = ${shipmentId}`;
  const [ships, boxes, refs] = await db.batch([
    db
      .select({
        id: shipments.id,
        bl: shipments.billOfLadingNumber,
        number: shipments.normalizedNumber,
        refNumbers: shipments.refNumbers,
      })
      .from(shipments)
      .where(and(ownedBy(shipments.accountId, accountId), eq(shipments.id, shipmentId))),
    db
      .select({ id: containers.id, number: containers.number, refNumbers: containers.refNumbers })
      .from(containers)
      .where(and(ownedBy(containers.accountId, accountId), eq(containers.shipmentId, shipmentId))),
    db
      .select({ documentId: documentReferences.documentId, normalizedValue: documentReferences.normalizedValue })
      .from(documentReferences)
      .where(
        and(eq(documentReferences.accountId, accountId), sql`${documentReferences.normalizedValue} IN (${numbers})`),
      ),
  ]);
  if (refs.length === 0) return [];
  const targets: { type: LinkTargetType; id: string; numbers: Set<string> }[] = [
    ...ships.map((s) => ({
      type: "shipment" as const,
      id: s.id,
      numbers: numbersOf([s.number, s.bl], s.refNumbers),
    })),
    ...boxes.map((c) => ({ type: "container" as const, id: c.id, numbers: numbersOf([c.number], c.refNumbers) })),
  ];
  const out: CandidateLink[] = [];
  for (const ref of refs) {
    for (const t of targets) {
      if (t.numbers.has(ref.normalizedValue)) {
        out.push({ documentId: ref.documentId, targetType: t.type, targetId: t.id, matchedValue: ref.normalizedValue });
      }
    }
  }
  return out;
}

/** The rows of `type` with `ids` in the account, serialised (through the include registry, completed by `hydrate`). */
async function serializedTargets(
  db: Database,
  accountId: string,
  type: LinkTargetType,
  ids: string[],
): Promise<Map<string, ResourceObject>> {
  const resource = resourceTypeNamed(type);
  const ctx = { db, accountId };
  const out = new Map<string, ResourceObject>();
  // In chunks, so that each read and its linkage stay within D1's 100 bound parameters.
  for (let i = 0; i < ids.length; i += MAX_IDS_PER_STATEMENT) {
    let rows = await loadByIdsChunked(ctx, type, ids.slice(i, i + MAX_IDS_PER_STATEMENT));
    if (resource.hydrate) rows = await resource.hydrate(ctx, rows);
    for (const row of rows) {
      const object = resource.serialize(row);
      out.set(object.id, object);
    }
  }
  return out;
}

/**
 * Writes the links of `candidates` that do not exist yet, with one `link.created` per new link and subscribed webhook,
 * in one D1 batch. With `prune`, also deletes that document's links the candidates no longer support.
 */
async function applyLinks(
  deps: LinkDeps,
  accountId: string,
  candidates: CandidateLink[],
  prune?: string,
): Promise<LinkOutcome> {
  const { db } = deps;
  const documentIds = [...new Set([...candidates.map((c) => c.documentId), ...(prune ? [prune] : [])])];
  if (documentIds.length === 0) return { created: 0, removed: 0 };
  // Ids as one bound JSON array: a shipment may be named by more documents than D1 binds parameters (100).
  const existing = await db
    .select()
    .from(documentLinks)
    .where(and(eq(documentLinks.accountId, accountId), inJsonArray(documentLinks.documentId, documentIds)));
  const existingKeys = new Set(existing.map(linkKey));
  const supported = new Set(candidates.map(linkKey));
  const fresh = new Map<string, CandidateLink>();
  for (const c of candidates) if (!existingKeys.has(linkKey(c)) && !fresh.has(linkKey(c))) fresh.set(linkKey(c), c);
  const stale = prune ? existing.filter((l) => l.documentId === prune && !supported.has(linkKey(l))) : [];
  if (fresh.size === 0 && stale.length === 0) return { created: 0, removed: 0 };

  const rows = await Promise.all(
    [...fresh.values()].map(async (c) => ({
      id: await deterministicId(`document_link:${linkKey(c)}`),
      accountId,
      ...c,
      createdAt: deps.nowIso,
    })),
  );
  const statements: BatchItem<"sqlite">[] = [];
  // 7 parameters a row; D1 binds at most 100 per statement.
  for (let i = 0; i < rows.length; i += 14) {
    statements.push(
      db
        .insert(documentLinks)
        .values(rows.slice(i, i + 14))
        .onConflictDoNothing(),
    );
  }
  if (stale.length > 0) {
    statements.push(
      db.delete(documentLinks).where(
        and(
          eq(documentLinks.accountId, accountId),
          inJsonArray(
            documentLinks.id,
            stale.map((l) => l.id),
          ),
        ),
      ),
    );
  }
  const [first, ...rest] = statements as [BatchItem<"sqlite">, ...BatchItem<"sqlite">[]];
  await batchWithNotifications(
    db,
    deps.webhookQueue,
    [first, ...rest],
    { accountId, events: [LINK_CREATED_EVENT], nowIso: deps.nowIso },
    () => linkCreatedDrafts(db, accountId, rows, existing, stale, deps.nowIso),
  );
  return { created: rows.length, removed: stale.length };
}

/**
 * The `link.created` drafts of new links (docs/webhooks.md §Extension events): reference object the document;
 * `included` the document (with its linkage as the batch leaves it) and the linked shipment or container.
 */
async function linkCreatedDrafts(
  db: Database,
  accountId: string,
  created: (CandidateLink & { id: string })[],
  existing: (typeof documentLinks.$inferSelect)[],
  stale: (typeof documentLinks.$inferSelect)[],
  nowIso: string,
): Promise<NotificationDraft[]> {
  const documentIds = [...new Set(created.map((l) => l.documentId))];
  const [docs, shipmentObjects, containerObjects] = await Promise.all([
    db
      .select()
      .from(documents)
      .where(and(ownedBy(documents.accountId, accountId), inJsonArray(documents.id, documentIds))),
    serializedTargets(
      db,
      accountId,
      "shipment",
      created.filter((l) => l.targetType === "shipment").map((l) => l.targetId),
    ),
    serializedTargets(
      db,
      accountId,
      "container",
      created.filter((l) => l.targetType === "container").map((l) => l.targetId),
    ),
  ]);
  const staleIds = new Set(stale.map((l) => l.id));
  const after = [...existing.filter((l) => !staleIds.has(l.id)), ...created];
  const serializedDocs = new Map<string, ResourceObject>();
  for (const doc of docs) {
    const mine = after.filter((l) => l.documentId === doc.id);
    const view: DocumentView = {
      ...doc,
      shipmentIds: mine.filter((l) => l.targetType === "shipment").map((l) => l.targetId),
      containerIds: mine.filter((l) => l.targetType === "container").map((l) => l.targetId),
    };
    serializedDocs.set(doc.id, serializeDocument(view));
  }
  const drafts: NotificationDraft[] = [];
  for (const link of created) {
    const document = serializedDocs.get(link.documentId);
    const target = (link.targetType === "shipment" ? shipmentObjects : containerObjects).get(link.targetId);
    if (!document) continue;
    drafts.push({
      accountId,
      event: LINK_CREATED_EVENT,
      reference: { type: "document", id: link.documentId },
      dedupKey: `${LINK_CREATED_EVENT}:${linkKey(link)}`,
      createdAt: nowIso,
      included: () => (target ? [document, target] : [document]),
    });
  }
  return drafts;
}

/**
 * Links a document to the account's shipments and containers its reference tokens name (extraction, relink), and
 * removes its links no token supports any more. Never links across accounts.
 */
export async function linkDocument(deps: LinkDeps, accountId: string, documentId: string): Promise<LinkOutcome> {
  const candidates = await candidatesForDocument(deps.db, accountId, documentId);
  return applyLinks(deps, accountId, candidates, documentId);
}

/**
 * Links a shipment just written by a lookup, and its containers, to the account's documents whose tokens name them
 * (src/tracking/consumers.ts, after the lookup's rows are written; running it again adds nothing).
 */
export async function linkShipmentDocuments(
  deps: LinkDeps,
  accountId: string,
  shipmentId: string,
): Promise<LinkOutcome> {
  const candidates = await candidatesForShipment(deps.db, accountId, shipmentId);
  return applyLinks(deps, accountId, candidates);
}

/** Statements deleting a document's tokens and links (for the batch that deletes the document). */
export function deleteDocumentLinksStatements(db: Database, accountId: string, documentId: string) {
  return [
    db
      .delete(documentLinks)
      .where(and(eq(documentLinks.accountId, accountId), eq(documentLinks.documentId, documentId))),
    db
      .delete(documentReferences)
      .where(and(eq(documentReferences.accountId, accountId), eq(documentReferences.documentId, documentId))),
  ] as const;
}
