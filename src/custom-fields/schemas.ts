import { z } from "@hono/zod-openapi";
import { resourceSchema } from "../lib/openapi";
import { freeText } from "../lib/validation";
import { API_SLUG_PATTERN, DATA_TYPES, MAX_TEXT_LENGTH, VALUE_ENTITY_TYPES } from "./value-types";

/**
 * `entity_type` of a definition's create body and list filter: `Shipment`, `Container` (the reference's real bodies
 * say `Cargo`, accepted as the same) or `TrackingRequest` (docs/api.md §Custom fields).
 */
export const EntityTypeInput = z
  .enum(["Shipment", "Container", "Cargo", "TrackingRequest"])
  .transform((t) => (t === "Cargo" ? "Container" : t));

/**
 * A quantified group holding a quantifier (`(a+)+`, `(\\w*)*`, `(x{2,}){3}`): the shape of patterns whose matching can
 * take exponential time (ReDoS); refused so that a definition cannot make every later write burn the Worker's CPU.
 */
const NESTED_QUANTIFIER = /\([^)]*[+*}][^)]*\)\s*[+*{?]/;
/** A backreference (`\\1`, `\\k<name>`), refused for the same reason. */
const BACKREFERENCE = /\\[1-9]|\\k</;

/** The `validation` rules of a definition: `required`, and for text `pattern` (a regular expression) and `max_length`. */
export const ValidationInput = z
  .strictObject({
    required: z.boolean().optional(),
    pattern: z
      .string()
      .max(200)
      .refine(
        (p) => {
          try {
            new RegExp(p, "u");
            return true;
          } catch {
            return false;
          }
        },
        { error: "must be a valid regular expression" },
      )
      .refine((p) => !NESTED_QUANTIFIER.test(p) && !BACKREFERENCE.test(p), {
        error: "must not repeat a group that itself repeats, nor use backreferences (they can take exponential time)",
      })
      .optional(),
    max_length: z.number().int().min(1).max(MAX_TEXT_LENGTH).optional(),
  })
  .nullable();

/** A custom field value in a request: string, number, boolean, string array, object, or null (checked by type later). */
export const ValueInput = z.union([
  z.string(),
  z.number(),
  z.boolean(),
  z.array(z.string()),
  z.record(z.string(), z.unknown()),
  z.null(),
]);

const definitionAttributes = {
  display_name: freeText(255),
  description: freeText(1000).nullable().optional(),
  validation: ValidationInput.optional(),
  default_format: freeText(100).nullable().optional(),
  default_value: ValueInput.optional(),
};

/** Body of `POST /custom_field_definitions`. */
export const CreateDefinitionBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("custom_field_definition"),
      attributes: z.strictObject({
        entity_type: EntityTypeInput,
        api_slug: z.string().regex(API_SLUG_PATTERN, {
          error: "must start with a lower-case letter and hold only a-z, 0-9 and _ (at most 64 characters)",
        }),
        data_type: z.enum(DATA_TYPES),
        reference_type: z.enum(VALUE_ENTITY_TYPES).nullable().optional(),
        ...definitionAttributes,
      }),
    }),
  })
  .openapi("CreateCustomFieldDefinition");

/** Body of `PATCH /custom_field_definitions/{id}`: `api_slug`, `entity_type`, `data_type` cannot change. */
export const UpdateDefinitionBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("custom_field_definition"),
      id: z.string().optional(),
      attributes: z.strictObject({ ...definitionAttributes, display_name: freeText(255).optional() }),
    }),
  })
  .openapi("UpdateCustomFieldDefinition");

/** Body of the option create. */
export const CreateOptionBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("custom_field_option"),
      attributes: z.strictObject({
        label: freeText(255),
        value: freeText(255),
        position: z.number().int().min(0).max(1_000_000).nullable().optional(),
      }),
    }),
  })
  .openapi("CreateCustomFieldOption");

/** Body of the option PATCH: `label` and `position` (an option's `value` never changes). */
export const UpdateOptionBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("custom_field_option"),
      id: z.string().optional(),
      attributes: z.strictObject({
        label: freeText(255).optional(),
        position: z.number().int().min(0).max(1_000_000).nullable().optional(),
      }),
    }),
  })
  .openapi("UpdateCustomFieldOption");

/** Body of the per-entity POST (upsert by slug); the entity is the path's. */
export const EntityValueBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("custom_field"),
      attributes: z.strictObject({ api_slug: z.string().max(64), value: ValueInput }),
    }),
  })
  .openapi("UpsertCustomField");

/** Body of `POST /custom_fields`: the entity as a relationship (`shipment` or `container`). */
export const CreateValueBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("custom_field"),
      attributes: z.strictObject({ api_slug: z.string().max(64), value: ValueInput }),
      relationships: z.strictObject({
        entity: z.strictObject({
          data: z.strictObject({ type: z.enum(["shipment", "container"]), id: z.string().max(64) }),
        }),
      }),
    }),
  })
  .openapi("CreateCustomField");

/** Body of the value PATCHes: the value only. */
export const UpdateValueBody = z
  .strictObject({
    data: z.strictObject({
      type: z.literal("custom_field"),
      id: z.string().optional(),
      attributes: z.strictObject({ value: ValueInput }),
    }),
  })
  .openapi("UpdateCustomField");

export const DefinitionSchema = resourceSchema(
  "custom_field_definition",
  z.object({
    entity_type: z.string(),
    api_slug: z.string(),
    display_name: z.string(),
    description: z.string().nullable(),
    data_type: z.string(),
    reference_type: z.string().nullable(),
    validation: z.record(z.string(), z.unknown()).nullable(),
    default_format: z.string().nullable(),
    default_value: z.unknown(),
    template_id: z.string().nullable(),
    created_at: z.string(),
    updated_at: z.string(),
  }),
  "CustomFieldDefinition",
);

export const OptionSchema = resourceSchema(
  "custom_field_option",
  z.object({ label: z.string(), value: z.string(), position: z.number().int().nullable() }),
  "CustomFieldOption",
);

export const CustomFieldSchema = resourceSchema(
  "custom_field",
  z.object({ api_slug: z.string(), value: z.unknown(), display_value: z.string().nullable() }),
  "CustomField",
);
