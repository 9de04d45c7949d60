import { decodeNdjsonGz, encodeNdjsonGz, type StoredRow, sha256HexOf } from "./codec";

/** The tables whose rows the archive holds (an object holds rows of one of them). */
export type ArchiveKind = "raw_events" | "webhook_notifications" | "webhook_deliveries";

/** The prefix of every archive object's key (the orphan sweep lists it, src/archive/orphans.ts). */
export const ARCHIVE_KEY_PREFIX = "archive/";

/**
 * The R2 key of one archive object: `archive/<account>/<YYYY-MM>/<kind>/<part>.ndjson.gz` (docs/SCALING.md
 * §Retention and archive). `part` is unique per run (time and random), so concurrent runs never overwrite each other.
 */
export function archiveObjectKey(accountId: string, month: string, kind: ArchiveKind, part: string): string {
  return `${ARCHIVE_KEY_PREFIX}${accountId}/${month}/${kind}/${part}.ndjson.gz`;
}

/** The key of the delivery attempts that go with a notifications object (same account, month and part). */
export function deliveriesKeyOf(notificationsKey: string): string {
  return notificationsKey.replace("/webhook_notifications/", "/webhook_deliveries/");
}

/** A new part name: UTC time to the second and 8 random hex digits, e.g. `20261202T011600Z-3f9a1c2b`. */
export function newPartName(nowMs: number): string {
  const stamp = new Date(Math.floor(nowMs / 1000) * 1000).toISOString().replace(/[-:]|\.000/g, "");
  const random = new Uint8Array(4);
  crypto.getRandomValues(random);
  return `${stamp}-${[...random].map((b) => b.toString(16).padStart(2, "0")).join("")}`;
}

/** What was written: the object's key, row count, compressed size in bytes and SHA-256 (hex). */
export interface WrittenObject {
  key: string;
  rows: number;
  bytes: number;
  sha256: string;
}

/**
 * Writes `rows` as one gzip'd NDJSON object and verifies it: R2 checks the SHA-256 sent with the upload, and the
 * object is then read back and hashed again. Only a verified object may be recorded in the manifest.
 * @throws Error when the upload fails or the read-back differs (nothing was recorded; the D1 rows stay).
 */
export async function putVerified(bucket: R2Bucket, key: string, rows: readonly StoredRow[]): Promise<WrittenObject> {
  const bytes = await encodeNdjsonGz(rows);
  const sha256 = await sha256HexOf(bytes);
  await bucket.put(key, bytes, {
    sha256,
    httpMetadata: { contentType: "application/x-ndjson", contentEncoding: "gzip" },
    customMetadata: { rows: String(rows.length) },
  });
  const back = await bucket.get(key);
  if (!back) throw new Error(`archive object ${key} is missing right after its upload`);
  const readSha = await sha256HexOf(new Uint8Array(await back.arrayBuffer()));
  if (readSha !== sha256) throw new Error(`archive object ${key} read back with SHA-256 ${readSha}, wrote ${sha256}`);
  return { key, rows: rows.length, bytes: bytes.byteLength, sha256 };
}

/**
 * The rows of an archived object, its SHA-256 checked against the manifest's; with `needle`, only the lines containing
 * it (see `decodeNdjsonGz`).
 * @throws Error when the object is missing or its bytes do not match (a read must fail loudly, never serve less).
 */
export async function readArchiveObject(
  bucket: R2Bucket,
  key: string,
  sha256: string,
  needle?: string,
): Promise<StoredRow[]> {
  const object = await bucket.get(key);
  if (!object) throw new Error(`archive object ${key} is in the manifest but not in R2`);
  const bytes = new Uint8Array(await object.arrayBuffer());
  const actual = await sha256HexOf(bytes);
  if (actual !== sha256) throw new Error(`archive object ${key} has SHA-256 ${actual}, the manifest says ${sha256}`);
  return decodeNdjsonGz(bytes, needle);
}
