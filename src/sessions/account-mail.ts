import {
  type MailMessage,
  type MailOutcome,
  type SmtpEnv,
  type SmtpSettings,
  sendMail,
  smtpSettingsFromEnv,
} from "../lib/mail";

/**
 * Account e-mails (issue 28 §Sign-in and accounts): sign-in links now, invitations next. They go through the same SMTP
 * relay as alert e-mails (src/lib/mail.ts; docs/configuration.md §Alert e-mail). Without a relay, local development
 * (`npm start` sets `SIGN_IN_LINKS_TO_CONSOLE = "true"`) gets the message on the Worker's console instead, so the
 * link reaches the developer's terminal; anywhere else nothing is sent and the log says so without the link.
 */

/** The environment {@link sendAccountMail} reads: the SMTP relay and the local-only console switch. */
export type AccountMailEnv = SmtpEnv & Partial<Pick<Env, "SIGN_IN_LINKS_TO_CONSOLE">>;

let injectedSmtp: SmtpSettings | null | undefined;

/**
 * The transport seam of account e-mails, as `setAlertTransport` is for alerts: tests point the relay at the local SMTP
 * receiver on 127.0.0.1. `undefined` restores the configuration from the environment. Production never calls it.
 */
export function setAccountMailTransport(smtp: SmtpSettings | null | undefined): void {
  injectedSmtp = smtp;
}

/** How {@link sendAccountMail} delivered a message: by SMTP, on the console (local only), or not at all. */
export type AccountMailOutcome = MailOutcome | { sent: "console" };

/**
 * Sends one account e-mail. Never throws. With no relay configured: when `SIGN_IN_LINKS_TO_CONSOLE` is `"true"` the
 * message's text (which carries the link) is written with `console.log`; otherwise a warning is logged that names the
 * kind of message but not its content (a sign-in link is a credential). `kind` labels the log lines.
 */
export async function sendAccountMail(
  env: AccountMailEnv,
  kind: string,
  message: MailMessage,
): Promise<AccountMailOutcome> {
  const smtp = injectedSmtp !== undefined ? injectedSmtp : smtpSettingsFromEnv(env);
  if (!smtp) {
    if (env.SIGN_IN_LINKS_TO_CONSOLE === "true") {
      console.log(`[${kind}] to ${message.to} (SIGN_IN_LINKS_TO_CONSOLE, local development only):\n${message.text}`);
      return { sent: "console" };
    }
    console.warn(
      JSON.stringify({ level: "warn", message: `${kind} not sent: e-mail is not configured (SMTP_HOST is unset)` }),
    );
    return { sent: false, error: "e-mail is not configured (SMTP_HOST is unset)" };
  }
  const outcome = await sendMail(smtp, message);
  if (!outcome.sent) console.warn(JSON.stringify({ level: "warn", message: `${kind} not sent`, error: outcome.error }));
  return outcome;
}
