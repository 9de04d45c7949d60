import { afterEach, describe, expect, it, vi } from "vitest";
import { sendTerminalRequest, type TerminalRequest } from "../../../../src/tracking/sources/terminal-operators/http";
import type { SourceContext } from "../../../../src/tracking/sources/types";

// The request and status sorting every terminal adapter shares (src/tracking/sources/terminal-operators/http.ts).

const request: TerminalRequest = {
  url: "https://terminal.example/api/boxes?key=SECRET",
  method: "GET",
  headers: new Headers({ Accept: "application/json" }),
  timeoutMs: 1_000,
  auth: null,
  label: "Test terminal",
  origin: "https://terminal.example",
  credentialsHint: ": check the key",
  unexpectedStatusHint: " to the box search",
};

const answering = (respond: () => Promise<Response>): SourceContext => ({
  nowMs: 0,
  fetch: vi.fn(respond) as unknown as typeof fetch,
});

afterEach(() => vi.restoreAllMocks());

describe("sendTerminalRequest", () => {
  it("gives the body of a 200", async () => {
    const ctx = answering(async () => new Response('{"ok":true}', { status: 200 }));
    expect(await sendTerminalRequest(request, ctx)).toEqual({ kind: "ok", body: '{"ok":true}' });
  });

  it.each([
    [401, "terminal_credentials_rejected"],
    [403, "terminal_credentials_rejected"],
    [408, "terminal_unreachable"],
    [429, "terminal_unreachable"],
    [500, "terminal_unreachable"],
    [503, "terminal_unreachable"],
    [400, "unrecognized_response"],
    [404, "unrecognized_response"],
    [204, "unrecognized_response"],
  ])("sorts status %i as %s, logging the origin and never the URL's key", async (status, reason) => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const ctx = answering(async () => new Response(status === 204 ? null : "body", { status }));
    expect(await sendTerminalRequest(request, ctx)).toEqual({ kind: "failed", reason });
    const logged = JSON.stringify([...error.mock.calls, ...warn.mock.calls]);
    expect(logged).toContain(`Test terminal: https://terminal.example answered ${status}`);
    expect(logged).not.toContain("SECRET");
  });

  it("logs a numeric Retry-After of a 503", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const ctx = answering(async () => new Response(null, { status: 503, headers: { "Retry-After": "30" } }));
    await sendTerminalRequest(request, ctx);
    expect(warn).toHaveBeenCalledWith("Test terminal: https://terminal.example answered 503 (Retry-After 30 s)");
  });

  it("sorts a network error and a timeout as unreachable, without throwing", async () => {
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const refused = answering(async () => {
      throw new TypeError("connection refused");
    });
    expect(await sendTerminalRequest(request, refused)).toEqual({ kind: "failed", reason: "terminal_unreachable" });
    const timedOut = answering(async () => {
      throw new DOMException("timed out", "TimeoutError");
    });
    expect(await sendTerminalRequest(request, timedOut)).toEqual({ kind: "failed", reason: "terminal_unreachable" });
    expect(warn.mock.calls.map((c) => c[0])).toEqual([
      "Test terminal: https://terminal.example unreachable",
      "Test terminal: https://terminal.example timed out",
    ]);
  });
});
