import { inject } from "vitest";
import type { TransportSettings } from "../../src/alerts/channels";
import { type ReceivedAlert, SMTP_TEST_PASSWORD, SMTP_TEST_USER } from "../fixtures/alert-receivers";

/** Base URL of the local HTTP alert receiver (Slack-, Teams- and webhook-shaped POSTs on any path). */
export function receiverUrl(path: string): string {
  return `http://127.0.0.1:${inject("alertHttpPort")}${path}`;
}

/** The transport that points alert deliveries at the local receivers (SMTP without TLS, http to 127.0.0.1). */
export function localTransport(): Partial<TransportSettings> {
  return {
    smtp: {
      host: "127.0.0.1",
      port: inject("alertSmtpPort"),
      security: "none",
      username: SMTP_TEST_USER,
      password: SMTP_TEST_PASSWORD,
      from: "alerts@tracking.test",
    },
    allowInsecureHosts: ["127.0.0.1"],
  };
}

/** Everything the local receivers got since the last {@link clearReceived}. */
export async function received(): Promise<ReceivedAlert[]> {
  const res = await fetch(receiverUrl("/_received"));
  return (await res.json()) as ReceivedAlert[];
}

/** Forgets what the receivers got (they are shared by the test files of one run: filter by a unique path too). */
export async function clearReceived(): Promise<void> {
  await fetch(receiverUrl("/_received"), { method: "DELETE" });
}
