import { describe, expect, it } from "vitest";
import {
  DEFAULT_AFTER_SIGN_IN,
  normalizeEmail,
  safeNextPath,
  signInEmail,
  signInLinkUrl,
} from "../../src/sessions/sign-in-links";

describe("safeNextPath", () => {
  it("keeps a path of this origin, with its query", () => {
    expect(safeNextPath("/app/track")).toBe("/app/track");
    expect(safeNextPath("/app/containers?status=available&page=2")).toBe("/app/containers?status=available&page=2");
    expect(safeNextPath("/oauth/authorize?client_id=a&redirect_uri=https%3A%2F%2Fx")).toBe(
      "/oauth/authorize?client_id=a&redirect_uri=https%3A%2F%2Fx",
    );
  });

  it("percent-encodes what a Location header cannot carry as is", () => {
    expect(safeNextPath("/app/containers?q=Bremerhaven Süd#top")).toBe("/app/containers?q=Bremerhaven%20S%C3%BCd#top");
  });

  it.each([
    undefined,
    "",
    "//evil.test",
    "//evil.test/app",
    "https://evil.test/app",
    "javascript:alert(1)",
    "/\\evil.test",
    "\\\\evil.test",
    "/\t/evil.test",
    "/\n/evil.test",
    "app/containers",
    `/${"a".repeat(2001)}`,
  ])("refuses %j (goes to the default)", (next) => {
    expect(safeNextPath(next)).toBe(DEFAULT_AFTER_SIGN_IN);
  });
});

describe("normalizeEmail", () => {
  it("trims and lowercases a plausible address", () => {
    expect(normalizeEmail("  Ops.Desk@Example.COM ")).toBe("ops.desk@example.com");
  });

  it.each(["", "   ", "no-at-sign", "a@b@c", "a b@c.d", "<a@b.c>", `${"a".repeat(250)}@b.cd`, 42])(
    "refuses %j",
    (raw) => {
      expect(normalizeEmail(raw)).toBeNull();
    },
  );
});

describe("the sign-in e-mail", () => {
  it("carries the link, escaped in HTML, and says how long it works", () => {
    const link = signInLinkUrl("https://tracking.example.com", "A".repeat(43), "/app/track?a=1&b=2");
    expect(link).toBe(
      `https://tracking.example.com/sign-in/link?token=${"A".repeat(43)}&next=%2Fapp%2Ftrack%3Fa%3D1%26b%3D2`,
    );
    const mail = signInEmail("ops@example.com", `${link}&x="<y>`);
    expect(mail.text).toContain(link);
    expect(mail.text).toContain("15 minutes");
    expect(mail.html).not.toContain('"<y>');
    expect(mail.html).toContain("&#34;&#60;y&#62;");
  });

  it("leaves the default next out of the link", () => {
    expect(signInLinkUrl("http://127.0.0.1:8787", "t", DEFAULT_AFTER_SIGN_IN)).toBe(
      "http://127.0.0.1:8787/sign-in/link?token=t",
    );
  });
});
