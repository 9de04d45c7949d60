import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { validPreviousSecrets } from "../../src/webhooks/delivery";
import {
  deliveryHeaders,
  PLAIN_SIGNATURE_HEADER,
  plainSignature,
  standardWebhooksKey,
  WEBHOOK_USER_AGENT,
} from "../../src/webhooks/signature";
import { newSecret } from "../helpers/receiver";

// docs/decisions.md §Webhooks "Signature headers": every delivery is verifiable both with a plain HMAC check (as a
// receiver of the reference service does it, here with node:crypto, an implementation independent of ours) and with
// the standardwebhooks library.

const BODY = JSON.stringify({
  data: { id: "0192b6a4-1c2d-7e3f-8a4b-5c6d7e8f9a0b", type: "webhook_notification", attributes: { event: "é ✓" } },
});
const ID = "0192b6a4-1c2d-7e3f-8a4b-5c6d7e8f9a0b";

/**
 * What a receiver of the reference service does (docs/webhooks.md §Signatures:
 * `createHmac("sha256", secret).update(raw).digest("hex")`), written here independently of src/ with WebCrypto: hex
 * HMAC-SHA256 of the raw body, the secret string as key.
 */
async function plainCheck(secret: string, rawBody: string, header: string): Promise<boolean> {
  const enc = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", enc.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, [
    "verify",
  ]);
  if (!/^[0-9a-f]{64}$/.test(header)) return false;
  const mac = new Uint8Array(header.match(/../g)?.map((h) => Number.parseInt(h, 16)) ?? []);
  // crypto.subtle.verify compares in constant time.
  return crypto.subtle.verify("HMAC", key, mac, enc.encode(rawBody));
}

describe("signature headers of a delivery", () => {
  it("X-SVC-Webhook-Signature is the lowercase hex HMAC-SHA256 of the raw body keyed by the secret's UTF-8", async () => {
    const secret = newSecret();
    const headers = new Headers(await deliveryHeaders({ secret, notificationId: ID, body: BODY, nowMs: Date.now() }));
    const signature = headers.get(PLAIN_SIGNATURE_HEADER) ?? "";
    expect(signature).toMatch(/^[0-9a-f]{64}$/);
    expect(await plainCheck(secret, BODY, signature)).toBe(true);
    expect(await plainCheck(secret, `${BODY} `, signature)).toBe(false);
    expect(await plainCheck(newSecret(), BODY, signature)).toBe(false);
    // A known vector: RFC 4231 test case 2 (key "Jefe").
    expect(await plainSignature("Jefe", "what do ya want for nothing?")).toBe(
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843",
    );
  });

  it("the standardwebhooks library verifies webhook-id / webhook-timestamp / webhook-signature", async () => {
    const secret = newSecret();
    const nowMs = Date.now();
    const headers = Object.fromEntries(await deliveryHeaders({ secret, notificationId: ID, body: BODY, nowMs }));
    expect(headers["webhook-id"]).toBe(ID);
    expect(headers["webhook-timestamp"]).toBe(String(Math.floor(nowMs / 1000)));
    expect(headers["webhook-signature"]).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(BODY, headers);
    expect(verified).toEqual(JSON.parse(BODY));
    // Tampering with the body, the id or the timestamp fails verification.
    expect(() => new Webhook(secret).verify(`${BODY} `, headers)).toThrow();
    expect(() => new Webhook(secret).verify(BODY, { ...headers, "webhook-id": "other" })).toThrow();
    expect(() =>
      new Webhook(secret).verify(BODY, {
        ...headers,
        "webhook-timestamp": String(Math.floor(nowMs / 1000) - 1),
      }),
    ).toThrow();
    expect(() => new Webhook(newSecret()).verify(BODY, headers)).toThrow();
  });

  it("replay protection: a signature from more than 5 minutes ago is refused by the library", async () => {
    const secret = newSecret();
    const headers = Object.fromEntries(
      await deliveryHeaders({ secret, notificationId: ID, body: BODY, nowMs: Date.now() - 6 * 60_000 }),
    );
    expect(() => new Webhook(secret).verify(BODY, headers)).toThrow(/too old/);
  });

  it("the Standard Webhooks key is the base64-decoded part after whsec_", () => {
    const bytes = crypto.getRandomValues(new Uint8Array(32));
    const secret = `whsec_${btoa(String.fromCharCode(...bytes))}`;
    expect([...standardWebhooksKey(secret)]).toEqual([...bytes]);
  });

  it("a trigger secret that is not whsec_+base64 signs with its raw bytes (library format: raw)", async () => {
    const secret = "optional-test-secret";
    const nowMs = Date.now();
    const headers = Object.fromEntries(await deliveryHeaders({ secret, notificationId: ID, body: BODY, nowMs }));
    expect(new Webhook(secret, { format: "raw" }).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(await plainCheck(secret, BODY, headers[PLAIN_SIGNATURE_HEADER] ?? "")).toBe(true);
  });

  it("carries Content-Type, User-Agent and the custom headers, never letting one replace a signature", async () => {
    const secret = newSecret();
    const pairs = await deliveryHeaders({
      secret,
      notificationId: ID,
      body: BODY,
      nowMs: Date.now(),
      customHeaders: [
        { name: "X-Secret-Sauce", value: "sriracha" },
        { name: "x-svc-webhook-signature", value: "forged" },
        { name: "Webhook-Signature", value: "v1,forged" },
        { name: "Content-Type", value: "text/plain" },
        { name: "Bad Name", value: "x" },
        { name: "X-Split", value: "a\r\nInjected: yes" },
      ],
    });
    const headers = new Headers(pairs);
    expect(headers.get("content-type")).toBe("application/json");
    expect(headers.get("user-agent")).toBe(WEBHOOK_USER_AGENT);
    expect(headers.get("x-secret-sauce")).toBe("sriracha");
    expect(await plainCheck(secret, BODY, headers.get(PLAIN_SIGNATURE_HEADER) ?? "")).toBe(true);
    expect(headers.get("webhook-signature")).not.toContain("forged");
    expect(headers.has("injected")).toBe(false);
    expect(pairs.filter(([n]) => n.toLowerCase() === "content-type")).toHaveLength(1);
  });

  it("during a rotation's grace period webhook-signature carries the current and the previous secret's signatures", async () => {
    const current = newSecret();
    const previous = newSecret();
    const nowMs = Date.now();
    const headers = Object.fromEntries(
      await deliveryHeaders({ secret: current, previousSecrets: [previous], notificationId: ID, body: BODY, nowMs }),
    );
    const signatures = (headers["webhook-signature"] ?? "").split(" ");
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => /^v1,[A-Za-z0-9+/]+=*$/.test(s))).toBe(true);
    // Either secret verifies with the library; a third does not. The hex header is the current secret's only.
    expect(new Webhook(current).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(new Webhook(previous).verify(BODY, headers)).toEqual(JSON.parse(BODY));
    expect(() => new Webhook(newSecret()).verify(BODY, headers)).toThrow();
    expect(await plainCheck(current, BODY, headers[PLAIN_SIGNATURE_HEADER] ?? "")).toBe(true);
    expect(await plainCheck(previous, BODY, headers[PLAIN_SIGNATURE_HEADER] ?? "")).toBe(false);
    // A previous secret equal to the current one, or empty, adds nothing.
    const same = Object.fromEntries(
      await deliveryHeaders({ secret: current, previousSecrets: [current, ""], notificationId: ID, body: BODY, nowMs }),
    );
    expect(same["webhook-signature"]?.split(" ")).toHaveLength(1);
  });

  it("a previous secret signs until its expiry, exclusive", () => {
    const state = { previousSecret: "whsec_old", previousSecretExpiresAt: "2030-01-02T00:00:00Z" };
    const expiresMs = Date.parse("2030-01-02T00:00:00Z");
    expect(validPreviousSecrets(state, expiresMs - 1)).toEqual(["whsec_old"]);
    expect(validPreviousSecrets(state, expiresMs)).toEqual([]);
    expect(validPreviousSecrets({ previousSecret: null, previousSecretExpiresAt: null }, 0)).toEqual([]);
    expect(validPreviousSecrets({ previousSecret: "whsec_old", previousSecretExpiresAt: null }, 0)).toEqual([]);
  });

  it("without a secret the delivery is unsigned but still identified", async () => {
    const headers = new Headers(await deliveryHeaders({ secret: null, notificationId: ID, body: BODY, nowMs: 0 }));
    expect(headers.has(PLAIN_SIGNATURE_HEADER)).toBe(false);
    expect(headers.has("webhook-signature")).toBe(false);
    expect(headers.get("webhook-id")).toBe(ID);
  });
});
