import { and, asc, count, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { accounts, containers, customFieldDefinitions, customFields, shipments, trackingRequests } from "../db/schema";
import { toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import {
  type CustomFieldDeps,
  type DefinitionView,
  findDefinitionBySlug,
  optionLabels,
  optionsOf,
} from "./definitions";
import { checkValue, DEFINITION_TYPE_OF, displayValue, type ReferenceValue, type ValueEntityType } from "./value-types";

/** A `custom_fields` row as drizzle returns it. */
export type CustomFieldRow = typeof customFields.$inferSelect;

/** A value with what its serializer shows: the definition's `api_slug` and the formatted `display_value`. */
export interface CustomFieldView extends CustomFieldRow {
  apiSlug: string;
  dataType: string;
  displayValue: string | null;
}

/** Filters of `GET /custom_fields` (docs/api.md §Custom fields). */
export interface ValueFilters {
  entityType?: ValueEntityType;
  entityId?: string;
  definitionId?: string;
}

const ENTITY_TABLES = {
  shipment: { table: shipments, model: "Shipment" },
  container: { table: containers, model: "Container" },
  tracking_request: { table: trackingRequests, model: "TrackingRequest" },
} as const;

/**
 * Whether the account owns the record `type`/`id`.
 * @throws ApiError 404 "Couldn't find <Model>" when not (unknown, or another account's).
 */
export async function requireEntity(db: Database, accountId: string, type: ValueEntityType, id: string): Promise<void> {
  const { table, model } = ENTITY_TABLES[type];
  const [row] = await db
    .select({ id: table.id })
    .from(table)
    .where(and(ownedBy(table.accountId, accountId), eq(table.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound(`Couldn't find ${model}`);
}

const viewColumns = {
  row: customFields,
  apiSlug: customFieldDefinitions.apiSlug,
  dataType: customFieldDefinitions.dataType,
};

/** Rows joined with their definition (an inner join: a value is never read without it), made views. */
async function views(
  db: Database,
  accountId: string,
  rows: { row: CustomFieldRow; apiSlug: string; dataType: string }[],
): Promise<CustomFieldView[]> {
  const enumDefinitions = [
    ...new Set(rows.filter((r) => r.dataType.startsWith("enum")).map((r) => r.row.definitionId)),
  ];
  const options = await optionsOf(db, accountId, enumDefinitions);
  return rows.map(({ row, apiSlug, dataType }) => {
    const labels = (options.get(row.definitionId) ?? []).map((o) => ({ value: o.value, label: o.label }));
    return { ...row, apiSlug, dataType, displayValue: displayValue(row.value, dataType, labels) };
  });
}

function selectViews(db: Database, where: SQL | undefined) {
  return db
    .select(viewColumns)
    .from(customFields)
    .innerJoin(customFieldDefinitions, eq(customFieldDefinitions.id, customFields.definitionId))
    .where(where);
}

/**
 * A page of the account's values, oldest first, with the number matching (`GET /custom_fields` and the per-entity
 * lists, docs/api.md §Custom fields).
 */
export async function listValues(
  db: Database,
  accountId: string,
  filters: ValueFilters,
  page: PageRequest,
): Promise<{ rows: CustomFieldView[]; total: number }> {
  const conditions: SQL[] = [eq(customFields.accountId, accountId)];
  if (filters.entityType) conditions.push(eq(customFields.entityType, filters.entityType));
  if (filters.entityId) conditions.push(eq(customFields.entityId, filters.entityId));
  if (filters.definitionId) conditions.push(eq(customFields.definitionId, filters.definitionId));
  const where = and(...conditions);
  const [rows, totals] = await db.batch([
    selectViews(db, where)
      .orderBy(asc(customFields.createdAt), asc(customFields.id))
      .limit(page.size)
      .offset(page.offset),
    db.select({ n: count() }).from(customFields).where(where),
  ]);
  return { rows: await views(db, accountId, rows), total: totals[0]?.n ?? 0 };
}

/**
 * Every value of the given entities, grouped by entity id (for MCP tools and other readers that show an entity's
 * custom fields, docs/api.md §Custom fields).
 */
/**
 * {@link valuesOfEntities} in two steps, so the query can join another D1 round trip (`readMany`): `query` selects the
 * values of `entityIds` (one per statement result), `views` completes the rows it returned (option labels, read only
 * when an enum value is among them).
 */
export function valuesOfEntitiesRead(
  db: Database,
  accountId: string,
  entityType: ValueEntityType,
  entityIds: string[],
) {
  const query = selectViews(
    db,
    and(
      ownedBy(customFields.accountId, accountId),
      eq(customFields.entityType, entityType),
      inArray(customFields.entityId, entityIds),
    ),
  ).orderBy(asc(customFields.createdAt), asc(customFields.id));
  const complete = async (rows: unknown[]): Promise<Map<string, CustomFieldView[]>> => {
    const byEntity = new Map<string, CustomFieldView[]>(entityIds.map((id) => [id, []]));
    const typed = rows as Awaited<typeof query>;
    for (const view of await views(db, accountId, typed)) byEntity.get(view.entityId)?.push(view);
    return byEntity;
  };
  return { query, complete };
}

export async function valuesOfEntities(
  db: Database,
  accountId: string,
  entityType: ValueEntityType,
  entityIds: string[],
): Promise<Map<string, CustomFieldView[]>> {
  if (entityIds.length === 0) return new Map();
  const { query, complete } = valuesOfEntitiesRead(db, accountId, entityType, entityIds);
  return complete(await query);
}

/**
 * One value of the account by id (`GET /custom_fields/{id}`).
 * @throws ApiError 404 "Couldn't find CustomField" when absent or another account's.
 */
export async function getValue(db: Database, accountId: string, id: string): Promise<CustomFieldView> {
  const rows = await selectViews(db, and(ownedBy(customFields.accountId, accountId), eq(customFields.id, id))).limit(1);
  const [view] = await views(db, accountId, rows);
  if (!view) throw ApiError.notFound("Couldn't find CustomField");
  return view;
}

/**
 * The value of `apiSlug` on an entity of the account.
 * @throws ApiError 404 when the entity is not the account's, or it has no value of that slug.
 */
export async function getValueBySlug(
  db: Database,
  accountId: string,
  entityType: ValueEntityType,
  entityId: string,
  apiSlug: string,
): Promise<CustomFieldView> {
  await requireEntity(db, accountId, entityType, entityId);
  const rows = await selectViews(
    db,
    and(
      ownedBy(customFields.accountId, accountId),
      eq(customFields.entityType, entityType),
      eq(customFields.entityId, entityId),
      eq(customFieldDefinitions.apiSlug, apiSlug),
    ),
  ).limit(1);
  const [view] = await views(db, accountId, rows);
  if (!view) throw ApiError.notFound("Couldn't find CustomField");
  return view;
}

/**
 * The account's definition of `apiSlug`, usable on an entity of `entityType`: a shipment takes `Shipment`
 * definitions, a container `Container` ones, a tracking request any (its values are staged for the shipment and
 * containers it creates; docs/api.md §Custom fields).
 * @throws ApiError 422 at `pointer` (code `invalid`): no such slug in the account, or a definition of another entity.
 */
export async function definitionForEntity(
  db: Database,
  accountId: string,
  entityType: ValueEntityType,
  apiSlug: string,
  pointer = "/data/attributes/api_slug",
): Promise<DefinitionView> {
  const definition = await findDefinitionBySlug(db, accountId, apiSlug);
  if (!definition)
    throw ApiError.invalidField(pointer, `no custom field definition has the api_slug '${apiSlug}'`, "invalid");
  const wanted = DEFINITION_TYPE_OF[entityType];
  if (wanted && definition.entityType !== wanted) {
    throw ApiError.invalidField(
      pointer,
      `'${apiSlug}' is a ${definition.entityType} field; a ${entityType} takes ${wanted} fields`,
      "invalid",
    );
  }
  return definition;
}

/**
 * A value checked against its definition (`checkValue`), and for a `reference` value, the record it names must be
 * the account's.
 * @throws ApiError 422 at `/data/attributes/value`.
 */
export async function typedValue(
  db: Database,
  accountId: string,
  definition: DefinitionView,
  value: unknown,
  pointer?: string,
): Promise<unknown> {
  const typed = checkValue(value, definition, optionLabels(definition), pointer);
  if (definition.dataType === "reference" && typed !== null) {
    const ref = typed as ReferenceValue;
    const type = ref.type as ValueEntityType;
    if (!(type in ENTITY_TABLES)) {
      throw ApiError.invalidField(pointer ?? "/data/attributes/value", `cannot reference a ${ref.type}`, "invalid");
    }
    try {
      await requireEntity(db, accountId, type, ref.id);
    } catch {
      throw ApiError.invalidField(
        pointer ?? "/data/attributes/value",
        `no ${ref.type} has the id ${ref.id}`,
        "invalid",
      );
    }
  }
  return typed;
}

/**
 * The account's per-account value limit is reached (docs/api.md §Custom fields: `custom_field_limit`, counted over
 * the values that exist; null means no limit). The limit is read from `primary`, the primary database (the account's
 * record, where an operator sets it: docs/SCALING.md §Shards); the values are counted in `db`, the account's shard.
 * @throws ApiError 403 naming the limit when one more value would exceed it.
 */
async function checkLimit(db: Database, primary: Database, accountId: string): Promise<void> {
  const [account] = await primary
    .select({ limit: accounts.customFieldLimit })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .limit(1);
  const limit = account?.limit;
  if (limit === null || limit === undefined) return;
  const [held] = await db.select({ n: count() }).from(customFields).where(eq(customFields.accountId, accountId));
  if ((held?.n ?? 0) >= limit) {
    throw new ApiError(403, [
      {
        detail: `Custom field limit reached: this account may hold ${limit} custom field values`,
        code: "custom_field_limit",
      },
    ]);
  }
}

/** {@link upsertValue}'s dependencies: the account's shard (`db`), the clock and the primary database (the limit). */
export interface CustomFieldValueDeps extends CustomFieldDeps {
  primary: Database;
}

/** What an upsert did: the value and whether it was created (else updated). */
export interface UpsertResult {
  view: CustomFieldView;
  created: boolean;
}

/**
 * Sets the value of `apiSlug` on an entity, creating it or replacing the current one (the per-entity POST and
 * `POST /custom_fields`, docs/api.md §Custom fields). A new value counts against `custom_field_limit`.
 * @throws ApiError 404 when the entity is not the account's; 422 for an unknown or mismatched slug or a value that
 *   does not fit the definition; 403 when the limit is reached. Nothing is written then.
 */
export async function upsertValue(
  deps: CustomFieldValueDeps,
  accountId: string,
  input: { entityType: ValueEntityType; entityId: string; apiSlug: string; value: unknown },
): Promise<UpsertResult> {
  const { db } = deps;
  await requireEntity(db, accountId, input.entityType, input.entityId);
  const definition = await definitionForEntity(db, accountId, input.entityType, input.apiSlug);
  const value = await typedValue(db, accountId, definition, input.value);
  const [existing] = await db
    .select({ id: customFields.id })
    .from(customFields)
    .where(
      and(
        eq(customFields.entityType, input.entityType),
        eq(customFields.entityId, input.entityId),
        eq(customFields.definitionId, definition.id),
      ),
    )
    .limit(1);
  const now = toIsoSeconds(deps.clock.now());
  if (existing) {
    await db.update(customFields).set({ value, updatedAt: now }).where(eq(customFields.id, existing.id));
    return { view: await getValue(db, accountId, existing.id), created: false };
  }
  await checkLimit(db, deps.primary, accountId);
  await insertValueStatement(
    db,
    { accountId, definitionId: definition.id, entityType: input.entityType, entityId: input.entityId, value, now },
    "replace",
  );
  return { view: await getValueBySlug(db, accountId, input.entityType, input.entityId, input.apiSlug), created: true };
}

/** A value to insert: on which entity, of which definition, typed already (`typedValue`), and when. */
export interface NewValue {
  accountId: string;
  definitionId: string;
  entityType: ValueEntityType;
  entityId: string;
  value: unknown;
  now: string;
}

/**
 * The insert of one value, selecting its definition (of the account) as it writes: a definition deleted meanwhile
 * writes nothing, so no value can outlive its definition (docs/api.md §Custom fields). On a value the entity already
 * has for that definition: `replace` sets the new value, `keep` leaves the first one (the lookup's precedence).
 * Batchable (src/tracking/persist.ts puts these in the lookup's batch).
 */
export function insertValueStatement(db: Database, v: NewValue, onConflict: "replace" | "keep") {
  const insert = db.insert(customFields).select(
    db
      .select({
        id: sql<string>`${newId()}`.as("id"),
        accountId: customFieldDefinitions.accountId,
        definitionId: customFieldDefinitions.id,
        entityType: sql<string>`${v.entityType}`.as("entity_type"),
        entityId: sql<string>`${v.entityId}`.as("entity_id"),
        value: sql<unknown>`${v.value === null ? null : JSON.stringify(v.value)}`.as("value"),
        createdAt: sql<string>`${v.now}`.as("created_at"),
        updatedAt: sql<string>`${v.now}`.as("updated_at"),
      })
      .from(customFieldDefinitions)
      .where(and(eq(customFieldDefinitions.accountId, v.accountId), eq(customFieldDefinitions.id, v.definitionId))),
  );
  const target = [customFields.entityType, customFields.entityId, customFields.definitionId];
  return onConflict === "keep"
    ? insert.onConflictDoNothing({ target })
    : insert.onConflictDoUpdate({
        target,
        set: { value: sql`excluded.value`, updatedAt: sql`excluded.updated_at` },
      });
}

/**
 * Replaces the value of an existing custom field, typed by its definition (`PATCH /custom_fields/{id}` and the
 * per-entity PATCH by slug).
 * @throws ApiError 404 when absent or another account's; 422 for a value that does not fit. Nothing changes then.
 */
export async function updateValue(
  deps: CustomFieldDeps,
  accountId: string,
  current: CustomFieldView,
  value: unknown,
): Promise<CustomFieldView> {
  const definition = await findDefinitionBySlug(deps.db, accountId, current.apiSlug);
  if (!definition) throw ApiError.notFound("Couldn't find CustomField");
  const typed = await typedValue(deps.db, accountId, definition, value);
  await deps.db
    .update(customFields)
    .set({ value: typed, updatedAt: toIsoSeconds(deps.clock.now()) })
    .where(and(ownedBy(customFields.accountId, accountId), eq(customFields.id, current.id)));
  return getValue(deps.db, accountId, current.id);
}

/**
 * Deletes one value (its definition is untouched).
 * @throws nothing: deleting an id that is not there is the caller's 404 to raise first.
 */
export async function deleteValue(db: Database, accountId: string, id: string): Promise<void> {
  await db.delete(customFields).where(and(ownedBy(customFields.accountId, accountId), eq(customFields.id, id)));
}
