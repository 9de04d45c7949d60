/**
 * TNT 2.2 event subscriptions (`/v2/event-subscriptions`, issue 13 §4): the carrier POSTs new events of a tracked
 * reference to our callback, besides polling (src/callbacks/lifecycle.ts creates and deletes them).
 */
import { z } from "zod";
import { createTokenBroker, type TokenBroker } from "../auth";
import { type SubscriptionCallAnswer, sendSubscriptionCall } from "../subscription-call";
import type { SourceContext } from "../types";
import { filterFor } from "./client";
import { DCSA_API_VERSION, DCSA_TIMEOUT_MS, type DcsaSourceConfig, type DcsaSourceOptions } from "./config";

/** What a subscription covers and where its events go. */
export interface DcsaSubscriptionRequest {
  /** `request_type` of the tracked reference: `container`, `booking_number`/`booking`, or a BL. */
  requestType: string;
  /** The number, as polled (`equipmentReference` / `carrierBookingReference` / `transportDocumentReference`). */
  number: string;
  /** Our callback endpoint (`callbackUrl`). */
  callbackUrl: string;
  /** The shared signing secret, base64 (TNT 2.2 `secret`, `format: byte`): sent once, in this POST only. */
  secretBase64: string;
}

/** Outcome of a subscription call to the carrier; `error` says why in words without any secret. */
export type DcsaSubscriptionOutcome =
  | { kind: "created"; subscriptionId: string }
  | { kind: "deleted" }
  | { kind: "failed"; error: string };

const createdSubscriptionSchema = z.object({ subscriptionID: z.string().min(1).max(200) }).passthrough();

function subscriptionCall(
  scac: string,
  config: DcsaSourceConfig,
  url: string,
  init: { method: "POST" | "DELETE"; body?: string },
  ctx: SourceContext,
  tokens: TokenBroker,
  timeoutMs: number,
): Promise<SubscriptionCallAnswer> {
  return sendSubscriptionCall(
    {
      url,
      ...init,
      headers: new Headers({ "API-Version": DCSA_API_VERSION, Accept: "application/json" }),
      timeoutMs,
      auth: { credentials: config.auth, tokens },
      label: `DCSA ${scac}`,
    },
    ctx,
  );
}

/**
 * Creates a TNT 2.2 event subscription at the carrier: `POST {baseUrl}/v2/event-subscriptions` with
 * `subscriptionBodyWithSecret` = `{callbackUrl, secret, eventType: ["TRANSPORT","EQUIPMENT"], <filter>: number}`,
 * the filter being the one polling uses ({@link filterFor}); TNT 2.2 ANDs the filters, so the subscription covers
 * exactly the tracked reference. SHIPMENT events are left out: they produce no milestone here. Expects `201` with a
 * `subscription` carrying `subscriptionID` (any 2xx with one is accepted). Auth as for polling (`authorizedFetch`).
 * Never throws; a refusal, an unreachable carrier or an answer without `subscriptionID` is `failed` with a reason
 * (status code or kind, never the body or a secret).
 */
export async function createDcsaSubscription(
  scac: string,
  config: DcsaSourceConfig,
  request: DcsaSubscriptionRequest,
  ctx: SourceContext,
  options: Pick<DcsaSourceOptions, "tokens" | "timeoutMs"> = {},
): Promise<DcsaSubscriptionOutcome> {
  const body = JSON.stringify({
    callbackUrl: request.callbackUrl,
    secret: request.secretBase64,
    eventType: ["TRANSPORT", "EQUIPMENT"],
    [filterFor(request.requestType)]: request.number,
  });
  const answer = await subscriptionCall(
    scac,
    config,
    `${config.baseUrl}/v2/event-subscriptions`,
    { method: "POST", body },
    ctx,
    options.tokens ?? createTokenBroker(),
    options.timeoutMs ?? DCSA_TIMEOUT_MS,
  );
  if (answer.kind === "failed") return answer;
  if (answer.status < 200 || answer.status > 299) return { kind: "failed", error: `answered ${answer.status}` };
  let json: unknown;
  try {
    json = JSON.parse(answer.body);
  } catch {
    return { kind: "failed", error: "answered a body that is not JSON" };
  }
  const parsed = createdSubscriptionSchema.safeParse(json);
  if (!parsed.success) return { kind: "failed", error: "answered without a subscriptionID" };
  return { kind: "created", subscriptionId: parsed.data.subscriptionID };
}

/**
 * Stops a TNT 2.2 event subscription: `DELETE {baseUrl}/v2/event-subscriptions/{subscriptionID}`. `204` (or any
 * 2xx) and `404` (the carrier no longer has it) count as deleted. Never throws.
 */
export async function deleteDcsaSubscription(
  scac: string,
  config: DcsaSourceConfig,
  subscriptionId: string,
  ctx: SourceContext,
  options: Pick<DcsaSourceOptions, "tokens" | "timeoutMs"> = {},
): Promise<DcsaSubscriptionOutcome> {
  const answer = await subscriptionCall(
    scac,
    config,
    `${config.baseUrl}/v2/event-subscriptions/${encodeURIComponent(subscriptionId)}`,
    { method: "DELETE" },
    ctx,
    options.tokens ?? createTokenBroker(),
    options.timeoutMs ?? DCSA_TIMEOUT_MS,
  );
  if (answer.kind === "failed") return answer;
  if ((answer.status >= 200 && answer.status <= 299) || answer.status === 404) return { kind: "deleted" };
  return { kind: "failed", error: `answered ${answer.status}` };
}
