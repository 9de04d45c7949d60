/**
 * Public endpoints upstreams call back (issue 13 §4; src/callbacks/lifecycle.ts explains the flow). Mounted at
 * `/callbacks` outside `/v2`: no API key and no rate bucket of an account, since the upstream proves itself by
 * signing each body with the subscription's secret. Errors are JSON:API error documents like the rest of the API.
 *
 * - `POST /callbacks/dcsa/{subscriptionId}`: a DCSA TNT 2.2 event callback → 204, or 4xx/503 with nothing written
 *   (`handleDcsaCallback`).
 * - `GET` / `HEAD /callbacks/dcsa/{subscriptionId}`: the carrier's check that the callback URL answers (DCSA
 *   implementations probe it with a HEAD before creating the subscription) → 204 for a subscription we hold (the row
 *   exists before the carrier is asked), 404 otherwise.
 * - `POST /callbacks/port-of-virginia/{subscriptionId}/{token}`: a Port of Virginia availability push (issue 14) → 204,
 *   or 4xx/503 with nothing written (`handlePortOfVirginiaCallback`: the URL's token is the credential, the body only
 *   triggers a poll).
 *
 * Nobody is authenticated before a handler has looked the subscription up, so no route here reads a body up front:
 * a `Content-Length` over {@link MAX_CALLBACK_BODY_BYTES} is refused (413) by this sub-app's first middleware, and a
 * handler reads the body through {@link pendingBody} (never `c.req.arrayBuffer()` or `c.req.json()`) only once it
 * found the subscription, stopping at the limit whatever the framing (chunked, or a `Content-Length` that lies).
 */
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { declaredLength, type PendingBody, readBodyUpTo } from "../lib/request-body";
import { findLiveSubscription, handleDcsaCallback, MAX_CALLBACK_BODY_BYTES } from "./lifecycle";
import { handlePortOfVirginiaCallback } from "./port-of-virginia";

/** The `/callbacks` sub-app. */
export const callbackRoutes = new Hono<AppEnv>();

/** The request's body, read when the handler calls it, up to {@link MAX_CALLBACK_BODY_BYTES}. */
const pendingBody =
  (request: Request): PendingBody =>
  () =>
    readBodyUpTo(request, MAX_CALLBACK_BODY_BYTES);

callbackRoutes.use("*", async (c, next) => {
  const declared = declaredLength(c.req.raw.headers);
  if (declared !== undefined && declared > MAX_CALLBACK_BODY_BYTES) throw new ApiError(413, "The body is too large.");
  await next();
});

callbackRoutes.get("/dcsa/:subscriptionId", async (c) => {
  const row = await findLiveSubscription(c.env, "dcsa", c.req.param("subscriptionId"));
  if (!row) throw ApiError.notFound("No such subscription.");
  return c.body(null, 204);
});

callbackRoutes.post("/dcsa/:subscriptionId", async (c) => {
  const outcome = await handleDcsaCallback(
    { env: c.env, clock: c.get("clock") },
    c.req.param("subscriptionId"),
    c.req.raw.headers,
    pendingBody(c.req.raw),
  );
  if (outcome.status === 204) return c.body(null, 204);
  throw new ApiError(outcome.status, outcome.detail ?? "Refused.");
});

callbackRoutes.post("/port-of-virginia/:subscriptionId/:token", async (c) => {
  const outcome = await handlePortOfVirginiaCallback(
    { env: c.env, clock: c.get("clock") },
    c.req.param("subscriptionId"),
    c.req.param("token"),
    pendingBody(c.req.raw),
  );
  if (outcome.status === 204) return c.body(null, 204);
  throw new ApiError(outcome.status, outcome.detail ?? "Refused.");
});
