import { eq } from "drizzle-orm";
import type { Database } from "../db/client";
import { documentMailboxes, documentSettings } from "../db/schema";
import { type Clock, toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";

/**
 * Document settings of an account (`GET`/`PATCH /v2/document_settings`, our extension: the reference has only a
 * dashboard for them; docs/api.md §Document settings). A singleton per account, `id` the account id.
 */

/** The settings as the API shows them. */
export interface DocumentSettingsView {
  accountId: string;
  /** Extracted documents create the tracking requests of numbers not tracked yet (docs/documents.md §Tracking from documents). */
  autoTrack: boolean;
  /** `documents+<token>@<EMAIL_SUBMISSION_DOMAIN>`, or null when the account has no mailbox or no domain is set. */
  emailSubmissionAddress: string | null;
  /** Senders allowed to submit (addresses, or `@domain`), lower case; empty without a mailbox. */
  allowedSenders: string[];
  /** Last change of `auto_track` (UTC ISO seconds), null while the defaults apply. */
  updatedAt: string | null;
}

/** Most entries of `allowed_senders`. */
export const MAX_ALLOWED_SENDERS = 100;

/** An address (`ap@acme.com`) or a whole domain (`@acme.com`), as `npm run keys -- mailbox` accepts them. */
const SENDER = /^[^@\s]*@[a-z0-9.-]+$/;

/** Whether the account's `auto_track` setting is on (off when it has no settings row). */
export async function autoTrackEnabled(db: Database, accountId: string): Promise<boolean> {
  const [row] = await db
    .select({ autoTrack: documentSettings.autoTrack })
    .from(documentSettings)
    .where(eq(documentSettings.accountId, accountId))
    .limit(1);
  return row?.autoTrack ?? false;
}

/**
 * The account's document settings, with its mailbox's address and senders.
 * @param domain `EMAIL_SUBMISSION_DOMAIN` (empty or absent: no address is shown).
 */
export async function getDocumentSettings(
  db: Database,
  accountId: string,
  domain: string | undefined,
): Promise<DocumentSettingsView> {
  const [[settings], [mailbox]] = await db.batch([
    db.select().from(documentSettings).where(eq(documentSettings.accountId, accountId)).limit(1),
    db.select().from(documentMailboxes).where(eq(documentMailboxes.accountId, accountId)).limit(1),
  ]);
  return {
    accountId,
    autoTrack: settings?.autoTrack ?? false,
    emailSubmissionAddress: mailbox && domain ? `documents+${mailbox.token}@${domain}` : null,
    allowedSenders: mailbox?.allowedSenders ?? [],
    updatedAt: settings?.updatedAt ?? null,
  };
}

/**
 * `PATCH /v2/document_settings`: sets `auto_track` and/or `allowed_senders` (absent attributes are left as they are).
 * Senders are trimmed, lower-cased and deduplicated.
 * @throws ApiError 422 at `/data/attributes/allowed_senders` for an entry that is not an address or `@domain`, for more
 *   than {@link MAX_ALLOWED_SENDERS}, or when the account has no submission address yet (an operator gives it one:
 *   `npm run keys -- mailbox`); nothing is written then.
 */
export async function updateDocumentSettings(
  deps: { db: Database; clock: Clock; domain: string | undefined },
  accountId: string,
  input: { autoTrack?: boolean; allowedSenders?: string[] },
): Promise<DocumentSettingsView> {
  const { db } = deps;
  const pointer = "/data/attributes/allowed_senders";
  let senders: string[] | undefined;
  if (input.allowedSenders !== undefined) {
    senders = [...new Set(input.allowedSenders.map((s) => s.trim().toLowerCase()))];
    const bad = senders.find((s) => !SENDER.test(s));
    if (bad !== undefined) {
      throw ApiError.invalidField(pointer, `"${bad}" is not an e-mail address or an @domain.`, "invalid");
    }
    if (senders.length > MAX_ALLOWED_SENDERS) {
      throw ApiError.invalidField(pointer, `At most ${MAX_ALLOWED_SENDERS} senders.`, "too_long");
    }
    const [mailbox] = await db
      .select({ accountId: documentMailboxes.accountId })
      .from(documentMailboxes)
      .where(eq(documentMailboxes.accountId, accountId))
      .limit(1);
    if (!mailbox) {
      throw ApiError.invalidField(
        pointer,
        "The account has no e-mail submission address yet; ask the operator to create one.",
        "no_mailbox",
      );
    }
  }
  const now = toIsoSeconds(deps.clock.now());
  const statements = [];
  if (input.autoTrack !== undefined) {
    statements.push(
      db
        .insert(documentSettings)
        .values({ accountId, autoTrack: input.autoTrack, updatedAt: now })
        .onConflictDoUpdate({
          target: documentSettings.accountId,
          set: { autoTrack: input.autoTrack, updatedAt: now },
        }),
    );
  }
  if (senders !== undefined) {
    statements.push(
      db.update(documentMailboxes).set({ allowedSenders: senders }).where(eq(documentMailboxes.accountId, accountId)),
    );
  }
  const [first, ...rest] = statements;
  if (first) await db.batch([first, ...rest]);
  return getDocumentSettings(db, accountId, deps.domain);
}
