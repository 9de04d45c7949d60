import { afterEach, describe, expect, it, vi } from "vitest";
import { sendAccountMail, setAccountMailTransport } from "../../src/sessions/account-mail";

const message = {
  to: "ops@example.com",
  subject: "Your sign-in link",
  text: "open http://127.0.0.1:8787/sign-in/link?token=SECRETTOKEN",
  html: "<p>x</p>",
};

afterEach(() => {
  setAccountMailTransport(undefined);
  vi.restoreAllMocks();
});

describe("account e-mail without an SMTP relay", () => {
  it("writes the message to the console only when SIGN_IN_LINKS_TO_CONSOLE is true (npm start)", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    const outcome = await sendAccountMail({ SIGN_IN_LINKS_TO_CONSOLE: "true" }, "sign-in link", message);
    expect(outcome).toEqual({ sent: "console" });
    expect(log).toHaveBeenCalledTimes(1);
    expect(String(log.mock.calls[0]?.[0])).toContain("SECRETTOKEN");
  });

  it.each([{}, { SIGN_IN_LINKS_TO_CONSOLE: "false" }, { SIGN_IN_LINKS_TO_CONSOLE: "TRUE" }])(
    "otherwise sends nothing and logs why, without the link (%j)",
    async (env) => {
      const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
      const warn = vi.spyOn(console, "warn").mockImplementation(() => undefined);
      const outcome = await sendAccountMail(env, "sign-in link", message);
      expect(outcome).toEqual({ sent: false, error: "e-mail is not configured (SMTP_HOST is unset)" });
      expect(log).not.toHaveBeenCalled();
      expect(warn).toHaveBeenCalledTimes(1);
      expect(String(warn.mock.calls[0]?.[0])).toContain("sign-in link not sent");
      expect(String(warn.mock.calls[0]?.[0])).not.toContain("SECRETTOKEN");
    },
  );

  it("never writes to the console when a relay is configured, even with the switch on", async () => {
    const log = vi.spyOn(console, "log").mockImplementation(() => undefined);
    vi.spyOn(console, "warn").mockImplementation(() => undefined);
    // A relay on a port nothing listens on: the send fails, and the failure is reported, not the message.
    setAccountMailTransport({
      host: "127.0.0.1",
      port: 9,
      security: "none",
      username: null,
      password: null,
      from: "a@b.c",
    });
    const outcome = await sendAccountMail({ SIGN_IN_LINKS_TO_CONSOLE: "true" }, "sign-in link", message);
    expect(outcome.sent).toBe(false);
    expect(log).not.toHaveBeenCalled();
  });
});
