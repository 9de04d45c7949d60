import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { withCheckDigit } from "../../src/infer/iso6346";
import { CONTAINER_OWNERS } from "../../src/reference/generated/container-prefixes";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { sourcesFor } from "../../src/tracking/sources";
import { apiJson, createAccount, trackingRequestBody } from "../helpers/api";
import type { One } from "../helpers/tracking";

// Owners of container prefixes that carriers.csv does not list (CONTAINER_OWNERS, compiled by
// scripts/compile-data.mjs): infer_number shows them as candidates with their SCAC and name, but they are not
// shipping lines and no source tracks them, so auto-detect never picks one.

interface InferDoc {
  data: {
    attributes: {
      number_type: string;
      shipping_line: {
        decision: string;
        selected: { scac: string; name: string; confidence: number } | null;
        candidates: { scac: string; name: string; confidence: number }[];
      };
    };
  };
}

describe("container owners outside the carrier registry", () => {
  it("infer_number lists the owner of a BLSU box (Admiral Container Lines) with no prediction", async () => {
    const account = await createAccount();
    const { res, json } = await apiJson<InferDoc>("/tracking_requests/infer_number", {
      key: account.key,
      body: { number: withCheckDigit("BLSU765432") },
    });
    expect(res.status).toBe(200);
    expect(json.data.attributes.number_type).toBe("container");
    expect(json.data.attributes.shipping_line).toEqual({
      decision: "no_prediction",
      selected: { scac: "ADMU", name: "Admiral Container Lines", confidence: 0.48 },
      candidates: [{ scac: "ADMU", name: "Admiral Container Lines", confidence: 0.48 }],
    });
  });

  it("are not shipping lines: GET /shipping_lines/{scac} is 404 and the list does not include them", async () => {
    const account = await createAccount();
    const { res } = await apiJson("/shipping_lines/ADMU", { key: account.key });
    expect(res.status).toBe(404);
    const { json } = await apiJson<{ data: { attributes: { scac: string } }[] }>("/shipping_lines?page[size]=100", {
      key: account.key,
    });
    const listed = new Set(json.data.map((l) => l.attributes.scac));
    expect(listed.size).toBeGreaterThan(0);
    for (const owner of CONTAINER_OWNERS) expect(listed.has(owner.scac), owner.scac).toBe(false);
  });

  it("are never supported, even with the simulator on", () => {
    const registry = sourcesFor({ SIMULATOR_ENABLED: "true", SIMULATION_SPEED: "1", DCSA_SOURCES: "" });
    expect(registry.supportedScacs.size).toBeGreaterThan(1);
    for (const owner of CONTAINER_OWNERS) expect(registry.supportedScacs.has(owner.scac), owner.scac).toBe(false);
  });

  it("auto-detect of an owner's box fails with scac_auto_detect_failed instead of tracking with the owner", async () => {
    const account = await createAccount();
    const created = await apiJson<One>("/tracking_requests", {
      key: account.key,
      body: trackingRequestBody({
        request_type: "container",
        request_number: withCheckDigit("SKNU246810"),
        auto_detect_vocc_scac: true,
      }),
    });
    expect(created.res.status).toBe(201);
    await processTrackingRequest({ env }, { trackingRequestId: created.json.data.id, accountId: account.accountId });
    const { json } = await apiJson<One>(`/tracking_requests/${created.json.data.id}`, { key: account.key });
    expect(json.data.attributes).toMatchObject({
      scac: null,
      status: "failed",
      failed_reason: "scac_auto_detect_failed",
    });
  });
});
