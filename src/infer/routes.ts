import { createRoute, OpenAPIHono, z } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { bodyErrors, commonErrors, jsonApiContent, jsonBodyContent, sendJsonApi } from "../lib/openapi";
import { InvalidReferenceNumber } from "./classify";
import { inferNumber } from "./service";

/** Longest `number` accepted by the schema; the classifier rejects anything over 40 after normalisation. */
const MAX_BODY_NUMBER_LENGTH = 100;

/** Body of `POST /tracking_requests/infer_number`: plain JSON, not JSON:API (R §3.10). */
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

/** `infer_number_results` (R §1.15). */
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

const inferRouteDef = createRoute({
  method: "post",
  path: "/tracking_requests/infer_number",
  tags: ["Tracking requests"],
  summary: "Infer a number's type and shipping line (beta)",
  description:
    "Classifies a bare number (container, bill_of_lading, booking), validates it (ISO 6346 check digit for containers) and predicts its shipping line from this service's tracking history and the carrier reference tables. `auto_select` at confidence ≥ 0.95, `needs_confirmation` ≥ 0.70, else `no_prediction`. Garbage (empty, over 40 characters, no letter or digit) → 422. Own rate bucket: 200 per minute.",
  request: { body: { content: jsonBodyContent(InferNumberBody), required: true } },
  responses: {
    200: { description: "Classification and prediction.", content: jsonApiContent(InferNumberDocument) },
    ...commonErrors,
    ...bodyErrors,
  },
});

/** `POST /tracking_requests/infer_number` (SPEC.md §4.6, R §3.10, DECISIONS.md §Infer number). */
export const inferRoutes = new OpenAPIHono<AppEnv>().openapi(inferRouteDef, async (c) => {
  const { number } = c.req.valid("json");
  let result: Awaited<ReturnType<typeof inferNumber>>;
  try {
    result = await inferNumber(c.var.db, number);
  } catch (err) {
    if (err instanceof InvalidReferenceNumber) {
      throw new ApiError(422, [{ detail: "This reference number is not valid.", source: { pointer: "/number" } }]);
    }
    throw err;
  }
  const { classification: k, prediction: p } = result;
  return sendJsonApi(c, {
    data: {
      id: `req_${crypto.randomUUID()}`,
      type: "infer_number_results",
      attributes: {
        number_type: k.numberType,
        validation: {
          is_valid: k.validation.isValid,
          type: k.validation.type,
          check_digit_passed: k.validation.checkDigitPassed,
          parsed_number: null,
          reason: k.validation.reason,
        },
        shipping_line: { decision: p.decision, selected: p.selected, candidates: p.candidates },
      },
    },
  });
});
