import fc from "fast-check";
import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import {
  checkWebhookUrl,
  MAX_WEBHOOK_URL_LENGTH,
  parseAllowInsecureHosts,
  type WebhookUrlCheck,
} from "../../src/webhooks/ssrf";
import { ACCEPTED_WEBHOOK_URLS, REJECTED_WEBHOOK_URLS } from "./ssrf-matrix";

function expectRejected(result: WebhookUrlCheck, code: string, url: string): void {
  expect(result.ok, url).toBe(false);
  if (!result.ok) {
    expect(result.code, url).toBe(code);
    expect(result.detail.length, url).toBeGreaterThan(0);
  }
}

describe("checkWebhookUrl", () => {
  it.each(REJECTED_WEBHOOK_URLS)("refuses $url ($code)", ({ url, code }) => {
    expectRejected(checkWebhookUrl(url), code, url);
  });

  it.each(ACCEPTED_WEBHOOK_URLS)("accepts %s", (url) => {
    const result = checkWebhookUrl(url);
    expect(result.ok, url).toBe(true);
    if (result.ok) expect(result.url.protocol).toBe("https:");
  });

  it("returns the parsed URL, normalised the way it will be sent", () => {
    const result = checkWebhookUrl("https://Hooks.Example.COM:443/a/../receive");
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.url.href).toBe("https://hooks.example.com/receive");
  });

  it("names the address range of an IP literal in the detail", () => {
    const loopback = checkWebhookUrl("https://0x7f.1/");
    expect(loopback).toMatchObject({ ok: false, code: "ip_literal_not_allowed" });
    if (!loopback.ok) expect(loopback.detail).toContain("127.0.0.1, loopback");
    const mapped = checkWebhookUrl("https://[::ffff:127.0.0.1]/");
    if (!mapped.ok) expect(mapped.detail).toContain("ipv4Mapped");
  });

  it("accepts exactly the length limit and refuses one more", () => {
    const prefix = "https://hooks.example.com/";
    const atLimit = prefix + "a".repeat(MAX_WEBHOOK_URL_LENGTH - prefix.length);
    expect(atLimit.length).toBe(MAX_WEBHOOK_URL_LENGTH);
    expect(checkWebhookUrl(atLimit).ok).toBe(true);
    expectRejected(checkWebhookUrl(`${atLimit}a`), "too_long", "limit + 1");
  });

  it("accepts the lowest unprivileged port and refuses the one below", () => {
    expect(checkWebhookUrl("https://hooks.example.com:1024/").ok).toBe(true);
    expect(checkWebhookUrl("https://hooks.example.com:65535/").ok).toBe(true);
    expectRejected(checkWebhookUrl("https://hooks.example.com:1023/"), "port_not_allowed", ":1023");
  });
});

describe("checkWebhookUrl with an allow list (WEBHOOK_ALLOW_INSECURE_HOSTS)", () => {
  const allow = parseAllowInsecureHosts("127.0.0.1, localhost ::1");

  it("lets http and https reach exactly the listed hosts, on any port", () => {
    for (const url of [
      "http://127.0.0.1:9999/hook",
      "http://localhost:8787/",
      "https://localhost/",
      "http://[::1]:3000/",
      "http://LOCALHOST:80/",
    ]) {
      const result = checkWebhookUrl(url, allow);
      expect(result.ok, url).toBe(true);
    }
  });

  it("matches the host as parsed, so other spellings of a listed address match too", () => {
    // 0x7f.1 is 127.0.0.1 to the URL parser, hence to fetch: the same host, so the same decision.
    expect(checkWebhookUrl("http://0x7f.1:9999/", allow).ok).toBe(true);
  });

  it("still refuses hosts that are not listed, and user info on listed ones", () => {
    expectRejected(checkWebhookUrl("http://127.0.0.2/", allow), "scheme_not_allowed", "127.0.0.2 http");
    expectRejected(checkWebhookUrl("https://127.0.0.2/", allow), "ip_literal_not_allowed", "127.0.0.2 https");
    expectRejected(checkWebhookUrl("http://localhost.example.com/", allow), "scheme_not_allowed", "suffix");
    expectRejected(checkWebhookUrl("http://api.localhost/", allow), "scheme_not_allowed", "subdomain");
    expectRejected(checkWebhookUrl("http://localhost./", allow), "scheme_not_allowed", "trailing dot");
    expectRejected(checkWebhookUrl("http://user:pw@localhost/", allow), "userinfo_not_allowed", "userinfo");
    expectRejected(checkWebhookUrl("ftp://localhost/", allow), "scheme_not_allowed", "ftp");
  });

  it("refuses everything local when the list is empty (production)", () => {
    expectRejected(checkWebhookUrl("http://127.0.0.1:9999/hook", []), "scheme_not_allowed", "http");
    expectRejected(checkWebhookUrl("https://localhost/", []), "host_not_allowed", "localhost");
  });
});

describe("parseAllowInsecureHosts", () => {
  it("is empty for an unset or blank value", () => {
    expect(parseAllowInsecureHosts(undefined)).toEqual([]);
    expect(parseAllowInsecureHosts("")).toEqual([]);
    expect(parseAllowInsecureHosts(" , ,")).toEqual([]);
  });

  it("normalises hosts as the URL parser does and drops duplicates", () => {
    expect(parseAllowInsecureHosts("LocalHost,127.0.0.1,0x7f.1,::1,[::1],receiver.example.com:9000")).toEqual([
      "localhost",
      "127.0.0.1",
      "[::1]",
      "receiver.example.com",
    ]);
  });

  it("drops entries that are not a bare host", () => {
    expect(parseAllowInsecureHosts("localhost/path,user@host,http://x,x?q=1,#frag,good.example.com")).toEqual([
      "good.example.com",
    ]);
  });
});

describe("checkWebhookUrl on arbitrary input (fixed seed)", () => {
  /** What every accepted URL must be, whatever the input: https, no user info, a dotted DNS name, no IP. */
  function expectSafe(raw: string): void {
    const result = checkWebhookUrl(raw);
    if (!result.ok) {
      expect(result.code.length).toBeGreaterThan(0);
      return;
    }
    const host = result.url.hostname;
    expect(result.url.protocol).toBe("https:");
    expect(result.url.username + result.url.password).toBe("");
    expect(host.startsWith("[")).toBe(false);
    expect(ipaddr.isValid(host)).toBe(false);
    expect(host.includes(".")).toBe(true);
    expect(host.endsWith(".") || host === "localhost" || host.endsWith(".localhost")).toBe(false);
  }

  it("never throws and accepts only safe URLs, for random strings and random web URLs", () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => expectSafe(s)),
      { seed: 20_301, numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ["https", "http"], withQueryParameters: true, withFragments: true }), (s) =>
        expectSafe(s),
      ),
      { seed: 20_302, numRuns: 500 },
    );
  });

  it("refuses every IPv4 address in every spelling, and every IPv6 address", () => {
    const octets = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
    fc.assert(
      fc.property(octets, ([a, b, c, d]) => {
        const n = ((a << 24) >>> 0) + (b << 16) + (c << 8) + d;
        for (const host of [
          `${a}.${b}.${c}.${d}`,
          String(n),
          `0x${n.toString(16)}`,
          `0${n.toString(8)}`,
          `${a}.${(b << 16) + (c << 8) + d}`,
        ]) {
          const result = checkWebhookUrl(`https://${host}/hook`);
          expect(result, host).toMatchObject({ ok: false, code: "ip_literal_not_allowed" });
        }
      }),
      { seed: 20_303, numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.ipV6(), (ip) => {
        expect(checkWebhookUrl(`https://[${ip}]/hook`), ip).toMatchObject({
          ok: false,
          code: "ip_literal_not_allowed",
        });
      }),
      { seed: 20_304, numRuns: 300 },
    );
  });
});
