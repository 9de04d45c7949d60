import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { api, apiJson, createAccount, type TestAccount } from "../helpers/api";
import type { One } from "../helpers/tracking";

// GET / PATCH /v2/document_settings (docs/api.md §Document settings, our extension): one per account, id the account
// id; auto_track off by default; the e-mail submission address read-only, allowed_senders writable.

const settingsBody = (attributes: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({
  data: { type: "document_settings", attributes, ...extra },
});

async function giveMailbox(account: TestAccount, token: string, allowed: string[]) {
  await env.DB.prepare(
    "INSERT INTO document_mailboxes (account_id, token, allowed_senders, created_at) VALUES (?1, ?2, ?3, '2026-11-28T00:00:00Z')",
  )
    .bind(account.accountId, token, JSON.stringify(allowed))
    .run();
}

describe("document settings", () => {
  it("GET: the defaults (auto_track off, no address) with the account's id", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<One>("/document_settings", { key: account.key });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/vnd.api+json");
    expect(json.data).toMatchObject({
      id: account.accountId,
      type: "document_settings",
      attributes: { auto_track: false, email_submission_address: null, allowed_senders: [], updated_at: null },
    });
  });

  it("PATCH auto_track and allowed_senders; the address is shown and read-only; another account is untouched", async () => {
    const account = await createAccount();
    const other = await createAccount();
    await giveMailbox(account, "abc123", ["ap@acme.com"]);
    const patched = await apiJson<One>("/document_settings", {
      method: "PATCH",
      key: account.key,
      body: settingsBody({
        auto_track: true,
        allowed_senders: [" Docs@Forwarder.COM ", "@carrier.com", "@carrier.com"],
      }),
    });
    expect(patched.res.status).toBe(200);
    expect(patched.json.data.attributes).toMatchObject({
      auto_track: true,
      email_submission_address: "documents+abc123@inbound.example.com",
      allowed_senders: ["docs@forwarder.com", "@carrier.com"],
    });
    expect(typeof patched.json.data.attributes.updated_at).toBe("string");
    const read = await apiJson<One>("/document_settings", { key: account.key });
    expect(read.json.data.attributes.auto_track).toBe(true);
    // Only one attribute: the other stays.
    const off = await apiJson<One>("/document_settings", {
      method: "PATCH",
      key: account.key,
      body: settingsBody({ auto_track: false }, { id: account.accountId }),
    });
    expect(off.json.data.attributes).toMatchObject({
      auto_track: false,
      allowed_senders: ["docs@forwarder.com", "@carrier.com"],
    });
    const theirs = await apiJson<One>("/document_settings", { key: other.key });
    expect(theirs.json.data).toMatchObject({
      id: other.accountId,
      attributes: { auto_track: false, email_submission_address: null, allowed_senders: [] },
    });
  });

  it("PATCH errors: bad senders, no mailbox, read-only address, wrong type, another account's id; nothing changes", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const cases: [unknown, number, string?][] = [
      [settingsBody({ allowed_senders: ["not an address"] }), 422, "/data/attributes/allowed_senders"],
      [settingsBody({ allowed_senders: ["ap@acme.com"] }), 422, "/data/attributes/allowed_senders"],
      [settingsBody({ email_submission_address: "documents+x@y.z" }), 422],
      [settingsBody({ auto_track: "yes" }), 422, "/data/attributes/auto_track"],
      [{ data: { type: "document", attributes: { auto_track: true } } }, 422, "/data/type"],
      [settingsBody({ auto_track: true }, { id: other.accountId }), 404],
    ];
    for (const [body, status, pointer] of cases) {
      const { res, json } = await apiJson<One>("/document_settings", { method: "PATCH", key: account.key, body });
      expect(res.status, JSON.stringify(body)).toBe(status);
      if (pointer) expect(json.errors?.[0]?.source?.pointer).toBe(pointer);
    }
    const read = await apiJson<One>("/document_settings", { key: account.key });
    expect(read.json.data.attributes).toMatchObject({ auto_track: false, allowed_senders: [] });
    const theirs = await apiJson<One>("/document_settings", { key: other.key });
    expect(theirs.json.data.attributes.auto_track).toBe(false);
  });

  it("401 without a key or with a bad one, on GET and PATCH", async () => {
    for (const key of [null, "svc_test_not_a_key"]) {
      expect((await api("/document_settings", { key })).status).toBe(401);
      const patch = await api("/document_settings", {
        method: "PATCH",
        key,
        body: settingsBody({ auto_track: true }),
      });
      expect(patch.status).toBe(401);
    }
  });
});
