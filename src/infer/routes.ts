import { createRoute, OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { bodyErrors, commonErrors, jsonApiContent, jsonBodyContent, sendJsonApi } from "../lib/openapi";
import { InvalidReferenceNumber } from "./classify";
import { InferNumberBody, InferNumberDocument } from "./schemas";
import { serializeInferResult } from "./serializer";
import { inferNumber } from "./service";

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

/** `POST /tracking_requests/infer_number` (docs/api.md §Infer number, docs/decisions.md §Infer number). */
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
  return sendJsonApi(c, {
    data: { id: `req_${crypto.randomUUID()}`, type: "infer_number_results", attributes: serializeInferResult(result) },
  });
});
