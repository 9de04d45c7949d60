import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import type { AppEnv } from "../env";
import { randomBase62 } from "../lib/crypto";
import { AuthFailureThrottle, clientAddress, THROTTLE_MAX_ADDRESSES } from "../middleware/auth-throttle";
import { isSameOriginRequest, timingSafeEqual } from "./csrf";

/**
 * CSRF defence of the forms shown before there is a session: the sign-in request (POST /sign-in) and the sign-in
 * link's button (POST /sign-in/link). The second matters most: without it another site could post its own valid
 * link from the victim's browser and sign the victim in to the attacker's account ("login CSRF").
 *
 * Two layers (OWASP CSRF Prevention Cheat Sheet): the same-origin check of the dashboard (`isSameOriginRequest`:
 * `Sec-Fetch-Site`, else `Origin`), and a double-submit cookie: the form page sets a random 256-bit token in the
 * cookie {@link PRE_SESSION_COOKIE} and in a hidden `_csrf` field, and the POST must carry both, equal. Why a
 * double-submit cookie and not a stored synchronizer token: there is no session row to keep it in yet, and storing
 * one per anonymous visitor would let anyone fill D1 by loading the form. The classic weakness of double-submit
 * (a sibling subdomain or plain-http page planting the cookie) is closed by the `__Host-` prefix: the browser only
 * accepts that cookie from this exact origin over HTTPS, with no Domain attribute.
 */
export const PRE_SESSION_COOKIE = "__Host-sign-in-csrf";
const PRE_SESSION_COOKIE_BASE = "sign-in-csrf";
/** Lifetime of the pre-session token cookie (s): a day, ample for reading the e-mail and coming back. */
const PRE_SESSION_MAX_AGE_S = 24 * 3600;
const TOKEN_PATTERN = /^[0-9A-Za-z]{43}$/;

/**
 * The pre-session CSRF token of this browser: the one its cookie holds, or a new one set in the response's cookie
 * (`__Host-`, HttpOnly, Secure, SameSite=Lax, Path=/). The form carries it as `_csrf`.
 */
export function preSessionToken(c: Context<AppEnv>): string {
  const existing = getCookie(c, PRE_SESSION_COOKIE_BASE, "host");
  if (existing && TOKEN_PATTERN.test(existing)) return existing;
  const token = randomBase62(43);
  setCookie(c, PRE_SESSION_COOKIE_BASE, token, {
    path: "/",
    httpOnly: true,
    secure: true,
    sameSite: "Lax",
    maxAge: PRE_SESSION_MAX_AGE_S,
    prefix: "host",
  });
  return token;
}

/** Whether a pre-session form post is same-origin and its `_csrf` field equals its cookie's token. */
export function preSessionCsrfOk(c: Context<AppEnv>, field: unknown): boolean {
  if (!isSameOriginRequest(c.req.raw)) return false;
  const cookie = getCookie(c, PRE_SESSION_COOKIE_BASE, "host");
  if (!cookie || !TOKEN_PATTERN.test(cookie) || typeof field !== "string") return false;
  return timingSafeEqual(cookie, field);
}

/** Sign-in requests (POST /sign-in) one client address may make per {@link SIGN_IN_REQUEST_WINDOW_MS}. */
export const SIGN_IN_REQUESTS_PER_WINDOW = 20;
/** The per-address window of sign-in requests (ms): 15 minutes. */
export const SIGN_IN_REQUEST_WINDOW_MS = 15 * 60_000;

/**
 * Sign-in requests per client address (`CF-Connecting-IP`, IPv6 by /64: src/middleware/auth-throttle.ts
 * `clientAddress`), counted in this isolate's memory like the API-key failure throttle: a cost guard against one
 * client mailing many addresses. The durable per-address bound is `SIGN_IN_LINKS_PER_ADDRESS_PER_HOUR`
 * (src/sessions/sign-in-links.ts), counted in D1.
 */
const requestThrottle = new AuthFailureThrottle(THROTTLE_MAX_ADDRESSES, SIGN_IN_REQUEST_WINDOW_MS);

/**
 * Counts one sign-in request of the client and returns 0 when it may go on, else the seconds until it may try again
 * (the `Retry-After` of the 429).
 */
export function signInRequestRetryAfter(c: Context<AppEnv>): number {
  const address = clientAddress(c.req.header("cf-connecting-ip"));
  const nowMs = c.get("clock").now();
  const wait = requestThrottle.retryAfterSeconds(address, nowMs, SIGN_IN_REQUESTS_PER_WINDOW);
  if (wait > 0) return wait;
  requestThrottle.recordFailure(address, nowMs, SIGN_IN_REQUESTS_PER_WINDOW);
  return 0;
}
