import { describe, expect, it } from "vitest";
import type { Database } from "../../src/db/client";
import { type BlobRow, storeBlobBytes } from "../../src/documents/blobs";
import { FakeClock } from "../../src/lib/clock";
import { ApiError } from "../../src/lib/errors";

// storeBlobBytes (src/documents/blobs.ts) with a recording bucket: a body whose declared length is not the reserved
// byte_size is refused before any R2 write starts. (Streaming a short body into R2 through a FixedLengthStream cut it
// off mid-put, and the local R2 logged "Uncaught (in promise) Error: Network connection lost" for each such upload.)

function recordingBucket() {
  const calls: string[] = [];
  const bucket = {
    put: async (key: string) => {
      calls.push(`put ${key}`);
      return null;
    },
    delete: async (key: string) => {
      calls.push(`delete ${key}`);
    },
  } as unknown as R2Bucket;
  return { bucket, calls };
}

const blob: BlobRow = {
  id: "blob-1",
  accountId: "acct-1",
  storageKey: "acct-1/blob-1",
  filename: "bl.pdf",
  contentType: "application/pdf",
  byteSize: 100,
  checksum: "1B2M2Y8AsgTpgAmY7PhCfg==",
  createdAt: "2026-12-01T00:00:00Z",
  uploadedAt: null,
};

const put = (bytes: number, headers: Record<string, string> = {}) =>
  new Request("https://api.test/files/uploads/t", {
    method: "PUT",
    headers: { "Content-Type": "application/pdf", "Content-Length": String(bytes), ...headers },
    body: new Uint8Array(bytes),
  });

describe("storeBlobBytes", () => {
  it("a body declared shorter than the reservation is a 422 before anything is written to R2", async () => {
    const { bucket, calls } = recordingBucket();
    const deps = { db: {} as Database, clock: new FakeClock(0), bucket };
    const err = await storeBlobBytes(deps, blob, put(10)).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(422);
    expect(calls).toEqual([]);
  });

  it("a body declared longer is a 413, also before R2", async () => {
    const { bucket, calls } = recordingBucket();
    const deps = { db: {} as Database, clock: new FakeClock(0), bucket };
    const err = await storeBlobBytes(deps, blob, put(150)).catch((e: unknown) => e);
    expect((err as ApiError).status).toBe(413);
    expect(calls).toEqual([]);
  });
});
