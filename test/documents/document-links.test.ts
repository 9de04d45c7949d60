import { createExecutionContext, env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app";
import { SANDBOX_CONTAINER_NUMBERS } from "../../src/tracking/sources/sandbox";
import { manifestPdf, pdfWithText } from "../fixtures/documents";
import { api, apiJson, BASE, createAccount, type TestAccount } from "../helpers/api";
import { putBytes, reserve } from "../helpers/document-uploads";
import { insertWebhook, notificationsOf } from "../helpers/receiver";
import { deliverTrackingMessages, type Many, type One, trackSandboxShipment } from "../helpers/tracking";
import { until } from "../helpers/vessels";

// Links between documents and the account's shipments and containers (docs/documents.md §Links): made from the
// extracted reference tokens at extraction, later when a lookup creates the shipment, again on relink; shown as the
// document's `shipments` / `cargos` and their includes; announced once per link as `link.created` (an extension
// event, only to webhooks that list it); `filter[reference]` finds documents by a token.

const [BOX_A, BOX_B] = SANDBOX_CONTAINER_NUMBERS;

/** A one-page arrival notice PDF naming the two sandbox boxes, one spaced and dashed as carriers print them. */
function noticePdf(extra: string[] = []): Promise<Uint8Array> {
  const spaced = (n: string) => `${n.slice(0, 4)} ${n.slice(4, 10)}-${n.slice(10)}`;
  const lines = ["ARRIVAL NOTICE", `Container: ${spaced(BOX_A)}`, `Container: ${BOX_B}`, ...extra];
  return pdfWithText([lines.map((text, i) => ({ text, x: 50, y: 800 - i * 18 }))]);
}

/** Uploads a PDF document (reserve, PUT, POST /documents) and returns its id. */
async function uploadPdf(account: TestAccount, bytes: Uint8Array, name = "notice.pdf"): Promise<string> {
  const reserved = await reserve(account, bytes, { filename: name });
  expect(reserved.res.status).toBe(200);
  expect((await putBytes(reserved.json, bytes)).status).toBe(204);
  const created = await apiJson<One>("/documents", {
    key: account.key,
    body: { data: { type: "document", attributes: { name, attached_document: reserved.json.signed_id } } },
  });
  expect(created.res.status).toBe(201);
  return created.json.data.id;
}

/** Waits for the document's extraction to be stored. */
async function extracted(account: TestAccount, id: string): Promise<void> {
  await until(
    async () => {
      const { json } = await apiJson<One>(`/documents/${id}`, { key: account.key });
      return json.data.relationships?.last_document_representation?.data ? true : undefined;
    },
    20_000,
    "the extraction",
  );
}

type Linkage = { id: string; type: string }[];

async function linkage(account: TestAccount, id: string, include = ""): Promise<One> {
  const { res, json } = await apiJson<One>(`/documents/${id}${include ? `?include=${include}` : ""}`, {
    key: account.key,
  });
  expect(res.status).toBe(200);
  return json;
}

const cargosOf = (doc: One) => (doc.data.relationships?.cargos?.data ?? []) as Linkage;
const shipmentsOf = (doc: One) => (doc.data.relationships?.shipments?.data ?? []) as Linkage;

async function linkRows(documentId: string) {
  const { results } = await env.DB.prepare(
    "SELECT account_id, target_type, target_id, matched_value FROM document_links WHERE document_id = ?1 ORDER BY target_id",
  )
    .bind(documentId)
    .all<{ account_id: string; target_type: string; target_id: string; matched_value: string }>();
  return results;
}

describe("document links", () => {
  it("extraction links the document to the account's containers (never another account's); includes; link.created once per link, only to subscribers", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const subscriber = await insertWebhook(account, { events: ["link.created"] });
    const catalogOnly = await insertWebhook(account, { events: ["document.extracted"] });
    const mine = await trackSandboxShipment(account);
    await trackSandboxShipment(other);

    const id = await uploadPdf(account, await noticePdf());
    await extracted(account, id);
    const doc = await until(
      async () => {
        const d = await linkage(account, id, "cargos,shipments");
        return cargosOf(d).length === 2 ? d : undefined;
      },
      10_000,
      "the links",
    );
    expect(cargosOf(doc).map((c) => c.type)).toEqual(["container", "container"]);
    expect(
      cargosOf(doc)
        .map((c) => c.id)
        .sort(),
    ).toEqual([...mine.containerIds].sort());
    expect(shipmentsOf(doc)).toEqual([]);
    const included = doc.included ?? [];
    expect(included.map((r) => r.type)).toEqual(["container", "container"]);
    expect(included.map((r) => r.attributes.number).sort()).toEqual([BOX_A, BOX_B].sort());
    // Only this account's rows: the other account's boxes have the same numbers.
    const rows = await linkRows(id);
    expect(rows.every((r) => r.account_id === account.accountId)).toBe(true);
    expect(rows.map((r) => r.matched_value).sort()).toEqual([BOX_A, BOX_B].sort());

    // The list shows the same linkage.
    const list = await apiJson<Many>("/documents?include=cargos", { key: account.key });
    expect(list.json.data[0]?.relationships?.cargos?.data).toHaveLength(2);

    const sent = await notificationsOf(subscriber.id);
    expect(sent.map((n) => n.event)).toEqual(["link.created", "link.created"]);
    const body = JSON.parse(sent[0]?.payload ?? "{}") as {
      data: { relationships: { reference_object: { data: { id: string; type: string } } } };
      included: { type: string; id: string; relationships?: Record<string, { data: unknown }> }[];
    };
    expect(body.data.relationships.reference_object.data).toEqual({ id, type: "document" });
    expect(body.included.map((r) => r.type)).toEqual(["document", "container"]);
    expect(mine.containerIds).toContain(body.included[1]?.id);
    expect(body.included[0]?.relationships?.cargos?.data).toHaveLength(2);
    expect((await notificationsOf(catalogOnly.id)).map((n) => n.event)).toEqual(["document.extracted"]);
    const listed = await apiJson<Many>("/webhook_notifications?filter[event]=link.created", { key: account.key });
    expect(listed.res.status).toBe(200);
    expect(listed.json.data.map((n) => n.attributes.event)).toEqual(["link.created", "link.created"]);
    // The event is accepted by POST /webhooks as an extension, and not listed in the reference's catalog.
    const created = await apiJson<One>("/webhooks", {
      key: account.key,
      body: {
        data: {
          type: "webhook",
          attributes: { url: "https://hooks.acme-logistics.com/links", events: ["link.created"] },
        },
      },
    });
    expect(created.res.status).toBe(201);
    expect(created.json.data.attributes.events).toEqual(["link.created"]);
    const catalog = await api("/webhooks/events", { key: account.key });
    expect(await catalog.text()).not.toContain("link.created");

    // Relinking adds nothing and announces nothing again.
    expect((await api(`/documents/${id}/relink`, { method: "POST", key: account.key })).status).toBe(202);
    await new Promise((r) => setTimeout(r, 500));
    expect(await linkRows(id)).toHaveLength(2);
    expect(await notificationsOf(subscriber.id)).toHaveLength(2);

    // The other account sees neither the document nor links to its own boxes.
    const theirs = await apiJson<Many>("/documents", { key: other.key });
    expect(theirs.json.data).toEqual([]);
    expect((await api(`/documents/${id}?include=cargos`, { key: other.key })).status).toBe(404);
  });

  it("a document read before its shipment exists is linked when the lookup creates the shipment; relink adds reference-number links", async () => {
    const account = await createAccount();
    const subscriber = await insertWebhook(account, { events: ["link.created"] });
    const id = await uploadPdf(account, await noticePdf());
    await extracted(account, id);
    expect(cargosOf(await linkage(account, id))).toEqual([]);

    const tracked = await trackSandboxShipment(account, { ref_numbers: ["po 4711-a"] });
    const doc = await linkage(account, id);
    expect(
      cargosOf(doc)
        .map((c) => c.id)
        .sort(),
    ).toEqual([...tracked.containerIds].sort());
    expect(shipmentsOf(doc)).toEqual([]);
    expect(await notificationsOf(subscriber.id)).toHaveLength(2);

    // The same lookup message again (a redelivery) links nothing twice.
    await deliverTrackingMessages([{ trackingRequestId: tracked.request.id, accountId: account.accountId }]);
    expect(await linkRows(id)).toHaveLength(2);

    // A PO number in the manual data links the shipment whose ref_numbers hold it (normalized), on relink.
    const patched = await apiJson<One>(`/documents/${id}`, {
      method: "PATCH",
      key: account.key,
      body: { data: { type: "document", attributes: { extracted_data_manual: { po_numbers: ["PO-4711A"] } } } },
    });
    expect(patched.res.status).toBe(200);
    // The PATCH answer shows the links the document has.
    expect(cargosOf(patched.json)).toHaveLength(2);
    const relink = await apiJson(`/documents/${id}/relink`, { method: "POST", key: account.key });
    expect(relink.res.status).toBe(202);
    expect(relink.json).toEqual({ status: "accepted" });
    const relinked = await until(
      async () => {
        const d = await linkage(account, id, "shipments");
        return shipmentsOf(d).length === 1 ? d : undefined;
      },
      10_000,
      "the shipment link",
    );
    expect(shipmentsOf(relinked)).toEqual([{ type: "shipment", id: tracked.shipment.id }]);
    expect(relinked.included?.map((r) => [r.type, r.id])).toEqual([["shipment", tracked.shipment.id]]);
    expect(await notificationsOf(subscriber.id)).toHaveLength(3);

    // filter[reference]: prefix, normalized; by a mentioned token and by a linked shipment's number.
    for (const token of [
      BOX_A.slice(0, 7).toLowerCase(),
      `${BOX_B.slice(0, 4)}-${BOX_B.slice(4)}`,
      "po4711",
      "test-tr-succ",
    ]) {
      const found = await apiJson<Many>(`/documents?filter[reference]=${encodeURIComponent(token)}`, {
        key: account.key,
      });
      expect(found.res.status, token).toBe(200);
      expect(
        found.json.data.map((d) => d.id),
        token,
      ).toEqual([id]);
      expect(found.json.meta?.total).toBe(1);
    }
    const none = await apiJson<Many>("/documents?filter[reference]=MAEU999", { key: account.key });
    expect(none.json.data).toEqual([]);
  });

  it("a PO number printed in the document links the shipment whose ref_numbers hold it, at extraction", async () => {
    const account = await createAccount();
    const tracked = await trackSandboxShipment(account, { ref_numbers: ["4500-0123-45"] });
    const id = await uploadPdf(account, await pdfWithText([[{ text: "PO No.: 4500012345", x: 50, y: 800 }]]));
    await extracted(account, id);
    const doc = await until(
      async () => {
        const d = await linkage(account, id);
        return shipmentsOf(d).length === 1 ? d : undefined;
      },
      10_000,
      "the shipment link",
    );
    expect(shipmentsOf(doc)).toEqual([{ type: "shipment", id: tracked.shipment.id }]);
    expect(cargosOf(doc)).toEqual([]);
    expect((await linkRows(id)).map((r) => r.matched_value)).toEqual(["4500012345"]);
  });

  it("a manifest of 160 boxes links all 160 of the account's containers, with one link.created each (D1's 100 bound parameters respected)", async () => {
    const account = await createAccount();
    const subscriber = await insertWebhook(account, { events: ["link.created"] });
    const { bytes, containers } = await manifestPdf(4);
    const now = "2026-12-01T00:00:00Z";
    await env.DB.batch([
      env.DB.prepare(
        `INSERT INTO shipments (id, account_id, bill_of_lading_number, normalized_number, shipping_line_scac, created_at,
           updated_at) VALUES (?1, ?2, 'MANIFEST1', 'MANIFEST1', 'TEST', ?3, ?3)`,
      ).bind(`ship-${account.accountId}`, account.accountId, now),
      ...containers.map((number, i) =>
        env.DB.prepare(
          `INSERT INTO containers (id, account_id, shipment_id, number, scac, current_status, created_at, updated_at)
           VALUES (?1, ?2, ?3, ?4, 'TEST', 'new', ?5, ?5)`,
        ).bind(`box-${i}-${account.accountId}`, account.accountId, `ship-${account.accountId}`, number, now),
      ),
    ]);
    const id = await uploadPdf(account, bytes, "manifest.pdf");
    await until(
      async () => ((await linkRows(id)).length === containers.length ? true : undefined),
      20_000,
      "160 links",
    );
    expect(await notificationsOf(subscriber.id)).toHaveLength(containers.length);
    const { res, json } = await apiJson<One>(`/documents/${id}?include=cargos`, { key: account.key });
    expect(res.status).toBe(200);
    expect(cargosOf(json)).toHaveLength(containers.length);
    expect(json.included?.filter((r) => r.type === "container")).toHaveLength(containers.length);
    const found = await apiJson<Many>(`/documents?filter[reference]=${containers[150]}`, { key: account.key });
    expect(found.json.data.map((d) => d.id)).toEqual([id]);
  });

  it("filter[reference]: 400 for a token too short or too long; another account's documents never match", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const id = await uploadPdf(account, await noticePdf());
    await extracted(account, id);
    for (const bad of ["ab", "- -", "X".repeat(51)]) {
      const { res, json } = await apiJson<Many>(`/documents?filter[reference]=${encodeURIComponent(bad)}`, {
        key: account.key,
      });
      expect(res.status, bad).toBe(400);
      expect(json.errors?.[0]?.source?.parameter).toBe("filter[reference]");
    }
    const theirs = await apiJson<Many>(`/documents?filter[reference]=${BOX_A}`, { key: other.key });
    expect(theirs.json.data).toEqual([]);
    const mine = await apiJson<Many>(`/documents?filter[reference]=${BOX_A}`, { key: account.key });
    expect(mine.json.data.map((d) => d.id)).toEqual([id]);
    expect((await api(`/documents?filter[reference]=${BOX_A}`)).status).toBe(401);
  });

  it("POST /documents/{id}/relink: 404 for an unknown id and another account's, 401 without a key or with a bad one", async () => {
    const account = await createAccount();
    const other = await createAccount();
    const id = await uploadPdf(account, await noticePdf());
    const unknown = await apiJson(`/documents/00000000-0000-4000-8000-000000000000/relink`, {
      method: "POST",
      key: account.key,
    });
    expect(unknown.res.status).toBe(404);
    expect((unknown.json as { errors: { detail: string }[] }).errors[0]?.detail).toBe("Couldn't find Document");
    expect((await api(`/documents/${id}/relink`, { method: "POST", key: other.key })).status).toBe(404);
    expect((await api(`/documents/${id}/relink`, { method: "POST" })).status).toBe(401);
    expect((await api(`/documents/${id}/relink`, { method: "POST", key: "svc_test_nope" })).status).toBe(401);
  });

  it("POST /documents/{id}/relink: 503 when the run cannot be queued", async () => {
    const account = await createAccount();
    const id = await uploadPdf(account, await noticePdf());
    const refusing = {
      ...env,
      DOCUMENT_EXTRACTIONS_QUEUE: {
        send: async () => {
          throw new Error("queue unavailable");
        },
      } as unknown as typeof env.DOCUMENT_EXTRACTIONS_QUEUE,
    };
    const res = await createApp().fetch(
      new Request(`${BASE}/documents/${id}/relink`, {
        method: "POST",
        headers: { Authorization: `Token ${account.key}` },
      }),
      refusing,
      createExecutionContext(),
    );
    expect(res.status).toBe(503);
    const body = (await res.json()) as { errors: { status: string; detail: string }[] };
    expect(body.errors[0]).toMatchObject({ status: "503", detail: "The relink could not be queued; try again." });
  });

  it("deleting a document deletes its tokens and links", async () => {
    const account = await createAccount();
    await trackSandboxShipment(account);
    const id = await uploadPdf(account, await noticePdf());
    await extracted(account, id);
    await until(async () => ((await linkRows(id)).length === 2 ? true : undefined), 10_000, "the links");
    expect((await api(`/documents/${id}`, { method: "DELETE", key: account.key })).status).toBe(204);
    expect(await linkRows(id)).toEqual([]);
    const refs = await env.DB.prepare("SELECT COUNT(*) AS n FROM document_references WHERE document_id = ?1")
      .bind(id)
      .first<{ n: number }>();
    expect(refs?.n).toBe(0);
  });
});
