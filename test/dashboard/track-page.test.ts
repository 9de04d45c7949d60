import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { DASHBOARD_CONTENT_SECURITY_POLICY } from "../../src/dashboard/headers";
import { withCheckDigit } from "../../src/infer/iso6346";
import { importDepsFromEnv } from "../../src/tracking-request-imports/queue";
import { runImportStep } from "../../src/tracking-request-imports/service";
import { createAccountWithWebUser, type TestWebUser, web } from "../helpers/web-session";

// The Track page (issue 28 §Track; docs/dashboard.md §Track): one number with a suggested line, and the bulk import
// (upload → preview → create → progress → results), members and admins only.

/** The page's CSRF token, read from its hidden `_csrf` input as a browser would submit it. */
async function csrfOf(user: TestWebUser, path = "/app/track"): Promise<string> {
  const html = await (await web(path, { user })).text();
  const token = /name="_csrf" value="([^"]+)"/.exec(html)?.[1];
  if (!token) throw new Error(`no _csrf on ${path}`);
  return token;
}

function boxNumber(): string {
  return withCheckDigit(`TSTU${String(Math.floor(Math.random() * 1e6)).padStart(6, "0")}`);
}

function uploadForm(csrf: string | null, csv: string, name = "boxes.csv"): FormData {
  const form = new FormData();
  if (csrf) form.set("_csrf", csrf);
  form.set("file", new File([csv], name, { type: "text/csv" }));
  return form;
}

async function countTrackingRequests(accountId: string): Promise<number> {
  const row = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_requests WHERE account_id = ?1")
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? -1;
}

describe("/app/track, one number", () => {
  it("shows the form to a member under the dashboard's CSP", async () => {
    const { user } = await createAccountWithWebUser("member");
    const res = await web("/app/track", { user });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CONTENT_SECURITY_POLICY);
    const html = await res.text();
    expect(html).toContain('<label for="track-number">Container, bill of lading or booking number</label>');
    expect(html).toContain('<label for="track-file">CSV or XLSX file</label>');
    expect(html).toContain('src="/app/assets/track.js"');
    expect(html).not.toMatch(/style="/);
  });

  it("creates the tracking request through the create path and says so", async () => {
    const { user, accountId } = await createAccountWithWebUser("member");
    const number = boxNumber();
    const res = await web("/app/track", {
      user,
      form: { _csrf: await csrfOf(user), number, scac: "TEST", request_type: "container" },
    });
    expect(res.status).toBe(303);
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/app\/track\?started=/);
    expect(await countTrackingRequests(accountId)).toBe(1);
    const page = await (await web(location, { user })).text();
    expect(page).toContain(`Tracking started for ${number} (TEST).`);
  });

  it("re-renders the form with the message next to the field and creates nothing", async () => {
    const { user, accountId } = await createAccountWithWebUser("admin");
    const csrf = await csrfOf(user);
    const blank = await web("/app/track", { user, form: { _csrf: csrf, number: "", scac: "TEST" } });
    expect(blank.status).toBe(422);
    const html = await blank.text();
    expect(html).toContain('aria-describedby="track-number-error track-number-hint"');
    expect(html).toContain('<p id="track-number-error" class="field-error">Enter a number.</p>');
    const unknown = await web("/app/track", { user, form: { _csrf: csrf, number: boxNumber(), scac: "ZZZZ" } });
    expect(unknown.status).toBe(422);
    expect(await unknown.text()).toContain("Scac &#39;ZZZZ&#39; is not recognized");
    // No line and no confident guess (MSKU is Maersk's prefix, without a source in tests): choose the line.
    const guess = await web("/app/track", { user, form: { _csrf: csrf, number: withCheckDigit("MSKU000001") } });
    expect(guess.status).toBe(422);
    expect(await guess.text()).toContain("choose it from the list");
    expect(await countTrackingRequests(accountId)).toBe(0);
  });

  it("answers the island's suggestion as JSON from the infer_number service", async () => {
    const { user } = await createAccountWithWebUser("member");
    const res = await web(`/app/track/infer?number=${withCheckDigit("MSKU123456")}`, { user });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { number_type: string; shipping_line: { candidates: { scac: string }[] } };
    expect(body.number_type).toBe("container");
    expect(body.shipping_line.candidates[0]?.scac).toBe("MAEU");
    expect((await web("/app/track/infer?number=%20", { user })).status).toBe(422);
  });

  it("security: no session, a viewer, a missing CSRF token", async () => {
    const none = await web("/app/track");
    expect(none.status).toBe(303);
    expect(none.headers.get("location")).toMatch(/^\/sign-in/);
    expect((await web("/app/track", { form: { number: "X" } })).status).toBe(401);
    const { user: viewer, accountId } = await createAccountWithWebUser("viewer");
    const page = await web("/app/track", { user: viewer });
    expect(page.status).toBe(403);
    expect(await page.text()).toContain("needs the member role");
    const viewerToken = (
      await env.DB.prepare("SELECT csrf_token FROM web_sessions WHERE id = ?1")
        .bind(viewer.sessionId)
        .first<{ csrf_token: string }>()
    )?.csrf_token;
    const post = await web("/app/track", {
      user: viewer,
      form: { _csrf: viewerToken ?? "", number: boxNumber(), scac: "TEST" },
    });
    expect(post.status).toBe(403);
    const { user: member, accountId: memberAccount } = await createAccountWithWebUser("member");
    expect((await web("/app/track", { user: member, form: { number: boxNumber(), scac: "TEST" } })).status).toBe(403);
    expect(await countTrackingRequests(accountId)).toBe(0);
    expect(await countTrackingRequests(memberAccount)).toBe(0);
  });
});

describe("/app/track/imports", () => {
  it("uploads 12 rows with two bad ones, previews them, creates ten and explains two", async () => {
    const { user, accountId } = await createAccountWithWebUser("member");
    const numbers = Array.from({ length: 10 }, () => boxNumber());
    const first = numbers[0] ?? "";
    const bad = `${first.slice(0, -1)}${(Number(first.slice(-1)) + 1) % 10}`;
    const csv = [
      "container_number,scac,ref_numbers",
      ...numbers.map((n, i) => `${n},TEST,PO-${i}`),
      `${bad},TEST,`,
      `${numbers[3]},TEST,dup`,
    ].join("\n");
    const res = await web("/app/track/imports", { user, body: uploadForm(await csrfOf(user), csv) });
    expect(res.status).toBe(303);
    const location = res.headers.get("location") ?? "";
    expect(location).toMatch(/^\/app\/track\/imports\/[0-9a-f-]+$/);
    const preview = await (await web(location, { user })).text();
    expect(preview).toContain("12 rows: 10 valid, 2 invalid");
    expect(preview).toContain("Check digit failed (ISO 6346)");
    expect(preview).toContain("Same number and line as row 5.");
    expect(preview).toContain(">Create 10 tracking requests</button>");
    expect(await countTrackingRequests(accountId)).toBe(0);

    const start = await web(`${location}/start`, { user, form: { _csrf: await csrfOf(user, location) } });
    expect(start.status).toBe(303);
    const running = await (await web(location, { user })).text();
    // Either still running (the progress bar) or already done by the queue's consumer.
    expect(running).toMatch(/<progress id="import-progress" max="10"|10 created, 2 invalid/);
    const importId = location.split("/").pop() ?? "";
    // Finish deterministically (the queue's consumer may be doing the same: rows are claimed one by one).
    while (!(await runImportStep(importDepsFromEnv(env), { importId, accountId })).done) {}
    const done = await (await web(location, { user })).text();
    expect(done).toContain("10 created, 2 invalid");
    expect(done).toContain("10 tracked: the boxes appear under Containers");
    expect(done).toContain("Download results (CSV)");
    expect(await countTrackingRequests(accountId)).toBe(10);
    const status = (await (await web(`${location}/status`, { user })).json()) as { status: string; progress: number };
    expect(status).toMatchObject({ status: "completed", progress: 1 });
    const results = await web(`${location}/results.csv`, { user });
    expect(results.headers.get("content-type")).toContain("text/csv");
    const lines = (await results.text()).trim().split("\r\n");
    expect(lines).toHaveLength(13);
    expect(lines.filter((l) => l.includes(",created,"))).toHaveLength(10);
  });

  it("renders a file's markup inert in the preview and neutralises formulas in the results CSV", async () => {
    const { user } = await createAccountWithWebUser("member");
    const csv = [
      "number,type,scac,ref_numbers",
      "<script>alert(1)</script>,container,TEST,",
      `${boxNumber()},"""><img src=x onerror=alert(1)>",TEST,`,
      `${boxNumber()},container,TEST,=cmd|' /C calc'!A0`,
    ].join("\n");
    const res = await web("/app/track/imports", { user, body: uploadForm(await csrfOf(user), csv) });
    const location = res.headers.get("location") ?? "";
    const html = await (await web(location, { user })).text();
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    const results = await (await web(`${location}/results.csv`, { user })).text();
    // The cell (its list of reference numbers) starts with a quote: a spreadsheet shows it as text, never runs it.
    expect(results).toContain(`,"'=cmd;' /C calc'!A0",`);
    expect(results).not.toMatch(/,"?=cmd/);
  });

  it("refuses a file without a number column, a missing file, no CSRF token, a viewer, another account's import", async () => {
    const { user, accountId } = await createAccountWithWebUser("member");
    const csrf = await csrfOf(user);
    const noColumn = await web("/app/track/imports", { user, body: uploadForm(csrf, "foo,bar\n1,2\n") });
    expect(noColumn.status).toBe(422);
    expect(await noColumn.text()).toContain("The file has no number column");
    const noFile = new FormData();
    noFile.set("_csrf", csrf);
    expect((await web("/app/track/imports", { user, body: noFile })).status).toBe(422);
    expect((await web("/app/track/imports", { user, body: uploadForm(null, "number\nX\n") })).status).toBe(403);
    const { user: viewer } = await createAccountWithWebUser("viewer");
    expect((await web("/app/track/imports", { user: viewer, body: uploadForm("x", "number\nX\n") })).status).toBe(403);
    const count = await env.DB.prepare("SELECT COUNT(*) AS n FROM tracking_request_imports WHERE account_id = ?1")
      .bind(accountId)
      .first<{ n: number }>();
    expect(count?.n).toBe(0);

    const res = await web("/app/track/imports", { user, body: uploadForm(csrf, `number,scac\n${boxNumber()},TEST\n`) });
    const location = res.headers.get("location") ?? "";
    const { user: stranger } = await createAccountWithWebUser("admin");
    for (const path of [location, `${location}/status`, `${location}/results.csv`]) {
      expect((await web(path, { user: stranger })).status).toBe(404);
    }
    const strangerStart = await web(`${location}/start`, { user: stranger, form: { _csrf: await csrfOf(stranger) } });
    expect(strangerStart.status).toBe(404);
    expect(await countTrackingRequests(accountId)).toBe(0);
  });
});
