import { describe, expect, it } from "vitest";
import { ApiKeyCache } from "../../src/middleware/key-cache";

describe("ApiKeyCache.forgetKeyId", () => {
  it("drops the entries of one key id, so the next lookup asks D1, and keeps the others", () => {
    const cache = new ApiKeyCache();
    const a = { accountId: "acc", shard: 0, apiKeyId: "key-a", keyFingerprint: "fa" };
    const b = { accountId: "acc", shard: 0, apiKeyId: "key-b", keyFingerprint: "fb" };
    cache.remember("svc_test_a", a, 0, 60_000);
    cache.remember("svc_test_b", b, 0, 60_000);
    cache.forgetKeyId("key-a");
    expect(cache.lookup("svc_test_a", 1)).toBeUndefined();
    expect(cache.isKnownValid("svc_test_a")).toBe(false);
    expect(cache.lookup("svc_test_b", 1)).toEqual(b);
  });
});
