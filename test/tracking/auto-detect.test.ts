import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { processTrackingRequest } from "../../src/tracking/consumers";
import { apiJson, createAccount, type TestAccount, trackingRequestBody } from "../helpers/api";
import type { One } from "../helpers/tracking";

// auto_detect_vocc_scac (docs/decisions.md §Infer number): the consumer runs the inference and tracks with the best
// supported candidate, or fails with scac_auto_detect_failed.

async function createAndProcess(account: TestAccount, requestNumber: string): Promise<One["data"]> {
  const created = await apiJson<One>("/tracking_requests", {
    key: account.key,
    body: trackingRequestBody({ request_number: requestNumber, auto_detect_vocc_scac: true }),
  });
  expect(created.res.status).toBe(201);
  expect(created.json.data.attributes.scac).toBeNull();
  await processTrackingRequest({ env }, { trackingRequestId: created.json.data.id, accountId: account.accountId });
  const { json } = await apiJson<One>(`/tracking_requests/${created.json.data.id}`, { key: account.key });
  return json.data;
}

describe("auto_detect_vocc_scac", () => {
  it("detects the sandbox line from the BL prefix and tracks the number with it", async () => {
    const account = await createAccount();
    const request = await createAndProcess(account, "TEST-TR-SUCCEEDED");
    expect(request.attributes).toMatchObject({ scac: "TEST", status: "created", failed_reason: null });
    expect(request.relationships?.tracked_object?.data).not.toBeNull();
  });

  it("fails with scac_auto_detect_failed when the only candidate line is not supported here", async () => {
    const account = await createAccount();
    const request = await createAndProcess(account, "MAEU123456789");
    expect(request.attributes).toMatchObject({
      scac: null,
      status: "failed",
      failed_reason: "scac_auto_detect_failed",
    });
  });

  it("fails with scac_auto_detect_failed for a bare number nobody can place", async () => {
    const account = await createAccount();
    const request = await createAndProcess(account, "123456789012");
    expect(request.attributes).toMatchObject({ status: "failed", failed_reason: "scac_auto_detect_failed" });
  });
});
