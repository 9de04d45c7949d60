/**
 * A request body streamed the way `curl -H 'Transfer-Encoding: chunked' --data-binary @-` sends one: no
 * `Content-Length`, `totalBytes` bytes of `fill` in chunks of `chunkBytes`, produced only as the server pulls them.
 * `pulled()` tells how many bytes the server asked for, so a test can see that a body was not read (or that reading
 * stopped at a limit) instead of trusting the status alone.
 */
export function streamedBody(
  totalBytes: number,
  chunkBytes = 64 * 1024,
  fill = 0x20,
): { body: ReadableStream<Uint8Array>; pulled: () => number } {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (sent >= totalBytes) return controller.close();
        const size = Math.min(chunkBytes, totalBytes - sent);
        sent += size;
        controller.enqueue(new Uint8Array(size).fill(fill));
      },
    },
    // Nothing is produced ahead of the reader: every byte counted was asked for.
    { highWaterMark: 0 },
  );
  return { body, pulled: () => sent };
}
