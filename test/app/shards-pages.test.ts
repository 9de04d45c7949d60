import { env } from "cloudflare:test";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { beforeAll, describe, expect, it } from "vitest";
import { signToken } from "../../src/documents/signing";
import { newId } from "../../src/lib/ids";
import { api, type TestAccount } from "../helpers/api";
import { type SeededContainer, seedContainers } from "../helpers/container-rows";
import { pdfBytes, uploadDocument } from "../helpers/document-uploads";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";
import { createWebUser, type TestWebUser, web } from "../helpers/web-session";
import { connectMcp } from "../mcp/helpers";

// The request side of shards beyond REST (issue 29 §3; docs/SCALING.md §Shards): the dashboard (sessions), MCP and the
// signed document URLs (no key: the token names the account) read and write account B's rows on shard 1 (`DB_1`);
// account A (shard 0) sees none of them.

let a: TestAccount;
let b: TestAccount;
let aUser: TestWebUser;
let bUser: TestWebUser;
let aBox: SeededContainer;
let bBox: SeededContainer;
let shard1: D1Database;

beforeAll(async () => {
  shard1 = await prepareSecondShard();
  a = await createAccountOnShard(0, "A on shard 0");
  b = await createAccountOnShard(1, "B on shard 1");
  await env.DB.prepare("UPDATE accounts SET entitlements = '[\"routing\"]' WHERE id = ?1").bind(b.accountId).run();
  // Users and sessions live in the primary whatever the account's shard.
  aUser = await createWebUser(a.accountId, "admin");
  bUser = await createWebUser(b.accountId, "admin");
  [aBox] = (await seedContainers(a.accountId, [{ number: "AAAU3000001", second: 1 }])) as [SeededContainer];
  [bBox] = (await seedContainers(b.accountId, [{ number: "BBBU4000002", second: 2 }], shard1)) as [SeededContainer];
});

describe("dashboard on shard 1", () => {
  it("lists B's containers from DB_1 on the containers page, and not A's", async () => {
    const res = await web("/app/containers", { user: bUser });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("BBBU4000002");
    expect(html).not.toContain("AAAU3000001");
    const other = await (await web("/app/containers", { user: aUser })).text();
    expect(other).toContain("AAAU3000001");
    expect(other).not.toContain("BBBU4000002");
  });

  it("shows B's container page (its map needs the primary's entitlement) and answers A 404 for it", async () => {
    const res = await web(`/app/containers/${bBox.id}`, { user: bUser });
    expect(res.status).toBe(200);
    const html = await res.text();
    expect(html).toContain("BBBU4000002");
    // The routing entitlement is in the primary only: the map section is drawn, not "needs the routing feature".
    expect(html).toContain('id="map"');
    expect(html).not.toContain("needs the routing feature");
    expect((await web(`/app/containers/${bBox.id}`, { user: aUser })).status).toBe(404);
    expect((await web(`/app/containers/${aBox.id}`, { user: bUser })).status).toBe(404);
  });

  it("lists B's team and API keys from the primary", async () => {
    const team = await web("/app/settings/team", { user: bUser });
    expect(team.status).toBe(200);
    expect(await team.text()).toContain(bUser.email);
    const keys = await web("/app/settings/api-keys", { user: bUser });
    expect(keys.status).toBe(200);
    expect(await keys.text()).toContain(b.key.slice(0, 13));
  });

  it("serves B's settings pages (webhooks, alerts, tariffs, track) from DB_1", async () => {
    await shard1
      .prepare(
        `INSERT INTO webhooks (id, account_id, url, events, active, secret, created_at, updated_at)
         VALUES (?1, ?2, 'https://hooks.example.com/only-b', '[]', 1, 'whsec_x', ?3, ?3)`,
      )
      .bind(crypto.randomUUID(), b.accountId, "2026-01-01T00:00:00Z")
      .run();
    const webhooks = await web("/app/settings/webhooks", { user: bUser });
    expect(webhooks.status).toBe(200);
    expect(await webhooks.text()).toContain("hooks.example.com/only-b");
    expect(await (await web("/app/settings/webhooks", { user: aUser })).text()).not.toContain("only-b");
    for (const path of ["/app/settings/alerts", "/app/settings/tariffs", "/app/track"]) {
      expect((await web(path, { user: bUser })).status, path).toBe(200);
    }
  });

  it("sends a request without a session to sign in", async () => {
    const res = await web("/app/containers");
    expect([302, 303]).toContain(res.status);
  });
});

describe("MCP on shard 1", () => {
  it("lists and reads B's containers from DB_1 through the tools", async () => {
    const { client } = await connectMcp(b.key);
    try {
      const listed = (await client.callTool({ name: "list_containers", arguments: {} })) as CallToolResult;
      expect(listed.isError ?? false).toBe(false);
      const ids = ((listed.structuredContent?.items ?? []) as { id: string }[]).map((i) => i.id);
      expect(ids).toEqual([bBox.id]);
      const got = (await client.callTool({ name: "get_container", arguments: { id: bBox.id } })) as CallToolResult;
      expect(got.isError ?? false).toBe(false);
      // The route tool reads the entitlement from the primary (B's shard copy has none) and answers for B's box.
      const route = (await client.callTool({
        name: "get_container_route",
        arguments: { id: bBox.id },
      })) as CallToolResult;
      const text = route.content[0]?.type === "text" ? route.content[0].text : "";
      expect(text).not.toContain("not enabled");
      const cross = (await client.callTool({ name: "get_container", arguments: { id: aBox.id } })) as CallToolResult;
      expect(cross.isError).toBe(true);
    } finally {
      await client.close();
    }
    const { client: clientA } = await connectMcp(a.key);
    try {
      const listed = (await clientA.callTool({ name: "list_containers", arguments: {} })) as CallToolResult;
      expect(((listed.structuredContent?.items ?? []) as { id: string }[]).map((i) => i.id)).toEqual([aBox.id]);
    } finally {
      await clientA.close();
    }
  });
});

describe("document upload and download URLs on shard 1", () => {
  it("stores B's blob and document in DB_1 through the signed URLs, and downloads it", async () => {
    const bytes = pdfBytes("shard one");
    const document = await uploadDocument(b, bytes);
    const inShard = await shard1
      .prepare("SELECT COUNT(*) AS n FROM documents WHERE account_id = ?1")
      .bind(b.accountId)
      .first<{ n: number }>();
    expect(inShard?.n).toBe(1);
    const inPrimary = await env.DB.prepare("SELECT COUNT(*) AS n FROM document_blobs WHERE account_id = ?1")
      .bind(b.accountId)
      .first<{ n: number }>();
    expect(inPrimary?.n).toBe(0);
    const link = await api(`/documents/${document.id}/download_url`, { key: b.key });
    expect(link.status).toBe(200);
    const url = ((await link.json()) as { download_url: string }).download_url;
    const file = await api(url);
    expect(file.status).toBe(200);
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(bytes);
    expect((await api(`/documents/${document.id}`, { key: a.key })).status).toBe(404);
  });

  it("refuses signed URLs naming an account the primary does not know (403, nothing read or stored)", async () => {
    const payload = { id: newId(), accountId: newId(), expiresAt: Math.floor(Date.now() / 1000) + 600 };
    const upload = await signToken(env.DOCUMENT_SIGNING_KEY, "upload", payload);
    const put = await api(`https://api.test/files/uploads/${upload}`, { method: "PUT", body: "bytes" });
    expect(put.status).toBe(403);
    const download = await signToken(env.DOCUMENT_SIGNING_KEY, "download", payload);
    expect((await api(`https://api.test/files/documents/${download}`)).status).toBe(403);
  });
});
