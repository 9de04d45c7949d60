import { toIsoSeconds } from "../lib/clock";
import { randomBase62, sha256Hex } from "../lib/crypto";
import { type AccountMailEnv, type AccountMailOutcome, sendAccountMail } from "./account-mail";

/**
 * Passwordless sign-in by e-mailed link (issue 28 §Sign-in and accounts; OWASP Forgot Password and Authentication
 * Cheat Sheets for one-time tokens): a random 256-bit token (43 base62 characters) in a link, only its SHA-256 stored
 * in `sign_in_links`, valid {@link SIGN_IN_LINK_TTL_MS}, usable once. Opening the link (GET) only shows who it signs
 * in (mail scanners prefetch links); the form on that page consumes it (POST).
 */

/** How long an e-mailed sign-in link works (ms): 15 minutes. */
export const SIGN_IN_LINK_TTL_MS = 15 * 60_000;
/** Links sent to one address per rolling hour; requests beyond it send nothing (and answer the same). */
export const SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR = 5;
/** Where a sign-in goes when no usable `next` was given. */
export const DEFAULT_AFTER_SIGN_IN = "/app/containers";
/** Longest e-mail address accepted (RFC 5321 §4.5.3.1.3 path limit, less the angle brackets). */
export const MAX_EMAIL_LENGTH = 254;
/** Shape of a sign-in link's token: 43 base62 characters (256 bits). */
const TOKEN_PATTERN = /^[0-9A-Za-z]{43}$/;

/**
 * The `next` path to go to after signing in: honoured only as a path of this origin, i.e. starting with one "/" and
 * not "//" or "/\" (which browsers read as another host), with no control characters or backslashes; at most 2,000
 * characters. Anything else, or nothing, is {@link DEFAULT_AFTER_SIGN_IN} (no open redirect, OWASP Unvalidated
 * Redirects Cheat Sheet). Returned as the URL parser writes it (percent-encoded, dot segments resolved).
 */
export function safeNextPath(raw: unknown): string {
  if (typeof raw !== "string" || raw.length === 0 || raw.length > 2000) return DEFAULT_AFTER_SIGN_IN;
  if (!raw.startsWith("/") || raw.startsWith("//") || hasControlOrBackslash(raw)) return DEFAULT_AFTER_SIGN_IN;
  // Resolve against a placeholder origin: whatever the browser would make of it must stay on that origin.
  try {
    const resolved = new URL(raw, "https://same.invalid");
    if (resolved.origin !== "https://same.invalid") return DEFAULT_AFTER_SIGN_IN;
    // The parsed form: percent-encoded, so it goes into a Location header as is.
    return resolved.pathname + resolved.search + resolved.hash;
  } catch {
    return DEFAULT_AFTER_SIGN_IN;
  }
}

/** Whether `text` has a backslash or a C0 control character or DEL (which URL parsers drop or read as "/"). */
function hasControlOrBackslash(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f || code === 0x5c) return true;
  }
  return false;
}

/** The e-mail address as users are stored (trimmed, lowercase), or null when it is not a plausible address. */
export function normalizeEmail(raw: unknown): string | null {
  if (typeof raw !== "string") return null;
  const email = raw.trim().toLowerCase();
  if (email.length === 0 || email.length > MAX_EMAIL_LENGTH) return null;
  // One "@", something on both sides, no spaces or angle brackets (the HTML form's type=email is the friendly check).
  return /^[^\s@<>]+@[^\s@<>]+$/.test(email) ? email : null;
}

/**
 * Stores a new sign-in link for `userId`, valid for `ttlMs` from `nowMs`, and returns its token (the only copy).
 * `npm start` writes the same row shape directly for the development user (scripts/start.mjs).
 */
export async function createSignInLink(
  d1: D1Database,
  userId: string,
  nowMs: number,
  ttlMs = SIGN_IN_LINK_TTL_MS,
): Promise<string> {
  const token = randomBase62(43);
  await d1
    .prepare("INSERT INTO sign_in_links (token_hash, user_id, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)")
    .bind(await sha256Hex(token), userId, toIsoSeconds(nowMs), toIsoSeconds(nowMs + ttlMs))
    .run();
  return token;
}

/** The URL of a sign-in link: `{base}/sign-in/link?token=…`, with `next` when it is not the default. */
export function signInLinkUrl(base: string, token: string, next: string): string {
  const url = new URL("/sign-in/link", base);
  url.searchParams.set("token", token);
  if (next !== DEFAULT_AFTER_SIGN_IN) url.searchParams.set("next", next);
  return url.toString();
}

/** What {@link requestSignInLink} did (for logs and tests; the visitor gets the same answer in every case). */
export type SignInRequestOutcome =
  | { kind: "unknown_address" }
  | { kind: "throttled" }
  | { kind: "sent"; mail: AccountMailOutcome };

/** What {@link requestSignInLink} needs. */
export interface SignInRequestDeps {
  d1: D1Database;
  env: AccountMailEnv;
  nowMs: number;
  /** Origin the link points to: `PUBLIC_BASE_URL` when set, else the request's own origin (docs/dashboard.md). */
  baseUrl: string;
}

/**
 * Sends a sign-in link to `email` if it belongs to an enabled user and fewer than
 * {@link SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR} links went to it in the last hour; else does nothing. Never throws for
 * mail failures (they are logged). The caller answers the same whatever this returns (no account enumeration).
 */
export async function requestSignInLink(
  deps: SignInRequestDeps,
  email: string,
  next: string,
): Promise<SignInRequestOutcome> {
  const { d1, nowMs } = deps;
  const user = await d1
    .prepare(
      `SELECT u.id, u.email,
              (SELECT COUNT(*) FROM sign_in_links l WHERE l.user_id = u.id AND l.created_at > ?2) AS recent
         FROM users u WHERE u.email = ?1 AND u.disabled_at IS NULL`,
    )
    .bind(email, toIsoSeconds(nowMs - 3600_000))
    .first<{ id: string; email: string; recent: number }>();
  if (!user) return { kind: "unknown_address" };
  if (user.recent >= SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR) return { kind: "throttled" };
  const token = await createSignInLink(d1, user.id, nowMs);
  const link = signInLinkUrl(deps.baseUrl, token, next);
  const mail = await sendAccountMail(deps.env, "sign-in link", signInEmail(user.email, link));
  return { kind: "sent", mail };
}

/** The sign-in e-mail: plain text and HTML, the link and how long it works. */
export function signInEmail(to: string, link: string) {
  const minutes = Math.round(SIGN_IN_LINK_TTL_MS / 60_000);
  const text = [
    "Sign in to Container tracking by opening this link:",
    "",
    link,
    "",
    `It works once, within ${minutes} minutes. If you did not ask to sign in, ignore this e-mail.`,
  ].join("\n");
  const href = escapeHtml(link);
  const html = `<p>Sign in to Container tracking:</p><p><a href="${href}">${href}</a></p><p>It works once, within ${minutes} minutes. If you did not ask to sign in, ignore this e-mail.</p>`;
  return { to, subject: "Your sign-in link", text, html };
}

/** HTML escaping of text and attribute values (&, <, >, ", '). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** The user a still-usable link would sign in (for the GET page, which consumes nothing), or null. */
export async function peekSignInLink(d1: D1Database, token: unknown, nowMs: number): Promise<{ email: string } | null> {
  if (typeof token !== "string" || !TOKEN_PATTERN.test(token)) return null;
  return d1
    .prepare(
      `SELECT u.email FROM sign_in_links l JOIN users u ON u.id = l.user_id
        WHERE l.token_hash = ?1 AND l.used_at IS NULL AND l.expires_at > ?2 AND u.disabled_at IS NULL`,
    )
    .bind(await sha256Hex(token), toIsoSeconds(nowMs))
    .first<{ email: string }>();
}

/**
 * Uses up a sign-in link, atomically: one `UPDATE … WHERE used_at IS NULL AND expires_at > now` of an enabled user's
 * link, so of two concurrent uses exactly one wins. Returns the user it signs in, or null (unknown, used, expired, or
 * the user disabled).
 */
export async function consumeSignInLink(
  d1: D1Database,
  token: unknown,
  nowMs: number,
): Promise<{ userId: string; accountId: string } | null> {
  if (typeof token !== "string" || !TOKEN_PATTERN.test(token)) return null;
  const now = toIsoSeconds(nowMs);
  const row = await d1
    .prepare(
      `UPDATE sign_in_links SET used_at = ?2
        WHERE token_hash = ?1 AND used_at IS NULL AND expires_at > ?2
          AND user_id IN (SELECT id FROM users WHERE disabled_at IS NULL)
        RETURNING user_id, (SELECT account_id FROM users WHERE users.id = sign_in_links.user_id) AS account_id`,
    )
    .bind(await sha256Hex(token), now)
    .first<{ user_id: string; account_id: string }>();
  return row ? { userId: row.user_id, accountId: row.account_id } : null;
}
