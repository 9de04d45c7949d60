import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { withCheckDigit } from "../../src/infer/iso6346";
import { SANDBOX_LIFECYCLE_CONTAINER_NUMBERS } from "../../src/tracking/sources/sandbox";
import { FIXTURE_CONTAINERS, pdfWithText } from "../fixtures/documents";
import { apiJson, createAccount, type TestAccount } from "../helpers/api";
import { uploadDocument } from "../helpers/document-uploads";
import { deliverTrackingMessages, type One } from "../helpers/tracking";
import { until } from "../helpers/vessels";

// Tracking started from the paperwork (docs/documents.md §Tracking from documents): with the account's auto_track on,
// an extracted document's numbers that are not tracked yet become tracking requests (the POST /tracking_requests
// service, its validation and queue); the lookup's shipment is then linked to the document. Off by default.

const [BOX] = SANDBOX_LIFECYCLE_CONTAINER_NUMBERS as [string];

function pdf(lines: string[]): Promise<Uint8Array> {
  return pdfWithText([lines.map((text, i) => ({ text, x: 50, y: 800 - i * 18 }))]);
}

async function referencesOf(documentId: string) {
  const { results } = await env.DB.prepare(
    "SELECT kind, normalized_value, tracking_request_id, auto_track_skipped_reason FROM document_references WHERE document_id = ?1 ORDER BY kind, normalized_value",
  )
    .bind(documentId)
    .all<{
      kind: string;
      normalized_value: string;
      tracking_request_id: string | null;
      auto_track_skipped_reason: string | null;
    }>();
  return results;
}

async function requestsOf(account: TestAccount) {
  const { results } = await env.DB.prepare(
    "SELECT id, request_type, request_number, scac, status FROM tracking_requests WHERE account_id = ?1 ORDER BY created_at",
  )
    .bind(account.accountId)
    .all<{ id: string; request_type: string; request_number: string; scac: string; status: string }>();
  return results;
}

/** Waits until the document's tokens are stored (the extraction committed; linking and auto_track follow it). */
async function tokensStored(documentId: string) {
  return until(async () => {
    const refs = await referencesOf(documentId);
    return refs.length > 0 ? refs : undefined;
  }, 20_000);
}

async function setAutoTrack(account: TestAccount, on: boolean) {
  const { res } = await apiJson("/document_settings", {
    method: "PATCH",
    key: account.key,
    body: { data: { type: "document_settings", attributes: { auto_track: on } } },
  });
  expect(res.status).toBe(200);
}

describe("auto_track", () => {
  it("off (the default): an extracted document with an untracked number creates nothing", async () => {
    const account = await createAccount();
    const doc = await uploadDocument(account, await pdf(["ARRIVAL NOTICE", "SCAC: TEST", `Container: ${BOX}`]));
    await tokensStored(doc.id);
    await new Promise((r) => setTimeout(r, 500));
    expect(await requestsOf(account)).toEqual([]);
    expect((await referencesOf(doc.id)).map((r) => r.tracking_request_id)).toEqual([null]);
  });

  it("on: the untracked box becomes a tracking request (SCAC from the document), its lookup's shipment and box are linked; a second document of the same box creates nothing", async () => {
    const account = await createAccount();
    await setAutoTrack(account, true);
    const doc = await uploadDocument(account, await pdf(["ARRIVAL NOTICE", "SCAC: TEST", `Container: ${BOX}`]));
    const [request] = await until(async () => {
      const rows = await requestsOf(account);
      return rows.length > 0 ? rows : undefined;
    }, 20_000);
    expect(request).toMatchObject({ request_type: "container", request_number: BOX, scac: "TEST" });
    expect(await referencesOf(doc.id)).toEqual([
      { kind: "container", normalized_value: BOX, tracking_request_id: request?.id, auto_track_skipped_reason: null },
    ]);
    // The request went through the tracking-requests queue; deliver its lookup (a no-op if the consumer ran it).
    await deliverTrackingMessages([{ trackingRequestId: request?.id ?? "", accountId: account.accountId }]);
    const linked = await until(
      async () => {
        const { json } = await apiJson<One>(`/documents/${doc.id}?include=shipments,cargos`, { key: account.key });
        const shipments = json.data.relationships?.shipments?.data as unknown[] | undefined;
        const cargos = json.data.relationships?.cargos?.data as unknown[] | undefined;
        return shipments?.length === 1 && cargos?.length === 1 ? json : undefined;
      },
      20_000,
      "the links",
    );
    const tracked = await apiJson<One>(`/tracking_requests/${request?.id}`, { key: account.key });
    const shipmentLinkage = tracked.json.data.relationships?.tracked_object?.data as { id: string };
    expect(linked.data.relationships?.shipments?.data).toEqual([{ type: "shipment", id: shipmentLinkage.id }]);
    expect(linked.included?.find((r) => r.type === "container")?.attributes.number).toBe(BOX);

    // Tracked now: a second document naming the box is linked and creates no request.
    const second = await uploadDocument(
      account,
      await pdf(["DELIVERY ORDER", "SCAC: TEST", `Container: ${BOX}`]),
      "delivery order.pdf",
    );
    await tokensStored(second.id);
    await until(async () => {
      const { json } = await apiJson<One>(`/documents/${second.id}`, { key: account.key });
      return (json.data.relationships?.cargos?.data as unknown[] | undefined)?.length === 1;
    }, 20_000);
    expect(await requestsOf(account)).toHaveLength(1);
  });

  it("on: a number whose line neither the document nor infer_number determines is skipped, and why is recorded", async () => {
    const account = await createAccount();
    await setAutoTrack(account, true);
    const unknownOwner = withCheckDigit("QQQU123456");
    const doc = await uploadDocument(account, await pdf(["PACKING LIST", `Container: ${unknownOwner}`]));
    const refs = await until(async () => {
      const rows = await referencesOf(doc.id);
      return rows[0]?.auto_track_skipped_reason ? rows : undefined;
    }, 20_000);
    expect(refs).toEqual([
      {
        kind: "container",
        normalized_value: unknownOwner,
        tracking_request_id: null,
        auto_track_skipped_reason: "shipping_line_undetermined",
      },
    ]);
    expect(await requestsOf(account)).toEqual([]);
  });

  it("on: without a SCAC in the document the line comes from infer_number, and the tracking request service's own validation applies", async () => {
    const account = await createAccount();
    await setAutoTrack(account, true);
    const doc = await uploadDocument(account, await pdf(["PACKING LIST", `Container: ${FIXTURE_CONTAINERS.maersk1}`]));
    const refs = await until(async () => {
      const rows = await referencesOf(doc.id);
      return rows[0]?.auto_track_skipped_reason || rows[0]?.tracking_request_id ? rows : undefined;
    }, 20_000);
    // infer_number names Maersk for the MSKU box; no Maersk source is configured here, so the service refuses it as
    // POST /tracking_requests would (422 not_supported), and nothing is written.
    expect(refs).toEqual([
      {
        kind: "container",
        normalized_value: FIXTURE_CONTAINERS.maersk1,
        tracking_request_id: null,
        auto_track_skipped_reason: "tracking_request_refused:not_supported",
      },
    ]);
    expect(await requestsOf(account)).toEqual([]);
  });
});
