/**
 * Reading a request body with a byte limit, whatever its framing. A `Content-Length` over the limit is refused before
 * a byte is read; a chunked body (no `Content-Length`) or one whose declared length lies is read chunk by chunk and
 * abandoned (the stream cancelled) as soon as it passes the limit, so memory never holds more than the limit plus one
 * chunk. Used by the `/v2` body guard (src/middleware/body.ts) and by the unauthenticated callbacks
 * (src/callbacks/routes.ts), which must not buffer what an anonymous sender streams at them.
 */

/** Why a body was not read whole: it is (or declares itself) larger than the limit. */
export const BODY_TOO_LARGE = Symbol("body too large");

/**
 * A body not read yet: the handler calls it once it knows the sender may be heard (e.g. after finding the
 * subscription a callback names), so a request for nothing of ours costs no read. Resolves as {@link readBodyUpTo}.
 */
export type PendingBody = () => Promise<Uint8Array | typeof BODY_TOO_LARGE>;

/**
 * The request's `Content-Length` when it is a plain decimal number of bytes; undefined when absent or malformed (the
 * runtime then frames the body itself, e.g. chunked).
 */
export function declaredLength(headers: Headers): number | undefined {
  const value = headers.get("content-length")?.trim();
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * The whole body of `request` as bytes (empty when it has none), or {@link BODY_TOO_LARGE} when it declares or
 * streams more than `maxBytes` bytes. Reads `request.body` itself: clone the request first if a later reader needs
 * it. Never throws for the size; a stream the client breaks off rejects as the runtime reports it.
 */
export async function readBodyUpTo(request: Request, maxBytes: number): Promise<Uint8Array | typeof BODY_TOO_LARGE> {
  const declared = declaredLength(request.headers);
  if (declared !== undefined && declared > maxBytes) {
    await request.body?.cancel().catch(() => undefined);
    return BODY_TOO_LARGE;
  }
  if (declared !== undefined) {
    // Framed by a Content-Length within the limit: read whole in one runtime call (a stream reader's loop cost the
    // Worker ~0.25 ms per JSON create, `npm run bench -- api --profile create`, issue 29 §4); a body that still turns
    // out longer is refused alike.
    const bytes = new Uint8Array(await request.arrayBuffer());
    return bytes.byteLength > maxBytes ? BODY_TOO_LARGE : bytes;
  }
  const reader = request.body?.getReader();
  if (!reader) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return BODY_TOO_LARGE;
    }
    chunks.push(value);
  }
  if (chunks.length === 1 && chunks[0]) return chunks[0];
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}
