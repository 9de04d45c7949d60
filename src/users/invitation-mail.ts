import type { UserRole } from "../db/schema/users";
import { type MailOutcome, type SmtpEnv, type SmtpSettings, sendMail, smtpSettingsFromEnv } from "../lib/mail";

/**
 * The invitation e-mail (issue 28 §Sign-in and accounts: "invitations by e-mail"), sent through the one SMTP sender
 * (src/lib/mail.ts `sendMail`, the alerts' relay settings). Locally, with no relay and `SIGN_IN_LINKS_TO_CONSOLE`
 * "true", the link is written to the console instead (the developer's terminal under `npm start`), as sign-in links
 * are. The transport seam below is this module's own; helper "signin" keeps a similar one beside the sign-in links
 * (agreed: one seam per kind of account mail, each in its own module, so neither depends on the other's tests).
 */

/** The environment invitation delivery reads: the SMTP relay and the local console switch. */
export type InvitationMailEnv = SmtpEnv & { SIGN_IN_LINKS_TO_CONSOLE?: string };

/** How invitation e-mails leave: the relay (null: none configured), or the console when allowed. */
export interface InvitationTransport {
  smtp: SmtpSettings | null;
  /** With no relay, log the link instead of failing (local development only; `SIGN_IN_LINKS_TO_CONSOLE`). */
  linksToConsole: boolean;
  /** Where console links go (default `console.log`); tests record them. */
  log?: (line: string) => void;
}

let injected: Partial<InvitationTransport> | null = null;

/**
 * The transport seam of invitation e-mails, as `setAlertTransport` is for alerts: tests point the relay at the local
 * SMTP receiver (test/helpers/alert-receivers.ts) or record console lines. `null` restores the environment's.
 * Production never calls it.
 */
export function setInvitationTransport(settings: Partial<InvitationTransport> | null): void {
  injected = settings;
}

/** The transport of this request: the injected one over the environment's. */
export function invitationTransport(env: InvitationMailEnv): InvitationTransport {
  return {
    smtp: smtpSettingsFromEnv(env),
    linksToConsole: env.SIGN_IN_LINKS_TO_CONSOLE === "true",
    ...(injected ?? {}),
  };
}

/** What the invitation says: who invites whom to which account, with which role, until when. */
export interface InvitationFacts {
  to: string;
  accountName: string;
  role: UserRole;
  /** The e-mail address of the admin who invited, or null when an API key did. */
  invitedBy: string | null;
  /** Absolute URL of /invitations/accept?token=… */
  link: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

/** How an invitation reached its address: e-mailed, logged to the console (local), or not at all (with why). */
export type InvitationDelivery = { via: "email" } | { via: "console" } | { via: "none"; error: string };

/** Escapes text for the HTML part (the account name and addresses are user input). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The message of an invitation: plain text and HTML with the same words and the one link. */
export function invitationMessage(facts: InvitationFacts): { subject: string; text: string; html: string } {
  const who = facts.invitedBy ? `${facts.invitedBy} invited you` : "You are invited";
  const lead = `${who} to join ${facts.accountName} on Container tracking as ${facts.role === "admin" ? "an" : "a"} ${facts.role}.`;
  const expiry = `The link works once, until ${facts.expiresAt} (UTC).`;
  return {
    subject: `Join ${facts.accountName} on Container tracking`,
    text: `${lead}\n\nAccept the invitation:\n${facts.link}\n\n${expiry}\nIf you did not expect this, ignore this e-mail.\n`,
    html: `<p>${escapeHtml(lead)}</p><p><a href="${escapeHtml(facts.link)}">Accept the invitation</a></p><p>${escapeHtml(expiry)} If you did not expect this, ignore this e-mail.</p>`,
  };
}

/**
 * Sends the invitation: through the relay when one is configured, else to the console when allowed, else not at all.
 * Never throws.
 */
export async function deliverInvitation(
  transport: InvitationTransport,
  facts: InvitationFacts,
): Promise<InvitationDelivery> {
  if (!transport.smtp && transport.linksToConsole) {
    (transport.log ?? console.log)(`Invitation for ${facts.to} (${facts.role} of ${facts.accountName}): ${facts.link}`);
    return { via: "console" };
  }
  const outcome: MailOutcome = await sendMail(transport.smtp, { to: facts.to, ...invitationMessage(facts) });
  return outcome.sent ? { via: "email" } : { via: "none", error: outcome.error };
}
