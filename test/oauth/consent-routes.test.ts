import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { consentPolicy } from "../../src/oauth/consent-routes";
import { createAccount } from "../helpers/api";
import { createWebUser, type TestWebUser } from "../helpers/web-session";
import { browserOf, hiddenInput, ORIGIN, REDIRECT_URI, workerFetch } from "./helpers";

/** Registers a public client (RFC 7591) named `name`; returns its id. */
async function register(name = "Inspector", redirectUri = REDIRECT_URI): Promise<string> {
  const res = await workerFetch(`${ORIGIN}/oauth/register`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: "none" }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { client_id: string }).client_id;
}

/** A PKCE S256 pair (RFC 7636 §4.1–4.2). */
async function pkce(): Promise<{ verifier: string; challenge: string }> {
  const verifier = btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier)));
  const challenge = btoa(String.fromCharCode(...digest))
    .replace(/\+/g, "-")
    .replace(/\//g, "_")
    .replace(/=+$/, "");
  return { verifier, challenge };
}

/** The authorize URL of `clientId` with PKCE `challenge`. */
function authorizeUrl(clientId: string, challenge: string, extra: Record<string, string> = {}): string {
  const q = new URLSearchParams({
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "st-123",
    scope: "mcp",
    resource: `${ORIGIN}/mcp`,
    ...extra,
  });
  return `${ORIGIN}/oauth/authorize?${q}`;
}

/** Opens the consent page as `user` and returns the browser, the page and its form fields. */
async function openConsent(user: TestWebUser, url: string) {
  const browser = browserOf(user);
  const page = await browser.get(url);
  const html = await page.text();
  return { browser, page, html };
}

describe("the consent page /oauth/authorize", () => {
  it("sends a request without a session to sign-in, coming back to the same authorize URL", async () => {
    const clientId = await register();
    const url = authorizeUrl(clientId, (await pkce()).challenge);
    const res = await workerFetch(url);
    expect(res.status).toBe(303);
    const next = new URL(res.headers.get("location") ?? "", ORIGIN);
    expect(next.pathname).toBe("/sign-in");
    expect(`${ORIGIN}${next.searchParams.get("next")}`).toBe(url);
  });

  it("names the client, the account, the user and where access goes, under the dashboard CSP plus the redirect origin", async () => {
    const account = await createAccount("Pacific Freight");
    const user = await createWebUser(account.accountId, "viewer");
    const clientId = await register("Claude Desktop");
    const { page, html } = await openConsent(user, authorizeUrl(clientId, (await pkce()).challenge));
    expect(page.status).toBe(200);
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain("<h1>Allow Claude Desktop to access your account?</h1>");
    expect(html).toContain("Pacific Freight");
    expect(html).toContain(user.email);
    expect(html).toContain("your role is viewer");
    expect(html).toContain("127.0.0.1");
    expect(html).toContain("an app on your computer");
    expect(page.headers.get("content-security-policy")).toBe(consentPolicy(REDIRECT_URI));
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' http://127.0.0.1:33418;");
    expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    expect(page.headers.get("cache-control")).toBe("no-store");
    expect(page.headers.getSetCookie().some((c) => c.startsWith("__Host-oauth-consent-"))).toBe(true);
  });

  it("renders a registered client name with markup inert (escaped), never as HTML", async () => {
    const account = await createAccount();
    const user = await createWebUser(account.accountId, "admin");
    const clientId = await register('<script>alert(1)</script>"><img src=x onerror=alert(1)>');
    const { html } = await openConsent(user, authorizeUrl(clientId, (await pkce()).challenge));
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("shows an unknown client or an unregistered redirect URI as an error page, never redirecting there", async () => {
    const user = await createWebUser((await createAccount()).accountId, "admin");
    const { challenge } = await pkce();
    const unknown = await openConsent(user, authorizeUrl("no-such-client", challenge));
    expect(unknown.page.status).toBe(400);
    expect(unknown.page.headers.get("location")).toBeNull();
    expect(unknown.html).toContain("This app cannot be authorized");
    const clientId = await register();
    const elsewhere = await openConsent(
      user,
      authorizeUrl(clientId, challenge, { redirect_uri: "https://evil.example/callback" }),
    );
    expect(elsewhere.page.status).toBe(400);
    expect(elsewhere.page.headers.get("location")).toBeNull();
  });

  it("refuses a request without PKCE by redirecting the error to the registered client", async () => {
    const user = await createWebUser((await createAccount()).accountId, "admin");
    const clientId = await register();
    const url = new URL(authorizeUrl(clientId, "x"));
    url.searchParams.delete("code_challenge");
    url.searchParams.delete("code_challenge_method");
    const { page } = await openConsent(user, url.toString());
    expect(page.status).toBe(303);
    const back = new URL(page.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get("error")).toBe("invalid_request");
    expect(back.searchParams.get("state")).toBe("st-123");
  });

  it("Deny: back to the client with error=access_denied and its state, and no grant", async () => {
    const user = await createWebUser((await createAccount()).accountId, "admin");
    const clientId = await register();
    const { browser, html } = await openConsent(user, authorizeUrl(clientId, (await pkce()).challenge));
    const res = await browser.post(`${ORIGIN}/oauth/authorize`, {
      _csrf: hiddenInput(html, "_csrf"),
      handle: hiddenInput(html, "handle"),
      decision: "deny",
    });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get("location") ?? "");
    expect(back.searchParams.get("error")).toBe("access_denied");
    expect(back.searchParams.get("state")).toBe("st-123");
    expect(back.searchParams.get("code")).toBeNull();
    const grants = await env.OAUTH_KV.list({ prefix: `grant:${user.userId}:` });
    expect(grants.keys).toHaveLength(0);
  });

  it("Allow: a code for the client, exchanged only with the right code_verifier (else invalid_grant), once", async () => {
    const user = await createWebUser((await createAccount()).accountId, "member");
    const clientId = await register();
    const { verifier, challenge } = await pkce();
    const { browser, html } = await openConsent(user, authorizeUrl(clientId, challenge));
    const res = await browser.post(`${ORIGIN}/oauth/authorize`, {
      _csrf: hiddenInput(html, "_csrf"),
      handle: hiddenInput(html, "handle"),
      decision: "allow",
    });
    expect(res.status).toBe(303);
    const back = new URL(res.headers.get("location") ?? "");
    expect(`${back.origin}${back.pathname}`).toBe(REDIRECT_URI);
    expect(back.searchParams.get("state")).toBe("st-123");
    const code = back.searchParams.get("code") ?? "";
    expect(code).not.toBe("");

    const exchange = (codeVerifier: string) =>
      workerFetch(`${ORIGIN}/oauth/token`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({
          grant_type: "authorization_code",
          code,
          redirect_uri: REDIRECT_URI,
          client_id: clientId,
          code_verifier: codeVerifier,
        }).toString(),
      });
    const wrong = await exchange((await pkce()).verifier);
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toMatchObject({ error: "invalid_grant" });
    const right = await exchange(verifier);
    expect(right.status).toBe(200);
    const tokens = (await right.json()) as { access_token: string; token_type: string; scope: string };
    expect(tokens.token_type.toLowerCase()).toBe("bearer");
    expect(tokens.scope).toBe("mcp");
    // A code works once (RFC 6749 §10.5); its replay also revokes the grant it issued.
    const again = await exchange(verifier);
    expect(again.status).toBe(400);
    expect(await again.json()).toMatchObject({ error: "invalid_grant" });
    expect((await env.OAUTH_KV.list({ prefix: `grant:${user.userId}:` })).keys).toHaveLength(0);
  });

  it("refuses a consent POST without the CSRF token or from another site (403), and nothing is granted", async () => {
    const user = await createWebUser((await createAccount()).accountId, "admin");
    const clientId = await register();
    const { browser, html } = await openConsent(user, authorizeUrl(clientId, (await pkce()).challenge));
    const handle = hiddenInput(html, "handle");
    const noToken = await browser.post(`${ORIGIN}/oauth/authorize`, { handle, decision: "allow" });
    expect(noToken.status).toBe(403);
    await noToken.text();
    const crossSite = await browser.post(
      `${ORIGIN}/oauth/authorize`,
      { _csrf: hiddenInput(html, "_csrf"), handle, decision: "allow" },
      { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.example" },
    );
    expect(crossSite.status).toBe(403);
    await crossSite.text();
    expect((await env.OAUTH_KV.list({ prefix: `grant:${user.userId}:` })).keys).toHaveLength(0);
  });

  it("answers a POST without a session 401, and a handle from another browser or used twice 400", async () => {
    const user = await createWebUser((await createAccount()).accountId, "admin");
    const clientId = await register();
    const { browser, html } = await openConsent(user, authorizeUrl(clientId, (await pkce()).challenge));
    const form = { _csrf: hiddenInput(html, "_csrf"), handle: hiddenInput(html, "handle"), decision: "allow" };
    const anonymous = await workerFetch(`${ORIGIN}/oauth/authorize`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: ORIGIN, "Sec-Fetch-Site": "same-origin" },
      body: new URLSearchParams(form).toString(),
    });
    expect(anonymous.status).toBe(401);
    await anonymous.text();

    // The same user's session in another browser (no consent cookie): the handle is bound to the first browser.
    const other = browserOf(user);
    const foreign = await other.post(`${ORIGIN}/oauth/authorize`, form);
    expect(foreign.status).toBe(400);
    expect(await foreign.text()).toContain("nothing was granted");

    const first = await browser.post(`${ORIGIN}/oauth/authorize`, form);
    expect(first.status).toBe(303);
    const second = await browser.post(`${ORIGIN}/oauth/authorize`, form);
    expect(second.status).toBe(400);
    await second.text();
  });

  it("is 404 with OAuth off", async () => {
    const off: Env = { ...env, MCP_OAUTH: "off" };
    const res = await workerFetch(`${ORIGIN}/oauth/authorize?client_id=x`, {}, off);
    expect(res.status).toBe(404);
    await res.text();
  });
});

describe("consentPolicy", () => {
  it("adds only a plain http(s) origin of the redirect URI to form-action", () => {
    expect(consentPolicy("https://app.example.com/cb?x=1")).toContain("form-action 'self' https://app.example.com;");
    expect(consentPolicy("cursor://anysphere.cursor-mcp/oauth/callback")).toContain("form-action 'self';");
    expect(consentPolicy("not a url")).toContain("form-action 'self';");
  });
});
