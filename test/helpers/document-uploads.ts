import { exports } from "cloudflare:workers";
import { expect } from "vitest";
import { api, apiJson, type TestAccount } from "./api";

/** Base64 of the binary MD5 of `bytes` (what `openssl md5 -binary f | openssl base64` prints). */
export async function base64Md5(bytes: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("MD5", bytes));
  return btoa(String.fromCharCode(...digest));
}

/** Bytes of a small file that starts like a PDF, distinct per `label`. */
export function pdfBytes(label: string): Uint8Array {
  return new TextEncoder().encode(`%PDF-1.4\n% ${label}\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n`);
}

/** The blob JSON of `POST /rails/active_storage/direct_uploads`. */
export interface ReservedBlob {
  id: string;
  signed_id: string;
  byte_size: number;
  checksum: string;
  content_type: string;
  direct_upload: { url: string; headers: Record<string, string> };
}

/** Reserves a blob for `bytes` (declared as `overrides` say) and returns the response and its JSON. */
export async function reserve(
  account: TestAccount,
  bytes: Uint8Array,
  overrides: Record<string, unknown> = {},
): Promise<{ res: Response; json: ReservedBlob & { errors?: { detail: string; source?: unknown }[] } }> {
  const res = await api("https://api.test/rails/active_storage/direct_uploads", {
    key: account.key,
    body: {
      blob: {
        filename: "bill of lading.pdf",
        content_type: "application/pdf",
        byte_size: bytes.byteLength,
        checksum: await base64Md5(bytes),
        ...overrides,
      },
    },
  });
  const text = await res.text();
  return { res, json: text ? JSON.parse(text) : null };
}

/** PUTs `bytes` to a reserved blob's upload URL with its headers. */
export async function putBytes(blob: ReservedBlob, bytes: Uint8Array, headers?: Record<string, string>) {
  return exports.default.fetch(
    new Request(blob.direct_upload.url, { method: "PUT", headers: headers ?? blob.direct_upload.headers, body: bytes }),
  );
}

/**
 * The whole flow: reserve (as `filename`), upload, `POST /v2/documents` (as `name`); expects each step to succeed and
 * returns the document.
 */
export async function uploadDocument(
  account: TestAccount,
  bytes: Uint8Array,
  name = "bill of lading.pdf",
  filename = "bill of lading.pdf",
) {
  const reserved = await reserve(account, bytes, { filename });
  expect(reserved.res.status).toBe(200);
  const put = await putBytes(reserved.json, bytes);
  expect(put.status).toBe(204);
  const created = await apiJson<{ data: { id: string; attributes: Record<string, unknown> } }>("/documents", {
    key: account.key,
    body: { data: { type: "document", attributes: { name, attached_document: reserved.json.signed_id } } },
  });
  expect(created.res.status).toBe(201);
  return created.json.data;
}
