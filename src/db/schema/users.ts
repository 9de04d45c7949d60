import { index, sqliteTable, text, uniqueIndex } from "drizzle-orm/sqlite-core";
import { accounts } from "./accounts";

/**
 * What a dashboard user may do in their account (issue 28 §Sign-in and accounts): `admin` manages the team, API keys,
 * webhooks, tariffs and alert rules; `member` tracks boxes and edits custom fields and documents; `viewer` only reads.
 * An API key acts as an `admin` of its account.
 */
export const USER_ROLES = ["admin", "member", "viewer"] as const;
/** One of {@link USER_ROLES}. */
export type UserRole = (typeof USER_ROLES)[number];

/**
 * People who sign in to the dashboard. A user belongs to one account; the e-mail address (stored lowercase) is unique
 * across the service, so a sign-in link names exactly one user. `disabled_at` set: removed from the team (no sign-in,
 * every session revoked).
 */
export const users = sqliteTable(
  "users",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** Lowercase e-mail address. */
    email: text("email").notNull(),
    name: text("name"),
    role: text("role").$type<UserRole>().notNull(),
    createdAt: text("created_at").notNull(),
    lastSignedInAt: text("last_signed_in_at"),
    disabledAt: text("disabled_at"),
  },
  (t) => [uniqueIndex("users_email_idx").on(t.email), index("users_account_idx").on(t.accountId, t.createdAt)],
);

/**
 * Dashboard sessions (src/sessions/session.ts): only the SHA-256 hex of the cookie's token is stored. A session ends at
 * `expires_at` (absolute), after `idle` inactivity (see `SESSION_IDLE_MS`), at sign-out (`revoked_at`), or when the
 * user signs out everywhere. Rotation replaces the row's token hash (`rotated_at`), so a stolen old cookie stops
 * working.
 */
export const webSessions = sqliteTable(
  "web_sessions",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    /** The token hash before the last rotation, still accepted for `SESSION_ROTATION_GRACE_MS` after `rotated_at`. */
    previousTokenHash: text("previous_token_hash"),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    accountId: text("account_id").notNull(),
    createdAt: text("created_at").notNull(),
    /** Last time the session was used (refreshed at most once a minute). */
    lastSeenAt: text("last_seen_at").notNull(),
    rotatedAt: text("rotated_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    revokedAt: text("revoked_at"),
    userAgent: text("user_agent"),
    /** Random token every state-changing dashboard form carries (`_csrf`), compared with this (src/sessions/csrf.ts). */
    csrfToken: text("csrf_token").notNull(),
  },
  (t) => [
    uniqueIndex("web_sessions_token_hash_idx").on(t.tokenHash),
    index("web_sessions_previous_token_hash_idx").on(t.previousTokenHash),
    index("web_sessions_user_idx").on(t.userId),
  ],
);

/**
 * One-time sign-in links (passwordless sign-in, issue 28): the SHA-256 hex of the link's token, the user it signs in,
 * when it stops working, and when it was used (a link works once).
 */
export const signInLinks = sqliteTable(
  "sign_in_links",
  {
    tokenHash: text("token_hash").primaryKey(),
    userId: text("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    usedAt: text("used_at"),
  },
  (t) => [index("sign_in_links_user_idx").on(t.userId, t.createdAt)],
);

/**
 * Invitations to join an account's team: sent by e-mail with a one-time token (SHA-256 hex stored); accepting one
 * creates the user with `role` and signs them in.
 */
export const invitations = sqliteTable(
  "invitations",
  {
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id),
    /** Lowercase e-mail address. */
    email: text("email").notNull(),
    role: text("role").$type<UserRole>().notNull(),
    invitedByUserId: text("invited_by_user_id"),
    tokenHash: text("token_hash").notNull(),
    createdAt: text("created_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    acceptedAt: text("accepted_at"),
    revokedAt: text("revoked_at"),
  },
  (t) => [
    uniqueIndex("invitations_token_hash_idx").on(t.tokenHash),
    index("invitations_account_idx").on(t.accountId, t.createdAt),
  ],
);
