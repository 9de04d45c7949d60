import { MAX_WEBHOOK_URL_LENGTH } from "../../src/webhooks/ssrf";

// The SSRF matrix of docs/decisions.md §Webhooks, shared by the unit tests of checkWebhookUrl and the API tests that
// send it through create, update and trigger (and usable by delivery tests at send time).

/** URLs the SSRF rules must refuse, each with the `code` of the rule it breaks (src/webhooks/ssrf.ts). */
export const REJECTED_WEBHOOK_URLS: readonly { url: string; code: string }[] = [
  // Scheme
  { url: "http://hooks.example.com/receive", code: "scheme_not_allowed" },
  { url: "ftp://hooks.example.com/receive", code: "scheme_not_allowed" },
  { url: "file:///etc/passwd", code: "scheme_not_allowed" },
  { url: "javascript:alert(1)", code: "scheme_not_allowed" },
  { url: "gopher://hooks.example.com:70/", code: "scheme_not_allowed" },
  // User info
  { url: "https://user:pass@hooks.example.com/", code: "userinfo_not_allowed" },
  { url: "https://user@hooks.example.com/", code: "userinfo_not_allowed" },
  { url: "https://hooks.example.com@127.0.0.1/", code: "userinfo_not_allowed" },
  // IPv4 literals in every spelling the URL parser accepts
  { url: "https://127.0.0.1/", code: "ip_literal_not_allowed" },
  { url: "https://8.8.8.8/", code: "ip_literal_not_allowed" },
  { url: "https://10.0.0.5:8443/hook", code: "ip_literal_not_allowed" },
  { url: "https://169.254.169.254/latest/meta-data/", code: "ip_literal_not_allowed" },
  { url: "https://2130706433/", code: "ip_literal_not_allowed" },
  { url: "https://0x7f000001/", code: "ip_literal_not_allowed" },
  { url: "https://0x7f.1/", code: "ip_literal_not_allowed" },
  { url: "https://0177.0.0.1/", code: "ip_literal_not_allowed" },
  { url: "https://017700000001/", code: "ip_literal_not_allowed" },
  { url: "https://127.1/", code: "ip_literal_not_allowed" },
  { url: "https://127.0.1/", code: "ip_literal_not_allowed" },
  { url: "https://0/", code: "ip_literal_not_allowed" },
  { url: "https://0.0.0.0/", code: "ip_literal_not_allowed" },
  { url: "https://%31%32%37.0.0.1/", code: "ip_literal_not_allowed" },
  { url: "https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/", code: "ip_literal_not_allowed" },
  { url: "https://127.0.0.1./", code: "ip_literal_not_allowed" },
  // IPv6 literals, including IPv4-mapped and IPv4-compatible forms
  { url: "https://[::1]/", code: "ip_literal_not_allowed" },
  { url: "https://[::]/", code: "ip_literal_not_allowed" },
  { url: "https://[0:0:0:0:0:0:0:1]:8443/", code: "ip_literal_not_allowed" },
  { url: "https://[::ffff:127.0.0.1]/", code: "ip_literal_not_allowed" },
  { url: "https://[::ffff:7f00:1]/", code: "ip_literal_not_allowed" },
  { url: "https://[::ffff:169.254.169.254]/", code: "ip_literal_not_allowed" },
  { url: "https://[::127.0.0.1]/", code: "ip_literal_not_allowed" },
  { url: "https://[fe80::1]/", code: "ip_literal_not_allowed" },
  { url: "https://[fd00:ec2::254]/", code: "ip_literal_not_allowed" },
  { url: "https://[2606:4700:4700::1111]/", code: "ip_literal_not_allowed" },
  // Zone ids are not valid in WHATWG URLs: refused as invalid before any host rule
  { url: "https://[fe80::1%25eth0]/", code: "invalid" },
  // Local and private names
  { url: "https://localhost/", code: "host_not_allowed" },
  { url: "https://LOCALHOST:8443/", code: "host_not_allowed" },
  { url: "https://localhost./", code: "host_not_allowed" },
  { url: "https://api.localhost/", code: "host_not_allowed" },
  { url: "https://printer.local/", code: "host_not_allowed" },
  { url: "https://service.svc.cluster.local/", code: "host_not_allowed" },
  { url: "https://db.internal/", code: "host_not_allowed" },
  { url: "https://router.home.arpa/", code: "host_not_allowed" },
  { url: "https://1.0.0.127.in-addr.arpa/", code: "host_not_allowed" },
  { url: "https://box.lan/", code: "host_not_allowed" },
  { url: "https://hooks.test/", code: "host_not_allowed" },
  { url: "https://intranet/", code: "host_not_allowed" },
  // Cloud metadata names
  { url: "https://metadata/computeMetadata/v1/", code: "host_not_allowed" },
  { url: "https://metadata.google.internal/computeMetadata/v1/", code: "host_not_allowed" },
  { url: "https://METADATA.GOOGLE.INTERNAL./", code: "host_not_allowed" },
  { url: "https://metadata.goog/", code: "host_not_allowed" },
  { url: "https://instance-data/latest/", code: "host_not_allowed" },
  { url: "https://instance-data.ec2.internal/", code: "host_not_allowed" },
  // Wildcard DNS that maps names to private addresses
  { url: "https://127.0.0.1.nip.io/", code: "host_not_allowed" },
  { url: "https://10-0-0-1.sslip.io/", code: "host_not_allowed" },
  { url: "https://app.localtest.me/", code: "host_not_allowed" },
  // Trailing dots and empty labels
  { url: "https://hooks.example.com./receive", code: "host_not_allowed" },
  { url: "https://hooks..example.com/", code: "host_not_allowed" },
  // Ports
  { url: "https://hooks.example.com:22/", code: "port_not_allowed" },
  { url: "https://hooks.example.com:25/", code: "port_not_allowed" },
  { url: "https://hooks.example.com:80/", code: "port_not_allowed" },
  // Not a URL at all, or smuggling characters the parser would drop
  { url: "", code: "blank" },
  { url: "   ", code: "blank" },
  { url: "hooks.example.com/receive", code: "invalid" },
  { url: "https://", code: "invalid" },
  { url: "https://hooks.exa\tmple.com/", code: "invalid" },
  { url: " https://hooks.example.com/", code: "invalid" },
  { url: "https://hooks.example.com/\r\nX-Injected: 1", code: "invalid" },
  { url: `https://hooks.example.com/${"a".repeat(MAX_WEBHOOK_URL_LENGTH)}`, code: "too_long" },
];

/** URLs every rule lets through. */
export const ACCEPTED_WEBHOOK_URLS: readonly string[] = [
  "https://hooks.example.com/receive",
  "https://hooks.example.com:443/receive?token=abc#frag",
  "https://hooks.example.com:8443/receive",
  "https://webhook.site/6f0c1e0e-1d51-4d0b-8a8f-5f1d1e7b3c1a",
  "https://xn--bcher-kva.com/hook",
  "https://bücher.example.org/hook",
  "https://a.b.c.example.co.uk/deep/path",
  "https://localhost.example.com/",
  "https://metadata.example.com/",
];
