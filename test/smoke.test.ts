import { describe, expect, it } from "vitest";
import { apiJson, createAccount, trackingRequestBody } from "./helpers/api";

describe("smoke", () => {
  it("creates a tracking request", async () => {
    const acct = await createAccount();
    const { res, json } = await apiJson("/tracking_requests", {
      key: acct.key,
      body: trackingRequestBody({ request_number: "TEST-TR-SUCCEEDED", scac: "TEST" }),
    });
    console.log(res.status, JSON.stringify(json));
    expect(res.status).toBe(201);
    const list = await apiJson("/containers?include=shipment", { key: acct.key });
    console.log(list.res.status, JSON.stringify(list.json).slice(0, 400));
  });
});
