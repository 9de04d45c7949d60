import { WEBHOOK_TIMEOUT_MS } from "./schedule";
import { deliveryHeaders } from "./signature";
import { checkWebhookUrl } from "./ssrf";

/**
 * One HTTP attempt of a webhook delivery (docs/webhooks.md §Trigger's trigger answer is built from it).
 * - `succeeded`: the receiver answered exactly 200, 201, 202 or 204 (docs/decisions.md §Webhooks);
 * - `statusCode`: the HTTP status, null when there was no answer (refused URL, connection error, timeout);
 * - `latencyMs`: milliseconds from sending to the answer's body read (or to the failure);
 * - `error`: why it did not succeed (null on success), e.g. `HTTP 500`, `redirect (301) not followed`,
 *   `timeout: no answer within 15000 ms`, `connection failed: …`, `url not allowed (ip_literal_not_allowed): …`;
 * - `gone`: the receiver answered 410 Gone, which disables the webhook at once.
 * The optional fields describe the exchange for `POST /webhooks/trigger` (docs/webhooks.md §Trigger): the headers sent
 * (signatures included; the secret itself never appears), the response headers and the first {@link
 * RESPONSE_BODY_LIMIT} characters of the response body (null without a response).
 */
export interface WebhookAttempt {
  succeeded: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  gone: boolean;
  requestHeaders?: Record<string, string>;
  responseHeaders?: Record<string, string> | null;
  responseBody?: string | null;
}

/** What `sendWebhook` sends, and how. */
export interface SendWebhookInput {
  /** The webhook's URL; checked again against the SSRF rules before sending (docs/decisions.md §Webhooks). */
  url: string;
  /** Signing secret (`whsec_…`); null sends unsigned (trigger without a secret). */
  secret: string | null;
  /** Rotated-away secrets still in their grace period: extra `webhook-signature` entries (see `deliveryHeaders`). */
  previousSecrets?: readonly string[];
  /** The webhook's custom headers (reserved names are never overridden, see `deliveryHeaders`). */
  headers: { name: string; value: string }[];
  /** The notification id (`webhook-id`), the same on every retry. */
  notificationId: string;
  /** The exact JSON body, the same on every retry. */
  body: string;
  /** The fetch to use; defaults to the one set by {@link setWebhookFetch}, else the global fetch. */
  fetch?: typeof fetch;
  /** Per-attempt timeout in ms (default {@link WEBHOOK_TIMEOUT_MS}, 15 s). */
  timeoutMs?: number;
  /** Time of the attempt for `webhook-timestamp` (ms; default `Date.now()`). */
  nowMs?: number;
  /** Hosts allowed over `http://` (parsed `WEBHOOK_ALLOW_INSECURE_HOSTS`; local development only). */
  allowInsecureHosts?: readonly string[];
}

/**
 * Statuses that acknowledge a delivery (docs/decisions.md §Webhooks, docs/webhooks.md §Acknowledgement and retries).
 */
export const SUCCESS_STATUSES: ReadonlySet<number> = new Set([200, 201, 202, 204]);

/** Characters of the response body kept for the trigger endpoint's answer. */
export const RESPONSE_BODY_LIMIT = 4096;

let injectedFetch: typeof fetch | null = null;

/**
 * The outbound fetch seam of webhook deliveries. Everything that POSTs to a receiver (the `webhook-deliveries`
 * queue consumer, the DLQ consumer, `POST /webhooks/trigger`) goes through {@link sendWebhook}, which uses, in
 * order: its `fetch` argument, the fetch set here, the global fetch. Tests run the Worker in the same isolate as the
 * test file (the Workers Vitest pool), so a test sets a recording receiver here (`setWebhookFetch(receiver.fetch)`)
 * and every delivery the Worker makes — including those of real queue messages consumed in the background — reaches
 * it instead of the network; `setWebhookFetch(null)` restores the global fetch. Production never calls it. (Tracking
 * sources take their fetch the same way as an argument, `TrackingDeps.fetch`, defaulting to the global fetch.)
 */
export function setWebhookFetch(f: typeof fetch | null): void {
  injectedFetch = f;
}

/** The fetch deliveries use when none is passed: the one set by {@link setWebhookFetch}, else the global fetch. */
export function webhookFetch(): typeof fetch {
  return injectedFetch ?? ((input, init) => fetch(input, init));
}

function describeError(err: unknown): string {
  if (err instanceof Error) return err.message || err.name;
  return String(err);
}

async function readLimited(res: Response): Promise<string> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  try {
    while (text.length < RESPONSE_BODY_LIMIT) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    // Stop reading a large or endless body: only its start is kept.
    await reader.cancel().catch(() => undefined);
  }
  return text.slice(0, RESPONSE_BODY_LIMIT);
}

/**
 * POSTs one webhook delivery (docs/decisions.md §Webhooks): re-checks the URL with `checkWebhookUrl` (a URL that fails
 * is not contacted), signs the body (`deliveryHeaders`), sends it with `redirect: "manual"` (a redirect is a
 * failure, never followed) and an abort after `timeoutMs`. Never throws: every outcome is a {@link WebhookAttempt}.
 */
export async function sendWebhook(input: SendWebhookInput): Promise<WebhookAttempt> {
  const check = checkWebhookUrl(input.url, input.allowInsecureHosts ?? []);
  if (!check.ok) {
    return {
      succeeded: false,
      statusCode: null,
      latencyMs: 0,
      error: `url not allowed (${check.code}): ${check.detail}`,
      gone: false,
      requestHeaders: {},
      responseHeaders: null,
      responseBody: null,
    };
  }
  const timeoutMs = input.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const headerPairs = await deliveryHeaders({
    secret: input.secret,
    previousSecrets: input.previousSecrets,
    notificationId: input.notificationId,
    body: input.body,
    nowMs: input.nowMs ?? Date.now(),
    customHeaders: input.headers,
  });
  const requestHeaders = Object.fromEntries(headerPairs);
  const doFetch = input.fetch ?? webhookFetch();
  const controller = new AbortController();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const started = Date.now();
  try {
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        controller.abort(new Error(`no answer within ${timeoutMs} ms`));
        reject(new TimeoutError(timeoutMs));
      }, timeoutMs);
    });
    // The race also covers a fetch that ignores its signal, and a body that never ends.
    const exchange = (async () => {
      const res = await doFetch(check.url.href, {
        method: "POST",
        headers: headerPairs,
        body: input.body,
        redirect: "manual",
        signal: controller.signal,
      });
      const responseBody = await readLimited(res);
      return { res, responseBody };
    })();
    exchange.catch(() => undefined);
    const { res, responseBody } = await Promise.race([exchange, timeout]);
    const latencyMs = Date.now() - started;
    const status = res.status;
    const succeeded = SUCCESS_STATUSES.has(status);
    let error: string | null = null;
    if (!succeeded) {
      error = status >= 300 && status < 400 ? `redirect (${status}) not followed` : `HTTP ${status}`;
    }
    return {
      succeeded,
      statusCode: status === 0 ? null : status,
      latencyMs,
      error,
      gone: status === 410,
      requestHeaders,
      responseHeaders: Object.fromEntries(res.headers),
      responseBody,
    };
  } catch (err) {
    const latencyMs = Date.now() - started;
    const error =
      err instanceof TimeoutError
        ? `timeout: no answer within ${timeoutMs} ms`
        : `connection failed: ${describeError(err)}`;
    return {
      succeeded: false,
      statusCode: null,
      latencyMs,
      error,
      gone: false,
      requestHeaders,
      responseHeaders: null,
      responseBody: null,
    };
  } finally {
    if (timer !== undefined) clearTimeout(timer);
  }
}

class TimeoutError extends Error {
  constructor(ms: number) {
    super(`no answer within ${ms} ms`);
    this.name = "TimeoutError";
  }
}
