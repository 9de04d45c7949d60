import { describe, expect, it } from "vitest";
import { DASHBOARD_CONTENT_SECURITY_POLICY } from "../../src/dashboard/headers";
import { createAccountWithWebUser, web } from "../helpers/web-session";

describe("the dashboard's guard", () => {
  it("sends a page request without a session to sign-in, keeping where it was going", async () => {
    const res = await web("/app/containers?page=2");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent("/app/containers?page=2")}`);
  });

  it("answers 401 to a state-changing request without a session, and a bad cookie is no session", async () => {
    expect((await web("/app/containers", { form: { a: "b" } })).status).toBe(401);
    const res = await web("/app", { headers: { Cookie: "__Host-session=forged" } });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(/^\/sign-in/);
  });

  it("serves the signed-in user under the dashboard's CSP", async () => {
    const { user } = await createAccountWithWebUser("viewer");
    const res = await web("/app", { user });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/app/containers");
    expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CONTENT_SECURITY_POLICY);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses a state-changing request without the CSRF token, or from another site, before anything runs", async () => {
    const { user } = await createAccountWithWebUser("admin");
    expect((await web("/app/containers", { user, form: { a: "b" } })).status).toBe(403);
    const crossSite = await web("/app/containers", {
      user,
      form: { _csrf: "x" },
      headers: { "Sec-Fetch-Site": "cross-site", Origin: "https://evil.test" },
    });
    expect(crossSite.status).toBe(403);
  });
});
