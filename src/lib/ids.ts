import { uuidv7 } from "uuidv7";

/**
 * New resource id: a UUID v7 (time-ordered, so new rows land at the end of indexes; docs/decisions.md §Wire format).
 */
export function newId(): string {
  return uuidv7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Whether `value` has the textual form of a UUID (any version). */
export function isUuid(value: string): boolean {
  return UUID.test(value);
}

const NAMESPACE_BYTES = Uint8Array.from([
  0x6f, 0x1b, 0x7c, 0x3e, 0x2f, 0x0a, 0x5d, 0x3b, 0x9c, 0x1e, 0x4a, 0x7d, 0x2b, 0x8e, 0x0f, 0x11,
]);

/**
 * A name-based UUID (RFC 9562 version 5: SHA-1 of a fixed namespace and `name`). The same name always gives
 * the same id, which makes writes idempotent: e.g. the shipment of a tracking request is
 * `deterministicId("shipment:" + requestId)`, so a redelivered message cannot create a second one.
 * The namespace is the one scripts/compile-data.mjs uses for reference data.
 */
export async function deterministicId(name: string): Promise<string> {
  const nameBytes = new TextEncoder().encode(name);
  const input = new Uint8Array(NAMESPACE_BYTES.length + nameBytes.length);
  input.set(NAMESPACE_BYTES);
  input.set(nameBytes, NAMESPACE_BYTES.length);
  const hash = new Uint8Array(await crypto.subtle.digest("SHA-1", input));
  hash[6] = ((hash[6] ?? 0) & 0x0f) | 0x50;
  hash[8] = ((hash[8] ?? 0) & 0x3f) | 0x80;
  let hex = "";
  for (const b of hash.subarray(0, 16)) hex += b.toString(16).padStart(2, "0");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
