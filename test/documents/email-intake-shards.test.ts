import { env } from "cloudflare:test";
import { beforeAll, describe, expect, it } from "vitest";
import { billOfLadingPdf } from "../fixtures/documents";
import { deliverEmail, EMAIL_DOMAIN, mimeMessage } from "../helpers/email-submissions";
import { createAccountOnShard, prepareSecondShard } from "../helpers/shards";
import { until } from "../helpers/vessels";

// E-mail intake and document extraction for an account on shard 1 (issue 29 §3, docs/SCALING.md §How the pipeline uses shards):
// the mailbox token is found in the account's shard, the submission and its documents are written there, and the
// document-extractions consumer extracts the document on that shard.

beforeAll(async () => {
  await prepareSecondShard();
});

const shard1 = () => env.DB_1 as D1Database;

async function rows(d1: D1Database, table: string, accountId: string): Promise<number> {
  const row = await d1
    .prepare(`SELECT COUNT(*) AS n FROM ${table} WHERE account_id = ?1`)
    .bind(accountId)
    .first<{ n: number }>();
  return row?.n ?? 0;
}

describe("e-mail intake on shard 1", () => {
  it("a message to a shard-1 mailbox is stored in shard 1 and its document extracted there", async () => {
    const account = await createAccountOnShard(1, "Mailbox on shard 1");
    const token = crypto.randomUUID().replaceAll("-", "");
    await shard1()
      .prepare(
        "INSERT INTO document_mailboxes (account_id, token, allowed_senders, created_at) VALUES (?1, ?2, ?3, '2026-11-28T00:00:00Z')",
      )
      .bind(account.accountId, token, JSON.stringify(["desk@carrier.example"]))
      .run();
    const address = `documents+${token}@${EMAIL_DOMAIN}`;
    const raw = mimeMessage({
      from: "desk@carrier.example",
      to: address,
      subject: "BL on shard 1",
      attachments: [{ filename: "bl.pdf", contentType: "application/pdf", bytes: await billOfLadingPdf() }],
    });
    expect(await deliverEmail("desk@carrier.example", address, raw)).toEqual([]);
    expect(await rows(shard1(), "email_submissions", account.accountId)).toBe(1);
    expect(await rows(shard1(), "documents", account.accountId)).toBe(1);
    expect(await rows(env.DB, "email_submissions", account.accountId)).toBe(0);
    expect(await rows(env.DB, "documents", account.accountId)).toBe(0);
    // The extraction (the document-extractions consumer, by the message's account) writes its result on shard 1.
    await until(
      async () => (await rows(shard1(), "document_representations", account.accountId)) > 0,
      20_000,
      "the extraction",
    );
    expect(await rows(env.DB, "document_representations", account.accountId)).toBe(0);
  });

  it("an unknown token is refused, whatever the shards hold", async () => {
    const raw = mimeMessage({ from: "desk@carrier.example", to: "x", subject: "?", attachments: [] });
    expect(await deliverEmail("desk@carrier.example", `documents+nosuchtoken@${EMAIL_DOMAIN}`, raw)).toEqual([
      "Unknown recipient.",
    ]);
  });
});
