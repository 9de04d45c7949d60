import { z } from "@hono/zod-openapi";

/** Longest `number` accepted by the schema; the classifier rejects anything over 40 after normalisation. */
const MAX_BODY_NUMBER_LENGTH = 100;

/** Body of `POST /tracking_requests/infer_number`: plain JSON, not JSON:API (docs/api.md §Infer number). */
export const InferNumberBody = z
  .strictObject({
    number: z.string().max(MAX_BODY_NUMBER_LENGTH).openapi({ example: "WHLU1234560" }),
  })
  .openapi("InferNumberBody");

const CandidateSchema = z
  .object({
    scac: z.string().openapi({ example: "WHLC" }),
    name: z.string().openapi({ example: "Wan Hai Lines" }),
    confidence: z.number().min(0).max(1).openapi({ example: 0.96 }),
  })
  .openapi("InferNumberCandidate");

/** `infer_number_results` (docs/api.md §Infer number). */
export const InferNumberDocument = z
  .object({
    data: z.object({
      id: z.string().openapi({ example: "req_123e4567-e89b-12d3-a456-426614174000" }),
      type: z.literal("infer_number_results"),
      attributes: z.object({
        number_type: z.enum(["container", "bill_of_lading", "booking"]),
        validation: z.object({
          is_valid: z.boolean().nullable().openapi({ description: "true valid, false invalid, null unknown" }),
          type: z.enum(["container", "shipment"]),
          check_digit_passed: z
            .boolean()
            .nullable()
            .openapi({ description: "ISO 6346 check digit (containers); null for other number types." }),
          parsed_number: z.null(),
          reason: z.string().nullable().openapi({ example: "Invalid check digit" }),
        }),
        shipping_line: z.object({
          decision: z.enum(["auto_select", "needs_confirmation", "no_prediction"]),
          selected: CandidateSchema.nullable(),
          candidates: z.array(CandidateSchema),
        }),
      }),
    }),
  })
  .openapi("InferNumberResults");

/** The attributes of an `infer_number_results` resource, as `serializeInferResult` writes them. */
export type InferNumberAttributes = z.infer<typeof InferNumberDocument>["data"]["attributes"];
