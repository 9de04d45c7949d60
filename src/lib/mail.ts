import { LogLevel, WorkerMailer } from "worker-mailer";

/**
 * E-mail over SMTP from the Worker (`worker-mailer`: a TCP socket through `cloudflare:sockets`; plain text and HTML
 * parts), shared by alert e-mails (src/alerts/channels.ts) and account e-mails: sign-in links and invitations
 * (src/sessions/account-mail.ts). Configured by docs/configuration.md §Alert e-mail.
 */

/** The SMTP relay e-mails are sent through (docs/configuration.md §Alert e-mail). */
export interface SmtpSettings {
  host: string;
  port: number;
  /** `tls`: TLS from the start (port 465); `starttls`: upgrade after EHLO (587); `none`: plain (local tests only). */
  security: "tls" | "starttls" | "none";
  username: string | null;
  password: string | null;
  from: string;
}

/** The environment variables {@link smtpSettingsFromEnv} reads. */
export type SmtpEnv = Partial<
  Pick<Env, "SMTP_HOST" | "SMTP_PORT" | "SMTP_SECURITY" | "SMTP_USERNAME" | "SMTP_PASSWORD" | "ALERT_EMAIL_FROM">
>;

/**
 * The SMTP settings of the environment: `SMTP_HOST`, `SMTP_PORT` (default 587), `SMTP_SECURITY` (`starttls` by
 * default, `tls`, `none`), `SMTP_USERNAME` / `SMTP_PASSWORD` (secrets), `ALERT_EMAIL_FROM`. Null without a host.
 */
export function smtpSettingsFromEnv(env: SmtpEnv): SmtpSettings | null {
  const host = typeof env.SMTP_HOST === "string" ? env.SMTP_HOST.trim() : "";
  if (!host) return null;
  const security = env.SMTP_SECURITY === "tls" || env.SMTP_SECURITY === "none" ? env.SMTP_SECURITY : "starttls";
  const port = Number(env.SMTP_PORT) || (security === "tls" ? 465 : 587);
  const str = (v: unknown) => (typeof v === "string" && v !== "" ? v : null);
  return {
    host,
    port,
    security,
    username: str(env.SMTP_USERNAME),
    password: str(env.SMTP_PASSWORD),
    from: str(env.ALERT_EMAIL_FROM) ?? `alerts@${host}`,
  };
}

/** One message: recipient, subject, plain-text and HTML bodies, extra headers. */
export interface MailMessage {
  to: string;
  subject: string;
  text: string;
  html: string;
  headers?: Record<string, string>;
}

/** What {@link sendMail} did: sent, or why not (no relay configured, or the relay's reply). */
export type MailOutcome = { sent: true } | { sent: false; error: string };

/**
 * Sends one message through the relay (15 s socket and reply timeouts). Never throws: a missing relay or an SMTP
 * failure comes back as `{ sent: false, error }`.
 */
export async function sendMail(smtp: SmtpSettings | null, message: MailMessage): Promise<MailOutcome> {
  if (!smtp) return { sent: false, error: "e-mail is not configured (SMTP_HOST is unset)" };
  try {
    await WorkerMailer.send(
      {
        host: smtp.host,
        port: smtp.port,
        secure: smtp.security === "tls",
        startTls: smtp.security === "starttls",
        ...(smtp.username && smtp.password
          ? {
              credentials: { username: smtp.username, password: smtp.password },
              // worker-mailer uses only the methods listed here, among those the relay offers.
              authType: ["plain", "login", "cram-md5"],
            }
          : {}),
        logLevel: LogLevel.WARN,
        socketTimeoutMs: 15_000,
        responseTimeoutMs: 15_000,
      },
      {
        from: smtp.from,
        to: message.to,
        subject: message.subject,
        text: message.text,
        html: message.html,
        ...(message.headers ? { headers: message.headers } : {}),
      },
    );
    return { sent: true };
  } catch (err) {
    return { sent: false, error: `smtp: ${err instanceof Error ? err.message : String(err)}` };
  }
}
