/**
 * Secrets of upstream push subscriptions (issue 13 §4): a random signing secret per subscription, kept in D1
 * encrypted with AES-256-GCM under the Worker secret `UPSTREAM_SUBSCRIPTION_KEY` (base64 of 32 bytes; generate one
 * with `openssl rand -base64 32` and `wrangler secret put UPSTREAM_SUBSCRIPTION_KEY`). Encrypted rather than hashed:
 * checking an HMAC signature (DCSA `Notification-Signature`) needs the secret itself.
 *
 * Stored form: `v1.` + base64(12-byte IV ‖ ciphertext ‖ 16-byte tag). The subscription's id is the additional
 * authenticated data, so a ciphertext copied onto another row does not decrypt.
 */

const PREFIX = "v1.";

/** Bytes of a new subscription secret (256 bits; DCSA sends it base64, `format: byte`). */
export const SUBSCRIPTION_SECRET_BYTES = 32;

/** Standard base64 of bytes. */
export function toBase64(bytes: Uint8Array): string {
  let binary = "";
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary);
}

/** Bytes of standard base64 text (padding optional); null when it is not base64. */
export function fromBase64(text: string): Uint8Array | null {
  const clean = text.trim();
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) return null;
  try {
    const binary = atob(clean);
    const out = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
    return out;
  } catch {
    return null;
  }
}

/** A new random subscription secret, base64 of {@link SUBSCRIPTION_SECRET_BYTES} CSPRNG bytes. */
export function newSubscriptionSecret(): string {
  return toBase64(crypto.getRandomValues(new Uint8Array(SUBSCRIPTION_SECRET_BYTES)));
}

/**
 * The AES-GCM key of `UPSTREAM_SUBSCRIPTION_KEY` (base64 of exactly 32 bytes), or null when it is unset or not that:
 * subscriptions are then off (src/callbacks/lifecycle.ts says so in the log).
 */
export function subscriptionKeyFrom(secret: string | undefined): Promise<CryptoKey | null> {
  if (!secret) return Promise.resolve(null);
  // Imported once per isolate and key value (every callback needs it; importKey is not free).
  if (keyCache?.secret !== secret) keyCache = { secret, key: importSubscriptionKey(secret) };
  return keyCache.key;
}

let keyCache: { secret: string; key: Promise<CryptoKey | null> } | null = null;

async function importSubscriptionKey(secret: string): Promise<CryptoKey | null> {
  const raw = fromBase64(secret);
  if (raw?.length !== 32) return null;
  return crypto.subtle.importKey("raw", raw, "AES-GCM", false, ["encrypt", "decrypt"]);
}

/** Encrypts `secret` for the subscription `subscriptionId` (see the module docstring for the stored form). */
export async function encryptSecret(key: CryptoKey, subscriptionId: string, secret: string): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = await crypto.subtle.encrypt(
    { name: "AES-GCM", iv, additionalData: new TextEncoder().encode(subscriptionId) },
    key,
    new TextEncoder().encode(secret),
  );
  const out = new Uint8Array(iv.length + sealed.byteLength);
  out.set(iv);
  out.set(new Uint8Array(sealed), iv.length);
  return PREFIX + toBase64(out);
}

/**
 * Decrypts a stored secret of `subscriptionId`; null when it does not decrypt (another key, another row, tampered)
 * so the caller refuses the callback rather than failing.
 */
export async function decryptSecret(key: CryptoKey, subscriptionId: string, stored: string): Promise<string | null> {
  if (!stored.startsWith(PREFIX)) return null;
  const bytes = fromBase64(stored.slice(PREFIX.length));
  if (!bytes || bytes.length < 12 + 16) return null;
  try {
    const plain = await crypto.subtle.decrypt(
      { name: "AES-GCM", iv: bytes.slice(0, 12), additionalData: new TextEncoder().encode(subscriptionId) },
      key,
      bytes.slice(12),
    );
    return new TextDecoder().decode(plain);
  } catch {
    return null;
  }
}
