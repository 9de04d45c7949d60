import { index, integer, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * Custom field definitions (docs/api.md §Custom fields): a typed field an account adds to its shipments, containers or
 * tracking requests. `api_slug` is unique within the account (whatever the entity type), so a slug names one
 * definition on every value route. `validation` and `default_value` are JSON; `entity_type`, `api_slug` and
 * `data_type` never change after creation.
 */
export const customFieldDefinitions = sqliteTable(
  "custom_field_definitions",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** `Shipment`, `Container` or `TrackingRequest`. */
    entityType: text("entity_type").notNull(),
    apiSlug: text("api_slug").notNull(),
    displayName: text("display_name").notNull(),
    description: text("description"),
    /** `short_text`, `number`, `date`, `datetime`, `boolean`, `enum`, `enum_multi` or `reference`. */
    dataType: text("data_type").notNull(),
    referenceType: text("reference_type"),
    validation: text("validation", { mode: "json" }).$type<Record<string, unknown> | null>(),
    defaultFormat: text("default_format"),
    defaultValue: text("default_value", { mode: "json" }).$type<unknown>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("custom_field_definitions_account_slug_idx").on(t.accountId, t.apiSlug),
    index("custom_field_definitions_account_created_idx").on(t.accountId, t.createdAt, t.id),
  ],
);

/** Allowed values of an `enum` / `enum_multi` definition; `value` is unique within its definition. */
export const customFieldOptions = sqliteTable(
  "custom_field_options",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    definitionId: text("definition_id")
      .notNull()
      .references(() => customFieldDefinitions.id),
    label: text("label").notNull(),
    value: text("value").notNull(),
    position: integer("position"),
    createdAt: text("created_at").notNull(),
  },
  (t) => [uniqueIndex("custom_field_options_definition_value_idx").on(t.definitionId, t.value)],
);

/**
 * Custom field values: one value of one definition on one entity (`entity_type` `shipment`, `container` or
 * `tracking_request`); at most one per (entity, definition). `value` is the JSON of the typed value.
 */
export const customFields = sqliteTable(
  "custom_fields",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    definitionId: text("definition_id")
      .notNull()
      .references(() => customFieldDefinitions.id),
    entityType: text("entity_type").notNull(),
    entityId: text("entity_id").notNull(),
    value: text("value", { mode: "json" }).$type<unknown>(),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
  },
  (t) => [
    uniqueIndex("custom_fields_entity_definition_idx").on(t.entityType, t.entityId, t.definitionId),
    index("custom_fields_definition_idx").on(t.definitionId),
    index("custom_fields_account_created_idx").on(t.accountId, t.createdAt, t.id),
  ],
);

/**
 * A tracking request's `initial_custom_fields` as stored (docs/api.md §Custom fields): definition ids (checked at
 * create) and typed values; a container entry's `number` targets one container, null every container.
 */
export interface StagedCustomFields {
  shipment: { definitionId: string; value: unknown }[];
  containers: { definitionId: string; value: unknown; number: string | null }[];
}
