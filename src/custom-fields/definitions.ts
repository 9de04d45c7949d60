import { and, asc, count, eq, inArray, type SQL, sql } from "drizzle-orm";
import type { Database } from "../db/client";
import { customFieldDefinitions, customFieldOptions, customFields } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import type { PageRequest } from "../lib/jsonapi/pagination";
import { ownedBy } from "../lib/tenant";
import { checkValue, type DataType, type DefinitionEntityType, type OptionLabel } from "./value-types";

/** A `custom_field_definitions` row as drizzle returns it. */
export type DefinitionRow = typeof customFieldDefinitions.$inferSelect;
/** A `custom_field_options` row. */
export type OptionRow = typeof customFieldOptions.$inferSelect;

/** A definition with its options (by `position`, then creation), the shape serializers and value checks use. */
export interface DefinitionView extends DefinitionRow {
  options: OptionRow[];
}

/** Services' dependencies. */
export interface CustomFieldDeps {
  db: Database;
  clock: Clock;
}

/** Attributes of `POST /custom_field_definitions` (docs/api.md §Custom fields). */
export interface CreateDefinitionInput {
  entityType: DefinitionEntityType;
  apiSlug: string;
  displayName: string;
  dataType: DataType;
  description?: string | null;
  referenceType?: string | null;
  validation?: Record<string, unknown> | null;
  defaultFormat?: string | null;
  defaultValue?: unknown;
}

/** Attributes of `PATCH /custom_field_definitions/{id}`: only these change (docs/api.md §Custom fields). */
export interface UpdateDefinitionInput {
  displayName?: string;
  description?: string | null;
  validation?: Record<string, unknown> | null;
  defaultFormat?: string | null;
  defaultValue?: unknown;
}

/** Filters of `GET /custom_field_definitions`: `display_name` is a prefix, compared without case. */
export interface DefinitionFilters {
  entityType?: DefinitionEntityType;
  dataType?: DataType;
  displayName?: string;
}

const orderOf = (o: OptionRow[]) =>
  [...o].sort((a, b) => (a.position ?? Infinity) - (b.position ?? Infinity) || a.createdAt.localeCompare(b.createdAt));

/** The options of `definitionIds` (account-scoped), grouped by definition, each group in display order. */
export async function optionsOf(
  db: Database,
  accountId: string,
  definitionIds: string[],
): Promise<Map<string, OptionRow[]>> {
  const byDefinition = new Map<string, OptionRow[]>(definitionIds.map((id) => [id, []]));
  if (definitionIds.length === 0) return byDefinition;
  const rows = await db
    .select()
    .from(customFieldOptions)
    .where(
      and(ownedBy(customFieldOptions.accountId, accountId), inArray(customFieldOptions.definitionId, definitionIds)),
    );
  for (const row of rows) byDefinition.get(row.definitionId)?.push(row);
  for (const [id, list] of byDefinition) byDefinition.set(id, orderOf(list));
  return byDefinition;
}

async function withOptions(db: Database, accountId: string, rows: DefinitionRow[]): Promise<DefinitionView[]> {
  const options = await optionsOf(
    db,
    accountId,
    rows.map((r) => r.id),
  );
  return rows.map((r) => ({ ...r, options: options.get(r.id) ?? [] }));
}

/** `{value, label}` of a definition's options, for {@link checkValue} and display. */
export function optionLabels(definition: DefinitionView): OptionLabel[] {
  return definition.options.map((o) => ({ value: o.value, label: o.label }));
}

/**
 * One definition of the account with its options.
 * @throws ApiError 404 "Couldn't find CustomFieldDefinition" when absent or another account's.
 */
export async function getDefinition(db: Database, accountId: string, id: string): Promise<DefinitionView> {
  const [row] = await db
    .select()
    .from(customFieldDefinitions)
    .where(and(ownedBy(customFieldDefinitions.accountId, accountId), eq(customFieldDefinitions.id, id)))
    .limit(1);
  if (!row) throw ApiError.notFound("Couldn't find CustomFieldDefinition");
  const [view] = await withOptions(db, accountId, [row]);
  return view as DefinitionView;
}

/** The account's definition named by `apiSlug`, with its options, or null. */
export async function findDefinitionBySlug(
  db: Database,
  accountId: string,
  apiSlug: string,
): Promise<DefinitionView | null> {
  const [row] = await db
    .select()
    .from(customFieldDefinitions)
    .where(and(eq(customFieldDefinitions.accountId, accountId), eq(customFieldDefinitions.apiSlug, apiSlug)))
    .limit(1);
  if (!row) return null;
  const [view] = await withOptions(db, accountId, [row]);
  return view ?? null;
}

/**
 * A page of the account's definitions, oldest first (the reference's captured order), with the number matching
 * (`GET /custom_field_definitions`, docs/api.md §Custom fields).
 */
export async function listDefinitions(
  db: Database,
  accountId: string,
  filters: DefinitionFilters,
  page: PageRequest,
): Promise<{ rows: DefinitionView[]; total: number }> {
  const conditions: SQL[] = [eq(customFieldDefinitions.accountId, accountId)];
  if (filters.entityType) conditions.push(eq(customFieldDefinitions.entityType, filters.entityType));
  if (filters.dataType) conditions.push(eq(customFieldDefinitions.dataType, filters.dataType));
  if (filters.displayName !== undefined) {
    const escaped = filters.displayName.replace(/[\\%_]/g, (ch) => `\\${ch}`);
    conditions.push(sql`${customFieldDefinitions.displayName} LIKE ${`${escaped}%`} ESCAPE '\\'`);
  }
  const where = and(...conditions);
  const [rows, totals] = await db.batch([
    db
      .select()
      .from(customFieldDefinitions)
      .where(where)
      .orderBy(asc(customFieldDefinitions.createdAt), asc(customFieldDefinitions.id))
      .limit(page.size)
      .offset(page.offset),
    db.select({ n: count() }).from(customFieldDefinitions).where(where),
  ]);
  return { rows: await withOptions(db, accountId, rows), total: totals[0]?.n ?? 0 };
}

function checkDefault(defaultValue: unknown, definition: DefinitionView): unknown {
  if (defaultValue === undefined) return undefined;
  return checkValue(
    defaultValue,
    { ...definition, validation: null },
    optionLabels(definition),
    "/data/attributes/default_value",
  );
}

/**
 * Creates a definition (`POST /custom_field_definitions`, docs/api.md §Custom fields). `reference_type` is required
 * for a `reference` definition and refused for any other; `default_value` must be a value of the type (an `enum`
 * default can only be set once options exist, with PATCH).
 * @throws ApiError 422: `api_slug` already used in the account (code `taken`), `reference_type` missing or misplaced,
 *   a `default_value` that is not a value of the type. Nothing is written.
 */
export async function createDefinition(
  deps: CustomFieldDeps,
  accountId: string,
  input: CreateDefinitionInput,
): Promise<DefinitionView> {
  const { db } = deps;
  const pointer = "/data/attributes/reference_type";
  if (input.dataType === "reference" && !input.referenceType) {
    throw ApiError.invalidField(pointer, "is required for a reference field", "blank");
  }
  if (input.dataType !== "reference" && input.referenceType) {
    throw ApiError.invalidField(pointer, "is only allowed for a reference field", "invalid");
  }
  const now = toIsoSeconds(deps.clock.now());
  const row: DefinitionRow = {
    id: newId(),
    accountId,
    entityType: input.entityType,
    apiSlug: input.apiSlug,
    displayName: input.displayName.trim(),
    description: input.description ?? null,
    dataType: input.dataType,
    referenceType: input.referenceType ?? null,
    validation: input.validation ?? null,
    defaultFormat: input.defaultFormat ?? null,
    defaultValue: null,
    createdAt: now,
    updatedAt: now,
  };
  if (row.displayName === "") throw ApiError.invalidField("/data/attributes/display_name", "can't be blank", "blank");
  const view: DefinitionView = { ...row, options: [] };
  row.defaultValue = checkDefault(input.defaultValue, view) ?? null;
  const [taken] = await db
    .select({ id: customFieldDefinitions.id })
    .from(customFieldDefinitions)
    .where(and(eq(customFieldDefinitions.accountId, accountId), eq(customFieldDefinitions.apiSlug, input.apiSlug)))
    .limit(1);
  if (taken) throw ApiError.invalidField("/data/attributes/api_slug", "has already been taken", "taken");
  try {
    await db.insert(customFieldDefinitions).values(row);
  } catch (err) {
    if (String((err as Error).message).includes("UNIQUE")) {
      throw ApiError.invalidField("/data/attributes/api_slug", "has already been taken", "taken");
    }
    throw err;
  }
  return { ...row, options: [] };
}

/**
 * Updates a definition's display attributes (`PATCH /custom_field_definitions/{id}`, docs/api.md §Custom fields).
 * `api_slug`, `entity_type`, `data_type` and `reference_type` never change (the body schema refuses them), so stored
 * values keep fitting their definition; new `validation` rules apply to later writes only.
 * @throws ApiError 404 when unknown or another account's; 422 for a blank name or a bad `default_value`.
 */
export async function updateDefinition(
  deps: CustomFieldDeps,
  accountId: string,
  id: string,
  input: UpdateDefinitionInput,
): Promise<DefinitionView> {
  const current = await getDefinition(deps.db, accountId, id);
  const set: Partial<DefinitionRow> = { updatedAt: toIsoSeconds(deps.clock.now()) };
  if (input.displayName !== undefined) {
    set.displayName = input.displayName.trim();
    if (set.displayName === "") throw ApiError.invalidField("/data/attributes/display_name", "can't be blank", "blank");
  }
  if (input.description !== undefined) set.description = input.description;
  if (input.validation !== undefined) set.validation = input.validation;
  if (input.defaultFormat !== undefined) set.defaultFormat = input.defaultFormat;
  if (input.defaultValue !== undefined) set.defaultValue = checkDefault(input.defaultValue, current) ?? null;
  const [row] = await deps.db
    .update(customFieldDefinitions)
    .set(set)
    .where(and(ownedBy(customFieldDefinitions.accountId, accountId), eq(customFieldDefinitions.id, id)))
    .returning();
  if (!row) throw ApiError.notFound("Couldn't find CustomFieldDefinition");
  return { ...row, options: current.options };
}

/**
 * Deletes a definition with all its values and options in one D1 batch (`DELETE /custom_field_definitions/{id}`,
 * docs/api.md §Custom fields), so no value of it is ever readable without it.
 * @throws ApiError 404 when unknown or another account's.
 */
export async function deleteDefinition(db: Database, accountId: string, id: string): Promise<void> {
  await getDefinition(db, accountId, id);
  const owned = and(eq(customFields.accountId, accountId), eq(customFields.definitionId, id));
  await db.batch([
    db.delete(customFields).where(owned),
    db
      .delete(customFieldOptions)
      .where(and(eq(customFieldOptions.accountId, accountId), eq(customFieldOptions.definitionId, id))),
    db
      .delete(customFieldDefinitions)
      .where(and(eq(customFieldDefinitions.accountId, accountId), eq(customFieldDefinitions.id, id))),
  ]);
}
