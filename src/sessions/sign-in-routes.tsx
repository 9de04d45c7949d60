import { type Context, Hono } from "hono";
import { getCookie } from "hono/cookie";
import { HTTPException } from "hono/http-exception";
import type { JSX } from "hono/jsx/jsx-runtime";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { DASHBOARD_HEADERS } from "../dashboard/headers";
import type { AppEnv } from "../env";
import { toIsoSeconds } from "../lib/clock";
import { sha256Hex } from "../lib/crypto";
import { ApiError, titleFor } from "../lib/errors";
import { executionContextOf } from "../lib/http";
import { CSRF_FIELD, verifyCsrf } from "./csrf";
import {
  clearSessionCookie,
  createSession,
  requireSignedIn,
  revokeSession,
  revokeSessionsOfUser,
  SESSION_COOKIE,
  setSessionCookie,
} from "./session";
import { preSessionCsrfOk, preSessionToken, signInRequestRetryAfter } from "./sign-in-guard";
import { consumeSignInLink, normalizeEmail, peekSignInLink, requestSignInLink, safeNextPath } from "./sign-in-links";
import { SignInLinkPage, SignInPage, SignInProblemPage, SignInSentPage } from "./sign-in-page";

/**
 * Signing in and out of the dashboard (issue 28 §Sign-in and accounts; docs/dashboard.md §Signing in):
 *
 * - GET /sign-in: the e-mail form (`next` kept when it is a path of this origin). POST /sign-in: same origin and the
 *   pre-session CSRF token (src/sessions/sign-in-guard.ts), a per-client-address throttle (429), then, off the
 *   response path, a one-time link to the address if it is an enabled user's; always 303 to /sign-in/sent.
 * - GET /sign-in/link?token=…: who the link signs in, with a button (consumes nothing: mail scanners prefetch links).
 *   POST /sign-in/link: consumes the link, revokes any session the browser brought, starts a NEW session (no
 *   fixation), 303 to `next`. A used, expired or unknown link: 400 page.
 * - POST /sign-out, POST /sign-out/everywhere: signed in and CSRF-checked (`verifyCsrf`); revoke this session or every
 *   session of the user, clear the cookie, 303 to /sign-in.
 *
 * Every answer carries DASHBOARD_HEADERS (strict CSP, `no-store`); errors are HTML pages with their status.
 */
export const signInRoutes = new Hono<AppEnv>();

for (const path of ["/sign-in", "/sign-in/*", "/sign-out", "/sign-out/*"]) {
  signInRoutes.use(path, async (c, next) => {
    await next();
    for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) {
      if (!c.res.headers.has(name)) c.res.headers.set(name, value);
    }
  });
}

signInRoutes.onError((err, c) => {
  // A 4xx becomes a readable page with its status; anything else goes to the app's error path (src/app.ts).
  if (err instanceof ApiError && err.status >= 400 && err.status < 500) {
    const message = err.errors[0]?.detail ?? err.message;
    const status = err.status as ContentfulStatusCode;
    return page(c, <SignInProblemPage title={titleFor(status)} message={message} />, status, err.headers);
  }
  if (err instanceof HTTPException && err.status < 500) {
    const status = Math.max(err.status, 400) as ContentfulStatusCode;
    return page(c, <SignInProblemPage title={titleFor(status)} message={err.message || "Bad request."} />, status);
  }
  throw err;
});

/** An HTML page with `status`, the dashboard's headers and `headers`. */
function page(
  c: Context<AppEnv>,
  node: JSX.Element,
  status: ContentfulStatusCode = 200,
  headers: Record<string, string> = {},
) {
  return c.html(`<!doctype html>${node}`, status, { ...DASHBOARD_HEADERS, ...headers });
}

/** The form fields of a urlencoded or multipart body; anything else reads as no fields; a broken body is a 400. */
async function formOf(c: Context<AppEnv>): Promise<Record<string, unknown>> {
  const type = c.req.header("content-type") ?? "";
  if (!type.startsWith("application/x-www-form-urlencoded") && !type.startsWith("multipart/form-data")) return {};
  try {
    return await c.req.parseBody();
  } catch {
    throw new ApiError(400, [{ detail: "The form could not be read; reload the page and try again." }]);
  }
}

/** The origin sign-in links point to: `PUBLIC_BASE_URL` when set (and a URL), else the request's own origin. */
function linkBaseUrl(c: Context<AppEnv>): string {
  const configured = typeof c.env.PUBLIC_BASE_URL === "string" ? c.env.PUBLIC_BASE_URL.trim() : "";
  if (configured) {
    try {
      return new URL(configured).origin;
    } catch {
      // Not a URL: fall back to the request's origin (docs/configuration.md says what PUBLIC_BASE_URL must be).
    }
  }
  return new URL(c.req.url).origin;
}

const OUT_OF_DATE = "This form is out of date or did not come from this site. Go back, reload the page and try again.";

signInRoutes.get("/sign-in", (c) => {
  const next = safeNextPath(c.req.query("next"));
  return page(c, <SignInPage csrf={preSessionToken(c)} next={next} />);
});

signInRoutes.post("/sign-in", async (c) => {
  const form = await formOf(c);
  if (!preSessionCsrfOk(c, form[CSRF_FIELD])) {
    return page(c, <SignInProblemPage title="Form out of date" message={OUT_OF_DATE} />, 403);
  }
  const next = safeNextPath(form.next);
  const raw = typeof form.email === "string" ? form.email : "";
  const email = normalizeEmail(raw);
  if (!email) {
    const error = raw.trim() === "" ? "Enter your e-mail address." : "Enter an e-mail address like name@example.com.";
    return page(c, <SignInPage csrf={preSessionToken(c)} next={next} email={raw.slice(0, 254)} error={error} />, 400);
  }
  const retryAfter = signInRequestRetryAfter(c);
  if (retryAfter > 0) {
    const minutes = Math.ceil(retryAfter / 60);
    const message = `Too many sign-in requests from your network. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.`;
    return page(c, <SignInProblemPage title="Too many requests" message={message} />, 429, {
      "Retry-After": String(retryAfter),
    });
  }
  // Off the response path, so the answer takes as long whether or not the address is known (no enumeration by time).
  const work = requestSignInLink(
    { d1: c.env.DB, env: c.env, nowMs: c.get("clock").now(), baseUrl: linkBaseUrl(c) },
    email,
    next,
  ).catch((err: unknown) => {
    console.error(JSON.stringify({ level: "error", message: "sign-in link request failed", error: String(err) }));
  });
  const ctx = executionContextOf(c);
  if (ctx) ctx.waitUntil(work);
  else await work;
  return c.redirect("/sign-in/sent", 303);
});

signInRoutes.get("/sign-in/sent", (c) => page(c, <SignInSentPage />));

const LINK_PROBLEM =
  "This sign-in link has already been used, has expired, or is not valid. Links work once, within 15 minutes.";

signInRoutes.get("/sign-in/link", async (c) => {
  const token = c.req.query("token");
  const link = await peekSignInLink(c.env.DB, token, c.get("clock").now());
  if (!link || !token) return page(c, <SignInProblemPage title="Sign-in link not valid" message={LINK_PROBLEM} />, 400);
  const next = safeNextPath(c.req.query("next"));
  return page(c, <SignInLinkPage csrf={preSessionToken(c)} next={next} token={token} email={link.email} />);
});

signInRoutes.post("/sign-in/link", async (c) => {
  const form = await formOf(c);
  if (!preSessionCsrfOk(c, form[CSRF_FIELD])) {
    return page(c, <SignInProblemPage title="Form out of date" message={OUT_OF_DATE} />, 403);
  }
  const nowMs = c.get("clock").now();
  const user = await consumeSignInLink(c.env.DB, form.token, nowMs);
  if (!user) return page(c, <SignInProblemPage title="Sign-in link not valid" message={LINK_PROBLEM} />, 400);
  // No session fixation: whatever session cookie the browser brought is ended, never reused; the new one is fresh.
  await revokeBroughtSession(c, nowMs);
  const session = await createSession(c.env.DB, user, nowMs, c.req.header("user-agent") ?? null);
  setSessionCookie(c, session.token);
  return c.redirect(safeNextPath(form.next), 303);
});

/** Ends the session of the cookie the request carries, if any (by its current or previous token). */
async function revokeBroughtSession(c: Context<AppEnv>, nowMs: number): Promise<void> {
  const token = getCookie(c, SESSION_COOKIE);
  if (!token || !/^[0-9A-Za-z]{43}$/.test(token)) return;
  const hash = await sha256Hex(token);
  await c.env.DB.prepare(
    `UPDATE web_sessions SET revoked_at = ?2
      WHERE (token_hash = ?1 OR previous_token_hash = ?1) AND revoked_at IS NULL`,
  )
    .bind(hash, toIsoSeconds(nowMs))
    .run();
}

signInRoutes.post("/sign-out", requireSignedIn, verifyCsrf, async (c) => {
  await revokeSession(c.env.DB, c.get("user").sessionId, c.get("clock").now());
  clearSessionCookie(c);
  return c.redirect("/sign-in", 303);
});

signInRoutes.post("/sign-out/everywhere", requireSignedIn, verifyCsrf, async (c) => {
  await revokeSessionsOfUser(c.env.DB, c.get("user").userId, c.get("clock").now());
  clearSessionCookie(c);
  return c.redirect("/sign-in", 303);
});
