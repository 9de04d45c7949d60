import { afterEach, describe, expect, it } from "vitest";
import { sendWebhook, setWebhookFetch } from "../../src/webhooks/send";
import { newSecret, RecordingReceiver } from "../helpers/receiver";

// sendWebhook (docs/decisions.md §Webhooks): success only on 200/201/202/204; redirects, other statuses, connection
// errors and timeouts are failures with a reason; the URL is checked against the SSRF rules again at send time.
// The receiver is an injected fetch: nothing leaves the test.

const URL_OK = "https://hooks.acme-logistics.com/container-events";
const ID = "0192b6a4-1c2d-7e3f-8a4b-5c6d7e8f9a0b";
const BODY = '{"data":{"id":"0192b6a4-1c2d-7e3f-8a4b-5c6d7e8f9a0b","type":"webhook_notification"}}';

function input(receiver: RecordingReceiver, extra: Partial<Parameters<typeof sendWebhook>[0]> = {}) {
  return {
    url: URL_OK,
    secret: newSecret(),
    headers: [{ name: "X-Secret-Sauce", value: "sriracha" }],
    notificationId: ID,
    body: BODY,
    fetch: receiver.fetch,
    ...extra,
  };
}

afterEach(() => setWebhookFetch(null));

describe("sendWebhook", () => {
  it("POSTs the exact body with the signature and custom headers, redirect: manual", async () => {
    const receiver = new RecordingReceiver(() => 200);
    const attempt = await sendWebhook(input(receiver));
    expect(attempt).toMatchObject({ succeeded: true, statusCode: 200, error: null, gone: false });
    expect(attempt.latencyMs).toBeGreaterThanOrEqual(0);
    const [request] = receiver.requests;
    expect(request?.method).toBe("POST");
    expect(request?.url).toBe(URL_OK);
    expect(request?.body).toBe(BODY);
    expect(request?.redirect).toBe("manual");
    expect(request?.headers.get("x-svc-webhook-signature")).toMatch(/^[0-9a-f]{64}$/);
    expect(request?.headers.get("webhook-id")).toBe(ID);
    expect(request?.headers.get("x-secret-sauce")).toBe("sriracha");
    expect(attempt.requestHeaders?.["X-SVC-Webhook-Signature"]).toBe(request?.headers.get("x-svc-webhook-signature"));
    expect(attempt.responseBody).toBe("ok");
  });

  it.each([200, 201, 202, 204])("%i acknowledges", async (status) => {
    const attempt = await sendWebhook(input(new RecordingReceiver(() => status)));
    expect(attempt).toMatchObject({ succeeded: true, statusCode: status, error: null });
  });

  it.each([
    [203, "HTTP 203"],
    [205, "HTTP 205"],
    [400, "HTTP 400"],
    [404, "HTTP 404"],
    [429, "HTTP 429"],
    [500, "HTTP 500"],
    [503, "HTTP 503"],
  ])("%i is a failure (%s)", async (status, error) => {
    const attempt = await sendWebhook(input(new RecordingReceiver(() => status)));
    expect(attempt).toMatchObject({ succeeded: false, statusCode: status, error, gone: false });
  });

  it.each([301, 302, 307, 308])("a %i redirect is a failure and is not followed", async (status) => {
    const receiver = new RecordingReceiver(
      () => new Response(null, { status, headers: { Location: "https://elsewhere.acme-logistics.com/" } }),
    );
    const attempt = await sendWebhook(input(receiver));
    expect(attempt).toMatchObject({ succeeded: false, statusCode: status, error: `redirect (${status}) not followed` });
    expect(receiver.requests).toHaveLength(1);
  });

  it("410 Gone is a failure flagged gone (the webhook gets disabled)", async () => {
    const attempt = await sendWebhook(input(new RecordingReceiver(() => 410)));
    expect(attempt).toMatchObject({ succeeded: false, statusCode: 410, gone: true, error: "HTTP 410" });
  });

  it("a refused connection (fetch throws) is a failure without a status", async () => {
    const attempt = await sendWebhook(input(new RecordingReceiver(() => "refuse")));
    expect(attempt.succeeded).toBe(false);
    expect(attempt.statusCode).toBeNull();
    expect(attempt.error).toMatch(/^connection failed: .*ECONNREFUSED/);
  });

  it("no answer within the timeout is a failure, and the request is aborted", async () => {
    const receiver = new RecordingReceiver(() => "hang");
    let aborted = false;
    const fetchWithSpy: typeof fetch = (i, init) => {
      init?.signal?.addEventListener("abort", () => {
        aborted = true;
      });
      return receiver.fetch(i, init);
    };
    const attempt = await sendWebhook({ ...input(receiver), fetch: fetchWithSpy, timeoutMs: 30 });
    expect(attempt).toMatchObject({ succeeded: false, statusCode: null, error: "timeout: no answer within 30 ms" });
    expect(aborted).toBe(true);
  });

  it("a fetch that ignores the abort signal still times out", async () => {
    const neverEnding: typeof fetch = () => new Promise<Response>(() => undefined);
    const attempt = await sendWebhook({ ...input(new RecordingReceiver()), fetch: neverEnding, timeoutMs: 20 });
    expect(attempt.error).toBe("timeout: no answer within 20 ms");
  });

  it.each([
    "http://hooks.acme-logistics.com/x",
    "https://127.0.0.1/x",
    "https://[::1]/x",
    "https://2130706433/x",
    "https://localhost/x",
    "https://user:pass@hooks.acme-logistics.com/x",
    "https://metadata.google.internal/x",
  ])("re-checks the URL at send time: %s is not contacted", async (url) => {
    const receiver = new RecordingReceiver();
    const attempt = await sendWebhook(input(receiver, { url }));
    expect(attempt.succeeded).toBe(false);
    expect(attempt.statusCode).toBeNull();
    expect(attempt.error).toMatch(/^url not allowed \(/);
    expect(receiver.requests).toHaveLength(0);
  });

  it("WEBHOOK_ALLOW_INSECURE_HOSTS lets local development reach http://127.0.0.1", async () => {
    const receiver = new RecordingReceiver(() => 204);
    const attempt = await sendWebhook(
      input(receiver, { url: "http://127.0.0.1:9123/hook", allowInsecureHosts: ["127.0.0.1"] }),
    );
    expect(attempt.succeeded).toBe(true);
    expect(receiver.requests[0]?.url).toBe("http://127.0.0.1:9123/hook");
  });

  it("without a fetch argument it uses the setWebhookFetch seam", async () => {
    const receiver = new RecordingReceiver(() => 202);
    setWebhookFetch(receiver.fetch);
    const { fetch: _unused, ...rest } = input(receiver);
    const attempt = await sendWebhook(rest);
    expect(attempt.statusCode).toBe(202);
    expect(receiver.requests).toHaveLength(1);
  });
});
