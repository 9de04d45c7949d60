import { describe, expect, it } from "vitest";
import { callbackBaseUrl } from "../../src/callbacks/lifecycle";
import { decryptSecret, encryptSecret, newSubscriptionSecret, subscriptionKeyFrom } from "../../src/callbacks/secrets";
import { verifyDcsaNotificationSignature } from "../../src/callbacks/signatures";

// The DCSA TNT 2.2 callback signature and the secret store, with plain inputs (src/callbacks/signatures.ts,
// src/callbacks/secrets.ts).

const bytes = (text: string) => new TextEncoder().encode(text);
const headers = (signature?: string) =>
  new Headers(signature === undefined ? {} : { "Notification-Signature": signature });

// RFC 4231 §4.3 (test case 2): HMAC-SHA256 with key "Jefe" of "what do ya want for nothing?". The subscription's
// secret is base64 (TNT 2.2 `secret`, format: byte), so the key "Jefe" is sent as "SmVmZQ==".
const RFC4231_KEY_B64 = "SmVmZQ==";
const RFC4231_DATA = "what do ya want for nothing?";
const RFC4231_MAC = "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843";

describe("verifyDcsaNotificationSignature", () => {
  it("accepts sha256=<hex HMAC-SHA256 of the body keyed with the base64-decoded secret> (RFC 4231 vector)", async () => {
    expect(
      await verifyDcsaNotificationSignature(bytes(RFC4231_DATA), headers(`sha256=${RFC4231_MAC}`), RFC4231_KEY_B64),
    ).toEqual({ ok: true });
  });

  it("takes the spec's pattern: surrounding whitespace, upper-case hex and type", async () => {
    const upper = `  SHA256=${RFC4231_MAC.toUpperCase()} `;
    expect(await verifyDcsaNotificationSignature(bytes(RFC4231_DATA), headers(upper), RFC4231_KEY_B64)).toEqual({
      ok: true,
    });
  });

  it("refuses a missing, malformed, unsupported or wrong signature", async () => {
    const body = bytes(RFC4231_DATA);
    const verdict = (signature?: string, secret = RFC4231_KEY_B64) =>
      verifyDcsaNotificationSignature(body, headers(signature), secret);
    expect(await verdict()).toEqual({ ok: false, reason: "missing_signature" });
    expect(await verdict("  ")).toEqual({ ok: false, reason: "missing_signature" });
    expect(await verdict(RFC4231_MAC)).toEqual({ ok: false, reason: "malformed_signature" });
    expect(await verdict(`sha256=${RFC4231_MAC}, sha256=${RFC4231_MAC}`)).toEqual({
      ok: false,
      reason: "malformed_signature",
    });
    expect(await verdict(`sha512=${RFC4231_MAC}`)).toEqual({ ok: false, reason: "unsupported_signature" });
    expect(await verdict(`sha256=${RFC4231_MAC.slice(0, -2)}`)).toEqual({ ok: false, reason: "bad_signature" });
    // The secret's text used as the key (not its base64 decoding) gives another MAC.
    expect(await verdict(`sha256=${RFC4231_MAC}`, btoa(RFC4231_KEY_B64))).toEqual({
      ok: false,
      reason: "bad_signature",
    });
    // One byte more in the body (the signature covers the body exactly, whitespace included).
    expect(
      await verifyDcsaNotificationSignature(
        bytes(`${RFC4231_DATA}\n`),
        headers(`sha256=${RFC4231_MAC}`),
        RFC4231_KEY_B64,
      ),
    ).toEqual({ ok: false, reason: "bad_signature" });
  });
});

describe("subscription secrets", () => {
  it("are 32 random bytes, base64", () => {
    const a = newSubscriptionSecret();
    expect(atob(a)).toHaveLength(32);
    expect(newSubscriptionSecret()).not.toBe(a);
  });

  it("round-trip through AES-GCM for their own subscription only", async () => {
    const key = await subscriptionKeyFrom(btoa("k".repeat(32)));
    const other = await subscriptionKeyFrom(btoa("o".repeat(32)));
    if (!key || !other) throw new Error("no key");
    const secret = newSubscriptionSecret();
    const stored = await encryptSecret(key, "sub-1", secret);
    expect(stored.startsWith("v1.")).toBe(true);
    expect(stored).not.toContain(secret);
    expect(await decryptSecret(key, "sub-1", stored)).toBe(secret);
    expect(await decryptSecret(key, "sub-2", stored)).toBeNull();
    expect(await decryptSecret(other, "sub-1", stored)).toBeNull();
    expect(await decryptSecret(key, "sub-1", `${stored.slice(0, -4)}AAAA`)).toBeNull();
    expect(await decryptSecret(key, "sub-1", "not stored by us")).toBeNull();
  });

  it("need a key of exactly 32 bytes", async () => {
    expect(await subscriptionKeyFrom(undefined)).toBeNull();
    expect(await subscriptionKeyFrom(btoa("short"))).toBeNull();
    expect(await subscriptionKeyFrom("not base64 !")).toBeNull();
  });
});

describe("callbackBaseUrl (PUBLIC_BASE_URL)", () => {
  it("takes an https origin (http only for localhost), without credentials, query or fragment", () => {
    expect(callbackBaseUrl("https://tracking.example.com/")).toBe("https://tracking.example.com");
    expect(callbackBaseUrl("https://tracking.example.com/base/")).toBe("https://tracking.example.com/base");
    expect(callbackBaseUrl("http://127.0.0.1:8787")).toBe("http://127.0.0.1:8787");
    expect(callbackBaseUrl("http://tracking.example.com")).toBeNull();
    expect(callbackBaseUrl("https://user:pw@tracking.example.com")).toBeNull();
    expect(callbackBaseUrl("https://tracking.example.com/?a=1")).toBeNull();
    expect(callbackBaseUrl("")).toBeNull();
    expect(callbackBaseUrl(undefined)).toBeNull();
    expect(callbackBaseUrl("tracking.example.com")).toBeNull();
  });
});
