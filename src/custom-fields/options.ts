import { and, eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { customFieldOptions } from "../db/schema";
import { toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { newId } from "../lib/ids";
import { ownedBy } from "../lib/tenant";
import { type CustomFieldDeps, getDefinition, type OptionRow } from "./definitions";

/** Attributes of `POST /custom_field_definitions/{definition_id}/options` (docs/api.md §Custom fields). */
export interface CreateOptionInput {
  label: string;
  value: string;
  position?: number | null;
}

/** Attributes of the option PATCH: `value` never changes, so stored values keep naming their option. */
export interface UpdateOptionInput {
  label?: string;
  position?: number | null;
}

function label(text: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw ApiError.invalidField("/data/attributes/label", "can't be blank", "blank");
  return trimmed;
}

/**
 * The options of a definition of the account, in display order (`position`, then creation).
 * @throws ApiError 404 when the definition is unknown or another account's.
 */
export async function listOptions(db: Database, accountId: string, definitionId: string): Promise<OptionRow[]> {
  return (await getDefinition(db, accountId, definitionId)).options;
}

/**
 * One option of a definition of the account.
 * @throws ApiError 404 when the definition or the option is unknown, or another account's.
 */
export async function getOption(db: Database, accountId: string, definitionId: string, id: string): Promise<OptionRow> {
  const option = (await getDefinition(db, accountId, definitionId)).options.find((o) => o.id === id);
  if (!option) throw ApiError.notFound("Couldn't find CustomFieldOption");
  return option;
}

/**
 * Adds an option to an `enum` / `enum_multi` definition (docs/api.md §Custom fields).
 * @throws ApiError 404 (definition), 422 when the definition has another data type (`/data/type`), the label is
 *   blank, or the value is blank or already an option of the definition (`taken`). Nothing is written.
 */
export async function createOption(
  deps: CustomFieldDeps,
  accountId: string,
  definitionId: string,
  input: CreateOptionInput,
): Promise<OptionRow> {
  const definition = await getDefinition(deps.db, accountId, definitionId);
  if (definition.dataType !== "enum" && definition.dataType !== "enum_multi") {
    throw ApiError.invalidField(
      "/data/type",
      `options exist only for enum and enum_multi fields; this field is ${definition.dataType}`,
      "invalid",
    );
  }
  if (input.value.trim() === "") throw ApiError.invalidField("/data/attributes/value", "can't be blank", "blank");
  if (definition.options.some((o) => o.value === input.value)) {
    throw ApiError.invalidField("/data/attributes/value", "has already been taken", "taken");
  }
  const row: OptionRow = {
    id: newId(),
    accountId,
    definitionId,
    label: label(input.label),
    value: input.value,
    position: input.position ?? null,
    createdAt: toIsoSeconds(deps.clock.now()),
  };
  try {
    await deps.db.insert(customFieldOptions).values(row);
  } catch (err) {
    if (String((err as Error).message).includes("UNIQUE")) {
      throw ApiError.invalidField("/data/attributes/value", "has already been taken", "taken");
    }
    throw err;
  }
  return row;
}

/**
 * Changes an option's label or position; values using it show the new label at once (display is computed on read).
 * @throws ApiError 404 (definition or option), 422 blank label.
 */
export async function updateOption(
  db: Database,
  accountId: string,
  definitionId: string,
  id: string,
  input: UpdateOptionInput,
): Promise<OptionRow> {
  const current = await getOption(db, accountId, definitionId, id);
  const set: Partial<OptionRow> = {};
  if (input.label !== undefined) set.label = label(input.label);
  if (input.position !== undefined) set.position = input.position;
  if (Object.keys(set).length === 0) return current;
  const [row] = await db
    .update(customFieldOptions)
    .set(set)
    .where(and(ownedBy(customFieldOptions.accountId, accountId), eq(customFieldOptions.id, id)))
    .returning();
  if (!row) throw ApiError.notFound("Couldn't find CustomFieldOption");
  return row;
}

/**
 * Deletes an option. As the reference documents, values already using it are not rewritten: they keep the stored
 * value, shown as such (there is no label any more); new writes can no longer use it (docs/api.md §Custom fields).
 * @throws ApiError 404 (definition or option).
 */
export async function deleteOption(db: Database, accountId: string, definitionId: string, id: string): Promise<void> {
  await getOption(db, accountId, definitionId, id);
  await db
    .delete(customFieldOptions)
    .where(and(ownedBy(customFieldOptions.accountId, accountId), eq(customFieldOptions.id, id)));
}
