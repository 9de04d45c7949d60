import { registerResourceType } from "../lib/jsonapi/include-registry";
import type { ResourceObject } from "../lib/jsonapi/types";
import type { DefinitionView, OptionRow } from "./definitions";
import type { CustomFieldView } from "./values";

/**
 * Serialises a custom field definition (docs/api.md §Custom fields) in the reference's shape: its attributes, and
 * relationships `account` (`{data: null}`, as the reference sends it) and `options` (linkage, in display order).
 */
export function serializeDefinition(row: DefinitionView): ResourceObject {
  return {
    id: row.id,
    type: "custom_field_definition",
    attributes: {
      entity_type: row.entityType,
      api_slug: row.apiSlug,
      display_name: row.displayName,
      description: row.description,
      data_type: row.dataType,
      reference_type: row.referenceType,
      validation: row.validation,
      default_format: row.defaultFormat,
      default_value: row.defaultValue ?? null,
      template_id: null,
      created_at: row.createdAt,
      updated_at: row.updatedAt,
    },
    relationships: {
      account: { data: null },
      options: { data: row.options.map((o) => ({ id: o.id, type: "custom_field_option" })) },
    },
  };
}

/** Serialises an option of an `enum` / `enum_multi` definition: `{label, value, position}`. */
export function serializeOption(row: OptionRow): ResourceObject {
  return {
    id: row.id,
    type: "custom_field_option",
    attributes: { label: row.label, value: row.value, position: row.position },
  };
}

/**
 * Serialises a custom field value (docs/api.md §Custom fields): `{api_slug, value, display_value}`, relationships
 * `entity` (`shipment` / `container` / `tracking_request`) and `definition`.
 */
export function serializeCustomField(row: CustomFieldView): ResourceObject {
  return {
    id: row.id,
    type: "custom_field",
    attributes: { api_slug: row.apiSlug, value: row.value ?? null, display_value: row.displayValue },
    relationships: {
      entity: { data: { id: row.entityId, type: row.entityType } },
      definition: { data: { id: row.definitionId, type: "custom_field_definition" } },
    },
  };
}

/** JSON:API type `custom_field_definition`. */
export const customFieldDefinitionResource = registerResourceType<DefinitionView>({
  type: "custom_field_definition",
  serializerName: "V2::CustomFieldDefinitionSerializer",
  serialize: serializeDefinition,
  relationships: {},
});

/** JSON:API type `custom_field_option`. */
export const customFieldOptionResource = registerResourceType<OptionRow>({
  type: "custom_field_option",
  serializerName: "V2::CustomFieldOptionSerializer",
  serialize: serializeOption,
  relationships: {},
});

/** JSON:API type `custom_field`. */
export const customFieldResource = registerResourceType<CustomFieldView>({
  type: "custom_field",
  serializerName: "V2::CustomFieldSerializer",
  serialize: serializeCustomField,
  relationships: {},
});
