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
 */
import { Hono } from "hono";
import type { AppEnv } from "../env";
import { ApiError } from "../lib/errors";
import { findLiveSubscription, handleDcsaCallback, MAX_CALLBACK_BODY_BYTES } from "./lifecycle";
import { handlePortOfVirginiaCallback } from "./port-of-virginia";

/** The `/callbacks` sub-app. */
export const callbackRoutes = new Hono<AppEnv>();

callbackRoutes.get("/dcsa/:subscriptionId", async (c) => {
  const row = await findLiveSubscription(c.env, "dcsa", c.req.param("subscriptionId"));
  if (!row) throw ApiError.notFound("No such subscription.");
  return c.body(null, 204);
});

callbackRoutes.post("/dcsa/:subscriptionId", async (c) => {
  const declared = Number(c.req.header("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > MAX_CALLBACK_BODY_BYTES) {
    throw new ApiError(413, "The body is too large.");
  }
  const body = new Uint8Array(await c.req.arrayBuffer());
  const outcome = await handleDcsaCallback(
    { env: c.env, clock: c.get("clock") },
    c.req.param("subscriptionId"),
    c.req.raw.headers,
    body,
  );
  if (outcome.status === 204) return c.body(null, 204);
  throw new ApiError(outcome.status, outcome.detail ?? "Refused.");
});

callbackRoutes.post("/port-of-virginia/:subscriptionId/:token", async (c) => {
  const declared = Number(c.req.header("Content-Length") ?? "0");
  if (Number.isFinite(declared) && declared > MAX_CALLBACK_BODY_BYTES) {
    throw new ApiError(413, "The body is too large.");
  }
  const body = new Uint8Array(await c.req.arrayBuffer());
  const outcome = await handlePortOfVirginiaCallback(
    { env: c.env, clock: c.get("clock") },
    c.req.param("subscriptionId"),
    c.req.param("token"),
    body,
  );
  if (outcome.status === 204) return c.body(null, 204);
  throw new ApiError(outcome.status, outcome.detail ?? "Refused.");
});
