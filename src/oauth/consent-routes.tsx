/**
 * The consent page of OAuth for MCP, `/oauth/authorize` (issue 28 §OAuth 2.1 for MCP; docs/mcp.md §Signing in with
 * OAuth): an MCP client (the Inspector, a desktop assistant) sends the user here; the user, signed in to the
 * dashboard, allows or denies it access to their account as themselves.
 *
 * GET: the provider validates the request (`parseAuthRequest`: registered client, its exact redirect URI, PKCE S256,
 * the resource `/mcp`); a session is required (none → 303 to `/sign-in?next=<this URL>`, `requireSignedIn`); the
 * page names the client, the account, the user, the role's reach and where access goes. The request is kept
 * server-side by the provider (`beginConsent`): the form carries only a single-use handle, bound to this browser by a
 * `__Host-` cookie, for 10 minutes.
 * POST: session + CSRF (`verifyCsrf`: same origin and the session's `_csrf` token); Allow → `approveConsent` then
 * `completeAuthorization` with {@link OAuthGrantProps} → 303 to the client's redirect URI with the code; Deny →
 * `denyConsent` → 303 with `error=access_denied`. An expired, used or foreign handle → 400 page, nothing granted.
 *
 * Every answer carries the dashboard's headers (strict CSP, no framing, no-store). The page's `form-action` also allows
 * the client's redirect origin: CSP checks form-action on every redirect a form submission follows (CSP Level 3
 * §6.4.1, which Chromium enforces), and the POST's answer is a redirect there.
 */

import { AuthorizationError, type ConsentDescription } from "@cloudflare/workers-oauth-provider";
import { type Context, Hono } from "hono";
import { DASHBOARD_CONTENT_SECURITY_POLICY, DASHBOARD_HEADERS } from "../dashboard/headers";
import { CsrfField, Layout } from "../dashboard/layout";
import type { UserRole } from "../db/schema/users";
import type { AppEnv, SignedInUser } from "../env";
import { ApiError } from "../lib/errors";
import { verifyCsrf } from "../sessions/csrf";
import { requireSignedIn, roleAllows } from "../sessions/session";
import type { OAuthGrantProps } from "./mcp-bridge";
import { MCP_SCOPE, OAUTH_AUTHORIZE_PATH, oauthEnabled, oauthHelpersFor } from "./provider";

/** The consent routes, mounted at `/oauth` (src/app.ts). */
export const oauthConsentRoutes = new Hono<AppEnv>();

/**
 * The CSP of the consent page: the dashboard's, with `form-action` also allowing `redirectUri`'s origin when it is a
 * plain `http(s)://host[:port]` (what the provider accepts: https, or http on loopback). Anything else adds nothing.
 */
export function consentPolicy(redirectUri: string): string {
  let origin = "";
  try {
    origin = new URL(redirectUri).origin;
  } catch {
    origin = "";
  }
  if (!/^https?:\/\/[a-z0-9.-]+(:\d{1,5})?$/.test(origin)) return DASHBOARD_CONTENT_SECURITY_POLICY;
  return DASHBOARD_CONTENT_SECURITY_POLICY.replace("form-action 'self'", `form-action 'self' ${origin}`);
}

/** The dashboard's headers on `headers`, with `csp` as the policy (set or replaced). */
function withPageHeaders(headers: Headers, csp = DASHBOARD_CONTENT_SECURITY_POLICY): Headers {
  for (const [name, value] of Object.entries(DASHBOARD_HEADERS)) headers.set(name, value);
  headers.set("Content-Security-Policy", csp);
  headers.set("Content-Type", "text/html; charset=utf-8");
  return headers;
}

/** An HTML page with a doctype. */
function html(node: unknown, status: number, headers: Headers): Response {
  return new Response(`<!doctype html>${String(node)}`, { status, headers });
}

/** A readable error page (status kept, nothing done). */
function errorPage(user: SignedInUser | null, status: number, message: string): Response {
  return html(
    <Layout title="This app cannot be authorized" user={user}>
      <p role="alert">{message}</p>
      <p>Start signing in again from the app you came from.</p>
    </Layout>,
    status,
    withPageHeaders(new Headers()),
  );
}

/** What a role may do through MCP, in the consent page's words. */
function reachOf(role: UserRole): string {
  return roleAllows(role, "member")
    ? "read the account's containers, shipments, tracking requests, documents and charges, and start tracking new numbers"
    : "read the account's containers, shipments, tracking requests, documents and charges (your role is viewer: it cannot start tracking anything)";
}

/** Props of {@link ConsentPage}. */
interface ConsentPageProps {
  user: SignedInUser;
  accountName: string;
  details: ConsentDescription;
  handle: string;
}

/** The consent page; every client-supplied string (name, redirect URI) is text, escaped by JSX. */
function ConsentPage({ user, accountName, details, handle }: ConsentPageProps) {
  return (
    <Layout title={`Allow ${details.clientName} to access your account?`} user={user}>
      <p>
        <strong>{details.clientName}</strong> wants to access <strong>{accountName}</strong> as{" "}
        <strong>{user.email}</strong> ({user.role}).
      </p>
      <p>
        {details.clientDomain
          ? `Published by ${details.clientDomain}.`
          : "This app registered itself: its name is not verified."}
      </p>
      <h2>If you allow it, it may</h2>
      <p>
        {reachOf(user.role)}, through the MCP tools, until you revoke it or it stops refreshing its access (30 days).
      </p>
      <h2>Where access goes</h2>
      <p>
        Access will be sent to <strong>{details.redirectHost}</strong>: <code>{details.redirectUri}</code>
      </p>
      {details.redirectIsLoopback ? (
        <p role="note">
          This sends access to an app on your computer. Continue only if you just started signing in from it.
        </p>
      ) : null}
      <form method="post" action={OAUTH_AUTHORIZE_PATH}>
        <CsrfField user={user} />
        <input type="hidden" name="handle" value={handle} />
        <button type="submit" name="decision" value="allow">
          Allow
        </button>{" "}
        <button type="submit" name="decision" value="deny">
          Deny
        </button>
      </form>
    </Layout>
  );
}

/** 404 unless OAuth is on and this origin can be an issuer; else the provider's helpers. */
function helpersOf(c: Context<AppEnv>) {
  const helpers = oauthEnabled(c.env) ? oauthHelpersFor(c.req.raw, c.env) : null;
  if (!helpers) throw ApiError.notFound("OAuth is not enabled on this server (MCP_OAUTH).");
  return helpers;
}

/** Renders an `AuthorizationError` of the provider: back to the client when that is safe, else a 400 page. */
function authorizationFailure(err: unknown, user: SignedInUser | null): Response {
  if (err instanceof AuthorizationError) {
    if (err.redirectTo) return new Response(null, { status: 303, headers: { Location: err.redirectTo } });
    return errorPage(user, 400, err.description);
  }
  throw err;
}

// OAuth off → 404 before anything else; then a session (GET without one → 303 to sign-in) and, on POST, CSRF.
oauthConsentRoutes.use("/authorize", async (c, next) => {
  helpersOf(c);
  await next();
});
oauthConsentRoutes.use("/authorize", requireSignedIn);
oauthConsentRoutes.use("/authorize", verifyCsrf);

oauthConsentRoutes.get("/authorize", async (c) => {
  const helpers = helpersOf(c);
  const user = c.get("user");
  try {
    const request = await helpers.parseAuthRequest(c.req.raw);
    const details = await helpers.describeConsent(request);
    const account = await c.env.DB.prepare("SELECT name FROM accounts WHERE id = ?1")
      .bind(user.accountId)
      .first<{ name: string }>();
    const consent = await helpers.beginConsent(request);
    return html(
      <ConsentPage
        user={user}
        accountName={account?.name ?? "your account"}
        details={details}
        handle={consent.handle}
      />,
      200,
      withPageHeaders(consent.headers, consentPolicy(details.redirectUri)),
    );
  } catch (err) {
    return authorizationFailure(err, user);
  }
});

oauthConsentRoutes.post("/authorize", async (c) => {
  const helpers = helpersOf(c);
  const user = c.get("user");
  const form = await c.req.parseBody();
  const handle = typeof form.handle === "string" ? form.handle : "";
  const decision = form.decision;
  if (!handle || (decision !== "allow" && decision !== "deny")) {
    return errorPage(user, 400, "The form was incomplete: choose Allow or Deny on the consent page.");
  }
  try {
    if (decision === "deny") {
      const denied = await helpers.denyConsent(c.req.raw, handle);
      denied.headers.set("Location", denied.redirectTo);
      return new Response(null, { status: 303, headers: denied.headers });
    }
    const approved = await helpers.approveConsent(c.req.raw, handle, { scope: [MCP_SCOPE] });
    const props: OAuthGrantProps = { accountId: user.accountId, userId: user.userId, role: user.role };
    const client = await helpers.lookupClient(approved.request.clientId);
    const { redirectTo } = await helpers.completeAuthorization({
      request: approved.request,
      userId: user.userId,
      // Stored in plaintext (the provider lists grants by it): names only, for /app/account/connections.
      metadata: { accountId: user.accountId, clientName: client?.clientName ?? approved.request.clientId },
      scope: approved.request.scope,
      props,
    });
    approved.headers.set("Location", redirectTo);
    return new Response(null, { status: 303, headers: approved.headers });
  } catch (err) {
    if (err instanceof AuthorizationError) {
      return errorPage(
        user,
        400,
        "This consent page expired, was already used, or was opened in another browser: nothing was granted.",
      );
    }
    throw err;
  }
});
