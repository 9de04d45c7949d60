import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { billOfLadingPdf, FIXTURE_CONTAINERS, scannedPdf } from "../fixtures/documents";
import { apiJson, createAccount } from "../helpers/api";
import { uploadDocument } from "../helpers/document-uploads";
import { insertWebhook } from "../helpers/receiver";
import { until } from "../helpers/vessels";

// Extraction after upload (docs/api.md §Documents "Extraction"): POST /documents queues the document; the
// document-extractions consumer reads it from R2, stores the extractor's result as the document's
// document_representation (include=last_document_representation) and writes document.extracted or
// document.extraction_failed to the webhook outbox, in one batch.

interface Notification {
  event: string;
  payload: string;
  reference_object_type: string;
  reference_object_id: string;
}

async function notificationsOf(accountId: string): Promise<Notification[]> {
  const { results } = await env.DB.prepare(
    "SELECT event, payload, reference_object_type, reference_object_id FROM webhook_notifications WHERE account_id = ?1",
  )
    .bind(accountId)
    .all<Notification>();
  return results;
}

interface Included {
  id: string;
  type: string;
  attributes: Record<string, unknown>;
}

describe("document extraction", () => {
  it("a BL with a text layer: representation stored, document_type set, document.extracted in the outbox", async () => {
    const account = await createAccount();
    await insertWebhook(account, { events: ["document.extracted", "document.extraction_failed"] });
    const doc = await uploadDocument(account, await billOfLadingPdf(), "maersk bl.pdf");
    const got = await until(
      async () => {
        const { json } = await apiJson<{
          data: { attributes: Record<string, unknown>; relationships: Record<string, { data: unknown }> };
          included?: Included[];
        }>(`/documents/${doc.id}?include=last_document_representation`, { key: account.key });
        return json.included?.length ? json : undefined;
      },
      20_000,
      "the extraction",
    );
    expect(got.data.attributes.document_type).toBe("bill_of_lading");
    const [representation] = got.included ?? [];
    expect(got.data.relationships.last_document_representation?.data).toEqual({
      type: "document_representation",
      id: representation?.id,
    });
    expect(representation?.type).toBe("document_representation");
    const payload = representation?.attributes.payload as Record<string, { value: string } | { value: string }[]>;
    expect(payload.bill_of_lading_number).toMatchObject({ value: "MAEU241234567" });
    expect(payload.shipping_line_scac).toMatchObject({ value: "MAEU" });
    expect((payload.container_numbers as { value: string }[]).map((c) => c.value)).toEqual([
      FIXTURE_CONTAINERS.maersk1,
      FIXTURE_CONTAINERS.maersk2,
    ]);
    // The alias includes the same resource.
    const alias = await apiJson<{ included?: Included[] }>(`/documents/${doc.id}?include=current_extraction`, {
      key: account.key,
    });
    expect(alias.json.included?.map((r) => r.id)).toEqual([representation?.id]);

    const [notification] = await notificationsOf(account.accountId);
    expect(notification).toMatchObject({
      event: "document.extracted",
      reference_object_type: "document",
      reference_object_id: doc.id,
    });
    const body = JSON.parse(notification?.payload ?? "{}") as { included: Included[] };
    expect(body.included.map((r) => r.type)).toEqual(["document", "document_representation"]);
    expect(body.included[0]?.attributes.document_type).toBe("bill_of_lading");
  });

  it("a scanned PDF without a text layer: no representation, document.extraction_failed in the outbox", async () => {
    const account = await createAccount();
    await insertWebhook(account, { events: ["document.extracted", "document.extraction_failed"] });
    const doc = await uploadDocument(account, await scannedPdf(), "scan.pdf");
    const [notification] = await until(
      async () => {
        const rows = await notificationsOf(account.accountId);
        return rows.length > 0 ? rows : undefined;
      },
      20_000,
      "the failure notification",
    );
    expect(notification).toMatchObject({ event: "document.extraction_failed", reference_object_id: doc.id });
    const row = await env.DB.prepare(
      "SELECT extraction_error, last_document_representation_id FROM documents WHERE id = ?1",
    )
      .bind(doc.id)
      .first<{ extraction_error: string; last_document_representation_id: string | null }>();
    expect(row).toEqual({ extraction_error: "no_text_layer", last_document_representation_id: null });
    const { json } = await apiJson<{
      included?: unknown[];
      data: { relationships: Record<string, { data: unknown }> };
    }>(`/documents/${doc.id}?include=last_document_representation`, { key: account.key });
    expect(json.data.relationships.last_document_representation?.data).toBeNull();
    expect(json.included ?? []).toEqual([]);
  });

  it("without a subscribed webhook nothing is written to the outbox, and another account sees no representation", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const doc = await uploadDocument(account, await billOfLadingPdf());
    await until(
      async () => {
        const row = await env.DB.prepare("SELECT last_document_representation_id AS id FROM documents WHERE id = ?1")
          .bind(doc.id)
          .first<{ id: string | null }>();
        return row?.id ?? undefined;
      },
      20_000,
      "the extraction",
    );
    expect(await notificationsOf(account.accountId)).toEqual([]);
    const { res } = await apiJson(`/documents/${doc.id}?include=last_document_representation`, { key: other.key });
    expect(res.status).toBe(404);
  });

  it("POST /documents/{id}/reextract: 202, a new representation becomes the last one; another account's id is a 404", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const doc = await uploadDocument(account, await billOfLadingPdf());
    const lastId = async () =>
      (
        await env.DB.prepare("SELECT last_document_representation_id AS id FROM documents WHERE id = ?1")
          .bind(doc.id)
          .first<{ id: string | null }>()
      )?.id ?? undefined;
    const first = await until(lastId, 20_000, "the first extraction");
    const { res, json } = await apiJson(`/documents/${doc.id}/reextract`, { method: "POST", key: account.key });
    expect(res.status).toBe(202);
    expect(json).toEqual({ status: "accepted" });
    const second = await until(async () => ((await lastId()) !== first ? lastId() : undefined), 20_000, "the rerun");
    expect(second).not.toBe(first);
    const count = await env.DB.prepare("SELECT count(*) AS n FROM document_representations WHERE document_id = ?1")
      .bind(doc.id)
      .first<{ n: number }>();
    expect(count?.n).toBe(2);
    const theirs = await apiJson(`/documents/${doc.id}/reextract`, { method: "POST", key: other.key });
    expect(theirs.res.status).toBe(404);
    // reclassify re-runs the same extractor (it classifies too): a third representation, the type set again.
    await env.DB.prepare("UPDATE documents SET document_type = NULL WHERE id = ?1").bind(doc.id).run();
    const reclassify = await apiJson(`/documents/${doc.id}/reclassify`, { method: "POST", key: account.key });
    expect(reclassify.res.status).toBe(202);
    expect(reclassify.json).toEqual({ status: "accepted" });
    const third = await until(async () => ((await lastId()) !== second ? lastId() : undefined), 20_000, "reclassify");
    expect(third).not.toBe(second);
    const typed = await apiJson<{ data: { attributes: Record<string, unknown> } }>(`/documents/${doc.id}`, {
      key: account.key,
    });
    expect(typed.json.data.attributes.document_type).toBe("bill_of_lading");
    expect((await apiJson(`/documents/${doc.id}/reclassify`, { method: "POST", key: other.key })).res.status).toBe(404);
  });
});
