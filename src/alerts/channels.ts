import { type SmtpSettings, sendMail, smtpSettingsFromEnv } from "../lib/mail";
import { sendWebhook } from "../webhooks/send";
import { parseAllowInsecureHosts } from "../webhooks/ssrf";
import {
  type AlertFacts,
  alertEmail,
  type DigestFacts,
  digestEmail,
  slackMessage,
  teamsMessage,
  webhookAlertBody,
} from "./messages";

/**
 * Alert channels over their real protocols (issue 27 §2): Slack incoming webhooks (Block Kit JSON), Microsoft Teams
 * workflow webhooks (an Adaptive Card message), our signed webhook (the signing of every webhook delivery,
 * src/webhooks/signature.ts) — all three POSTed by `sendWebhook`, so the URL passes the webhook SSRF rules again
 * before every attempt, a redirect is a failure and the 15 s timeout applies — and e-mail over SMTP from the Worker
 * (`worker-mailer`, a TCP socket through `cloudflare:sockets`; plain text and HTML parts).
 */

/** The environment alert delivery reads: the SMTP settings and the webhook `http://` allow list. */
export type AlertTransportEnv = Partial<
  Pick<
    Env,
    | "SMTP_HOST"
    | "SMTP_PORT"
    | "SMTP_SECURITY"
    | "SMTP_USERNAME"
    | "SMTP_PASSWORD"
    | "ALERT_EMAIL_FROM"
    | "WEBHOOK_ALLOW_INSECURE_HOSTS"
  >
>;

/** Where a delivery goes: one channel of a rule (or a digest's copy of it). */
export interface ChannelTarget {
  type: string;
  /** The e-mail address, or the URL. */
  target: string;
  /** The webhook channel's signing secret. */
  secret: string | null;
}

/** The outcome of one attempt on a channel. */
export interface ChannelAttempt {
  succeeded: boolean;
  /** Why it failed (HTTP status, SMTP reply, refused URL …); null on success. */
  error: string | null;
  /** True when the receiver said it is gone for good (HTTP 410, or 404 from Slack/Teams for a deleted webhook). */
  gone: boolean;
}

/** What sending needs; tests inject local receivers through {@link setAlertTransport}. */
export interface TransportSettings {
  smtp: SmtpSettings | null;
  allowInsecureHosts: readonly string[];
  fetch?: typeof fetch;
}

let injected: Partial<TransportSettings> | null = null;

/**
 * The transport seam of alert deliveries, as `setWebhookFetch` is for webhooks: tests running the Worker in their
 * isolate point the SMTP relay and the allowed `http://` hosts at receivers they started on 127.0.0.1. `null`
 * restores the configuration from the environment. Production never calls it.
 */
export function setAlertTransport(settings: Partial<TransportSettings> | null): void {
  injected = settings;
}

/** The transport for this delivery run: the injected one over the environment's. */
export function transportSettings(env: AlertTransportEnv): TransportSettings {
  const allow = typeof env.WEBHOOK_ALLOW_INSECURE_HOSTS === "string" ? env.WEBHOOK_ALLOW_INSECURE_HOSTS : undefined;
  return {
    smtp: smtpSettingsFromEnv(env),
    allowInsecureHosts: parseAllowInsecureHosts(allow),
    ...(injected ?? {}),
  };
}

async function sendEmail(smtp: SmtpSettings | null, to: string, content: AlertFacts | DigestFacts, id: string) {
  const mail = "alerts" in content ? digestEmail(content) : alertEmail(content);
  // Receivers deduplicate on X-Alert-Id: the same alert keeps its id across retries.
  const sent = await sendMail(smtp, { to, ...mail, headers: { "X-Alert-Id": id } });
  return sent.sent
    ? { succeeded: true, error: null, gone: false }
    : { succeeded: false, error: sent.error, gone: false };
}

/**
 * Sends one alert or digest on one channel. Never throws.
 * @param id the alert's (or digest's) id: the `webhook-id` header, the e-mail's `X-Alert-Id`, the same on retries.
 */
export async function sendOnChannel(
  transport: TransportSettings,
  channel: ChannelTarget,
  content: AlertFacts | DigestFacts,
  id: string,
): Promise<ChannelAttempt> {
  if (channel.type === "email") return sendEmail(transport.smtp, channel.target, content, id);
  const body =
    channel.type === "slack"
      ? slackMessage(content)
      : channel.type === "teams"
        ? teamsMessage(content)
        : webhookAlertBody(content);
  const attempt = await sendWebhook({
    url: channel.target,
    secret: channel.type === "webhook" ? channel.secret : null,
    headers: [],
    notificationId: id,
    body: JSON.stringify(body),
    fetch: transport.fetch,
    allowInsecureHosts: transport.allowInsecureHosts,
  });
  const gone = attempt.gone || (channel.type !== "webhook" && attempt.statusCode === 404);
  return { succeeded: attempt.succeeded, error: attempt.error, gone };
}
