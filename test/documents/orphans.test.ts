import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createDatabase } from "../../src/db/client";
import { ORPHAN_GRACE_MS, sweepOrphanDocumentFiles } from "../../src/documents/orphans";
import { FakeClock } from "../../src/lib/clock";
import { runMaintenance } from "../../src/tracking/maintenance";
import { createAccount } from "../helpers/api";
import { pdfBytes, putBytes, reserve, uploadDocument } from "../helpers/document-uploads";

// The cron's clean-up of document files (src/documents/orphans.ts, docs/documents.md §Orphan files): blobs reserved but
// never made a document, and R2 objects no row names, are deleted after 24 hours, a bounded number a run. The clock is
// injected (`nowMs`, or runMaintenance's FakeClock); R2's own upload times are real, so "later" is now + the grace.

const HOUR = 60 * 60 * 1000;
const deps = () => ({ db: createDatabase(env.DB), bucket: env.DOCUMENTS_BUCKET });

async function blobRow(id: string) {
  return env.DB.prepare("SELECT id FROM document_blobs WHERE id = ?1").bind(id).first();
}

/** Makes the blob look reserved `ageMs` before `nowMs`. */
async function age(blobId: string, nowMs: number, ageMs: number) {
  const at = new Date(nowMs - ageMs).toISOString().replace(/\.\d{3}Z$/, "Z");
  await env.DB.prepare("UPDATE document_blobs SET created_at = ?1 WHERE id = ?2").bind(at, blobId).run();
}

describe("orphan document files", () => {
  it("deletes blobs older than 24 h that never became a document, row and object; keeps documents and young blobs", async () => {
    const account = await createAccount();
    const now = Date.now();
    // Reserved, never uploaded.
    const reservedOnly = (await reserve(account, pdfBytes("never sent"))).json;
    // Reserved and uploaded, never POSTed to /documents.
    const uploadedOnly = (await reserve(account, pdfBytes("never a document"))).json;
    expect((await putBytes(uploadedOnly, pdfBytes("never a document"))).status).toBe(204);
    // A young one, and a real document whose blob is as old.
    const young = (await reserve(account, pdfBytes("young"))).json;
    const document = await uploadDocument(account, pdfBytes("kept"));
    const docBlob = await env.DB.prepare("SELECT blob_id FROM documents WHERE id = ?1")
      .bind(document.id)
      .first<{ blob_id: string }>();
    for (const id of [reservedOnly.id, uploadedOnly.id, docBlob?.blob_id ?? ""]) await age(id, now, 25 * HOUR);
    await age(young.id, now, 23 * HOUR);

    const report = await sweepOrphanDocumentFiles(deps(), now);
    expect(report.blobsDeleted).toBeGreaterThanOrEqual(2);
    expect(await blobRow(reservedOnly.id)).toBeNull();
    expect(await blobRow(uploadedOnly.id)).toBeNull();
    expect(await env.DOCUMENTS_BUCKET.head(`${account.accountId}/${uploadedOnly.id}`)).toBeNull();
    expect(await blobRow(young.id)).not.toBeNull();
    expect(await blobRow(docBlob?.blob_id ?? "")).not.toBeNull();
    expect(await env.DOCUMENTS_BUCKET.head(`${account.accountId}/${docBlob?.blob_id}`)).not.toBeNull();
    // The young one's turn comes once it is 24 hours old.
    await sweepOrphanDocumentFiles(deps(), now + 2 * HOUR);
    expect(await blobRow(young.id)).toBeNull();
  });

  it("a bounded number of blobs a run, oldest first", async () => {
    // Tests of a file share their D1: clear every older orphan first, so these three are the only candidates.
    await sweepOrphanDocumentFiles(deps(), Date.now() + 1000 * HOUR, { blobs: 1000, objects: 0 });
    const account = await createAccount();
    const now = Date.now();
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await reserve(account, pdfBytes(`bounded ${i}`))).json.id);
    for (const [i, id] of ids.entries()) await age(id, now, (30 - i) * HOUR);
    const first = await sweepOrphanDocumentFiles(deps(), now, { blobs: 2, objects: 0 });
    expect(first.blobsDeleted).toBe(2);
    expect([await blobRow(ids[0] ?? ""), await blobRow(ids[1] ?? "")]).toEqual([null, null]);
    expect(await blobRow(ids[2] ?? "")).not.toBeNull();
    expect((await sweepOrphanDocumentFiles(deps(), now, { blobs: 2, objects: 0 })).blobsDeleted).toBe(1);
    expect(await blobRow(ids[2] ?? "")).toBeNull();
  });

  it("deletes R2 objects no row names after the grace, walking the bucket a slice a run", async () => {
    const account = await createAccount();
    const prefix = `${account.accountId}/`;
    const strays = ["stray-a", "stray-b", "stray-c"].map((k) => `${prefix}${k}`);
    for (const key of strays) await env.DOCUMENTS_BUCKET.put(key, "left behind");
    const document = await uploadDocument(account, pdfBytes("named"));
    const named = await env.DB.prepare("SELECT storage_key FROM documents WHERE id = ?1")
      .bind(document.id)
      .first<{ storage_key: string }>();

    // Within the grace: nothing goes, whatever the walk sees.
    for (let i = 0; i < 10; i++) await sweepOrphanDocumentFiles(deps(), Date.now(), { blobs: 0, objects: 2 });
    for (const key of strays) expect(await env.DOCUMENTS_BUCKET.head(key)).not.toBeNull();

    // A day later: two keys a run, so a few runs cover the bucket; the named object stays.
    const later = Date.now() + ORPHAN_GRACE_MS + HOUR;
    let deleted = 0;
    for (let i = 0; i < 20 && deleted < strays.length; i++) {
      deleted += (await sweepOrphanDocumentFiles(deps(), later, { blobs: 0, objects: 2 })).objectsDeleted;
    }
    for (const key of strays) expect(await env.DOCUMENTS_BUCKET.head(key)).toBeNull();
    expect(await env.DOCUMENTS_BUCKET.head(named?.storage_key ?? "")).not.toBeNull();
    const cursor = await env.DB.prepare(
      "SELECT cursor FROM maintenance_cursors WHERE name = 'document_objects'",
    ).first();
    expect(cursor).not.toBeNull();
  });

  it("runs in the every-minute maintenance, with its clock", async () => {
    const account = await createAccount();
    const reserved = (await reserve(account, pdfBytes("cron"))).json;
    const now = Date.now();
    await age(reserved.id, now, 48 * HOUR);
    const report = await runMaintenance(env, new FakeClock(now));
    expect(report.orphanDocumentFiles?.blobsDeleted).toBeGreaterThanOrEqual(1);
    expect(await blobRow(reserved.id)).toBeNull();
  });
});
