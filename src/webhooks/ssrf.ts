import ipaddr from "ipaddr.js";

/**
 * Webhook URL safety (SSRF) rules, docs/decisions.md §Webhooks. Pure: no DNS, no network. Checked when a webhook is
 * created or updated, by `POST /webhooks/trigger`, and again before every delivery. The name-based rules cannot see
 * where a public name resolves to (DNS rebinding, wildcard DNS); that is left to the `global_fetch_strictly_public`
 * compatibility flag (wrangler.toml), under which the Worker's fetch never reaches private addresses.
 *
 * The rules, in the order they are checked (the first failing one is reported):
 * 1. not blank, at most `MAX_WEBHOOK_URL_LENGTH` characters, no whitespace or control characters (the WHATWG
 *    parser would silently drop some, so what was checked would differ from what was typed) → `invalid` / `too_long`;
 * 2. an absolute URL (WHATWG URL parser) → `invalid`;
 * 3. scheme `https`; `http` only for hosts in the allow list → `scheme_not_allowed`;
 * 4. no user name or password → `userinfo_not_allowed`;
 * 5. a host exactly in the allow list (`WEBHOOK_ALLOW_INSECURE_HOSTS`, local development only) passes the host and
 *    port rules below;
 * 6. no IP literal of any form → `ip_literal_not_allowed`. The WHATWG parser turns every IPv4 spelling into a
 *    dotted quad (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`, full-width digits, percent-encoding all become
 *    `127.0.0.1`), IPv6 hosts keep their brackets, and ipaddr.js recognises whatever is left;
 * 7. a public DNS name: no trailing dot, at least two labels (so `localhost`, `metadata`, `instance-data` and any
 *    intranet short name fail), not a cloud metadata name, not under a special-use or private-use suffix
 *    (`.localhost`, `.local`, `.internal`, `.test`, `.home.arpa` …), not a wildcard-DNS service that maps names to
 *    private addresses (`nip.io`, `localtest.me` …) → `host_not_allowed`;
 * 8. port: the scheme's default, or 1024–65535. Other privileged ports (22, 25, 53 …) are refused so that a
 *    webhook cannot be aimed at a public host's SSH, SMTP, DNS or similar services → `port_not_allowed`.
 */
export type WebhookUrlCheck = { ok: true; url: URL } | { ok: false; code: string; detail: string };

/** Longest webhook URL accepted, in UTF-16 code units (what browsers and most servers handle). */
export const MAX_WEBHOOK_URL_LENGTH = 2048;

/** Lowest explicit port accepted (ports below it are privileged services; the scheme's default is always fine). */
export const MIN_WEBHOOK_PORT = 1024;

/** Host names of cloud metadata services (AWS, GCP, Azure, OpenStack, Kubernetes), refused outright. */
const METADATA_HOSTS: ReadonlySet<string> = new Set([
  "metadata",
  "metadata.google.internal",
  "metadata.goog",
  "metadata.azure.com",
  "instance-data",
  "instance-data.ec2.internal",
  "kubernetes.default",
  "kubernetes.default.svc",
]);

/**
 * Suffixes that never name a public host: RFC 6761 special-use names (`localhost`, `test`, `invalid`, `example`),
 * RFC 6762 `local`, RFC 8375 `home.arpa`, ICANN's private-use `internal`, and de-facto private TLDs.
 */
const PRIVATE_SUFFIXES: readonly string[] = [
  "localhost",
  "local",
  "internal",
  "localdomain",
  "lan",
  "home",
  "corp",
  "intranet",
  "private",
  "home.arpa",
  "arpa",
  "test",
  "invalid",
  "example",
];

/** Wildcard-DNS services whose names resolve to an address spelled in the name (e.g. `10.0.0.1.nip.io`). */
const WILDCARD_DNS_SUFFIXES: readonly string[] = ["nip.io", "sslip.io", "xip.io", "localtest.me", "lvh.me"];

/** Whitespace and control characters (C0, DEL, C1): never part of a URL as sent. */
const FORBIDDEN_CHARACTERS = /[\s\p{Cc}]/u;

function fail(code: string, detail: string): WebhookUrlCheck {
  return { ok: false, code, detail };
}

function hasSuffix(host: string, suffix: string): boolean {
  return host === suffix || host.endsWith(`.${suffix}`);
}

/** `[::1]` → `::1`; other hosts unchanged. */
function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** The ipaddr.js range name of an IP literal (`loopback`, `private`, `ipv4Mapped` …), or null if it is not one. */
function ipRange(host: string): string | null {
  const bare = unbracket(host);
  if (!ipaddr.isValid(bare)) return null;
  try {
    return ipaddr.parse(bare).range();
  } catch {
    return "unknown";
  }
}

/**
 * Checks a webhook URL against the SSRF rules above (docs/decisions.md §Webhooks). Pure and synchronous.
 * @param raw the URL as the client sent it.
 * @param allowInsecureHosts hosts (normalised by `parseAllowInsecureHosts`) that may use `http://` and skip the host
 *   and port rules; empty in production.
 * @returns `{ok: true, url}` with the parsed URL (store and send `url.href`, the form that was checked), or
 *   `{ok: false, code, detail}` naming the first rule that failed.
 */
export function checkWebhookUrl(raw: string, allowInsecureHosts: readonly string[] = []): WebhookUrlCheck {
  if (typeof raw !== "string" || raw.trim() === "") return fail("blank", "Url can't be blank");
  if (raw.length > MAX_WEBHOOK_URL_LENGTH) {
    return fail("too_long", `Url must be at most ${MAX_WEBHOOK_URL_LENGTH} characters.`);
  }
  if (FORBIDDEN_CHARACTERS.test(raw)) return fail("invalid", "Url must not contain whitespace or control characters.");
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return fail("invalid", "Url is not a valid absolute URL.");
  }
  const host = url.hostname.toLowerCase();
  const allowed = allowInsecureHosts.includes(host);
  if (url.protocol !== "https:" && !(url.protocol === "http:" && allowed)) {
    return fail("scheme_not_allowed", "Url must use https.");
  }
  if (url.username !== "" || url.password !== "") {
    return fail("userinfo_not_allowed", "Url must not contain a user name or password.");
  }
  if (allowed) return { ok: true, url };

  const range = ipRange(host);
  if (range !== null || host.startsWith("[")) {
    return fail(
      "ip_literal_not_allowed",
      `Url must name its host by a public DNS name, not an IP address (${host}${range ? `, ${range}` : ""}).`,
    );
  }
  if (host === "" || host.endsWith(".")) {
    return fail("host_not_allowed", "Url host must be a DNS name without a trailing dot.");
  }
  if (METADATA_HOSTS.has(host)) return fail("host_not_allowed", `Url host ${host} is a cloud metadata service.`);
  if (!host.includes(".") || host.split(".").some((label) => label === "")) {
    return fail("host_not_allowed", `Url host ${host} is not a fully qualified public domain name.`);
  }
  const suffix = PRIVATE_SUFFIXES.find((s) => hasSuffix(host, s));
  if (suffix) return fail("host_not_allowed", `Url host ${host} is a local or private name (.${suffix}).`);
  const wildcard = WILDCARD_DNS_SUFFIXES.find((s) => hasSuffix(host, s));
  if (wildcard) {
    return fail("host_not_allowed", `Url host ${host} uses ${wildcard}, which resolves names to private addresses.`);
  }
  if (url.port !== "" && Number(url.port) < MIN_WEBHOOK_PORT) {
    return fail("port_not_allowed", `Url port must be the default (443) or between ${MIN_WEBHOOK_PORT} and 65535.`);
  }
  return { ok: true, url };
}

/**
 * Parses `WEBHOOK_ALLOW_INSECURE_HOSTS` (local development only, docs/decisions.md §Webhooks): a comma- or
 * whitespace-separated list of hosts, e.g. `127.0.0.1,localhost`. Each entry is normalised the way the URL parser
 * normalises hosts (lower case, IPv4 spellings to a dotted quad, IPv6 in brackets: `::1` → `[::1]`), so that
 * matching in `checkWebhookUrl` is exact on the parsed host. A port in an entry is ignored (every port of an
 * allowed host is allowed); entries that are not a bare host (a path, user info, garbage) are dropped.
 * @returns the normalised hosts, without duplicates; `[]` for an unset or empty value.
 */
export function parseAllowInsecureHosts(value: string | undefined): string[] {
  if (!value) return [];
  const hosts = new Set<string>();
  for (const entry of value.split(/[\s,]+/)) {
    if (entry === "") continue;
    const candidate = !entry.startsWith("[") && ipaddr.IPv6.isValid(entry) ? `[${entry}]` : entry;
    try {
      const url = new URL(`http://${candidate}`);
      if (url.pathname !== "/" || url.search !== "" || url.hash !== "" || url.username !== "" || url.password !== "")
        continue;
      if (url.hostname !== "") hosts.add(url.hostname.toLowerCase());
    } catch {
      // Not a host: ignored, as documented.
    }
  }
  return [...hosts];
}
