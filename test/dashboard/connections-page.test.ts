import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { grantIdOfToken } from "../../src/oauth/mcp-bridge";
import { createAccount } from "../helpers/api";
import { createWebUser } from "../helpers/web-session";
import { initializeBody } from "../mcp/helpers";
import { browserOf, connectWithOAuth, hiddenInput, MCP_ENDPOINT, ORIGIN, workerFetch } from "../oauth/helpers";

const PAGE = `${ORIGIN}/app/account/connections`;

/** An `initialize` POST to /mcp with `token` as Bearer. */
function initializeWith(token: string) {
  return workerFetch(MCP_ENDPOINT, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      Authorization: `Bearer ${token}`,
    },
    body: JSON.stringify(initializeBody()),
  });
}

describe("/app/account/connections", () => {
  it("lists the apps the user allowed (names inert) and revokes one: its token stops working at once", async () => {
    const user = await createWebUser((await createAccount()).accountId, "viewer");
    const name = "<script>alert(1)</script> Desk";
    const { client, oauth } = await connectWithOAuth(user, name);
    await client.close();
    const token = oauth.savedTokens?.access_token ?? "";
    const browser = browserOf(user);

    const listed = await browser.get(PAGE);
    expect(listed.status).toBe(200);
    const html = await listed.text();
    expect(html).toContain("<h1>Connected apps</h1>");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt; Desk");
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).toContain('<th scope="col">App</th>');
    const grantId = grantIdOfToken(token) ?? "";
    expect(html).toContain(`/app/account/connections/${grantId}/revoke`);

    const revoked = await browser.post(`${PAGE}/${grantId}/revoke`, { _csrf: hiddenInput(html, "_csrf") });
    expect(revoked.status).toBe(303);
    expect(revoked.headers.get("location")).toBe("/app/account/connections?revoked=1");
    const after = await (await browser.get(`${PAGE}?revoked=1`)).text();
    expect(after).toContain("Access revoked");
    expect(after).toContain("No app is connected");
    const refused = await initializeWith(token);
    expect(refused.status).toBe(401);
    await refused.text();
  });

  it("answers another user's grant id 404 and leaves that grant alone", async () => {
    const account = await createAccount();
    const owner = await createWebUser(account.accountId, "admin");
    const { client, oauth } = await connectWithOAuth(owner);
    await client.close();
    const grantId = grantIdOfToken(oauth.savedTokens?.access_token ?? "") ?? "";
    const other = await createWebUser((await createAccount()).accountId, "admin");
    const browser = browserOf(other);
    const html = await (await browser.get(PAGE)).text();
    const res = await browser.post(`${PAGE}/${grantId}/revoke`, { _csrf: hiddenInput(html, "_csrf") });
    expect(res.status).toBe(404);
    expect(await res.text()).toContain("no such connected app");
    expect((await env.OAUTH_KV.list({ prefix: `grant:${owner.userId}:${grantId}` })).keys).toHaveLength(1);
  });

  it("needs a session (GET → sign-in, POST → 401) and the CSRF token (403)", async () => {
    const page = await workerFetch(PAGE);
    expect(page.status).toBe(303);
    expect(page.headers.get("location")).toMatch(/^\/sign-in\?next=/);
    const anonymous = await workerFetch(`${PAGE}/x/revoke`, {
      method: "POST",
      headers: { Origin: ORIGIN, "Sec-Fetch-Site": "same-origin" },
    });
    expect(anonymous.status).toBe(401);
    await anonymous.text();
    const user = await createWebUser((await createAccount()).accountId, "member");
    const noToken = await browserOf(user).post(`${PAGE}/x/revoke`, {});
    expect(noToken.status).toBe(403);
    await noToken.text();
  });

  it("says OAuth is off when MCP_OAUTH is off", async () => {
    const user = await createWebUser((await createAccount()).accountId, "member");
    const res = await workerFetch(PAGE, { headers: { Cookie: user.cookie } }, { ...env, MCP_OAUTH: "off" });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("OAuth sign-in for MCP clients is off");
  });
});
