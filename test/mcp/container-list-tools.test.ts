import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { describe, expect, it } from "vitest";
import { apiJson, createAccount } from "../helpers/api";
import { seedContainers } from "../helpers/container-rows";
import type { Many } from "../helpers/tracking";
import { expectMatchesOutputSchema } from "./fixtures";
import { connectMcp } from "./helpers";

// list_containers `sort` and `has_holds` (docs/mcp.md §Tools): the REST list's sort and filter (issue 28) through a real
// MCP client, in the REST list's order; a bad sort is an argument error naming `sort`.

const HOLD = { name: "customs", status: "hold", description: null } as const;

describe("list_containers sort and has_holds", () => {
  it("orders as GET /v2/containers?sort= does and keeps the boxes with holds", async () => {
    const account = await createAccount();
    const [a, b, c] = await seedContainers(account.accountId, [
      { number: "AAAU0000001", pickupLfd: "2026-01-10T07:59:59Z", holds: [HOLD], second: 1 },
      { number: "BBBU0000002", pickupLfd: "2026-01-08T07:59:59Z", second: 2 },
      { number: "CCCU0000003", second: 3 },
    ]);
    const { client } = await connectMcp(account.key);
    const tool = (await client.listTools()).tools.find((t) => t.name === "list_containers");
    const sorted = (await client.callTool({
      name: "list_containers",
      arguments: { sort: "pickup_lfd" },
    })) as CallToolResult;
    expect(sorted.isError ?? false).toBe(false);
    expectMatchesOutputSchema(tool?.outputSchema, sorted.structuredContent);
    const ids = ((sorted.structuredContent?.items ?? []) as { id: string }[]).map((i) => i.id);
    expect(ids).toEqual([b?.id, a?.id, c?.id]);
    const { json } = await apiJson<Many>("/containers?sort=pickup_lfd", { key: account.key });
    expect(json.data.map((d) => d.id)).toEqual(ids);

    const held = (await client.callTool({ name: "list_containers", arguments: { has_holds: true } })) as CallToolResult;
    expect(((held.structuredContent?.items ?? []) as { id: string }[]).map((i) => i.id)).toEqual([a?.id]);

    const bad = (await client.callTool({ name: "list_containers", arguments: { sort: "colour" } })) as CallToolResult;
    expect(bad.isError).toBe(true);
    const first = bad.content[0];
    expect(first?.type === "text" ? first.text : "").toContain("sort");
    await client.close();
  });
});
