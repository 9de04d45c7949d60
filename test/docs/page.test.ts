import { exports } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { SCALAR_SCRIPT_INTEGRITY, SCALAR_SCRIPT_PATH } from "../../src/docs/page";

// Issue 11 §4: /docs is self-contained (the Scalar build comes from this Worker's assets, pinned by version and
// hash) and served under a strict Content-Security-Policy. `npm run check:docs` renders it in headless Chromium.

const ORIGIN = "https://api.test";

async function getDocs(): Promise<Response> {
  return exports.default.fetch(new Request(`${ORIGIN}/docs`));
}

/** The directives of a Content-Security-Policy header: name → its source list. */
function directives(policy: string): Map<string, string[]> {
  const map = new Map<string, string[]>();
  for (const part of policy.split(";")) {
    const [name, ...sources] = part.trim().split(/\s+/);
    if (name) map.set(name.toLowerCase(), sources);
  }
  return map;
}

describe("GET /docs", () => {
  it("answers the HTML page with the security headers", async () => {
    const res = await getDocs();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    expect(res.headers.get("x-request-id")).toBeTruthy();
    await res.body?.cancel();
  });

  it("has a Content-Security-Policy that allows no other origin and no framing", async () => {
    const res = await getDocs();
    await res.body?.cancel();
    const policy = res.headers.get("content-security-policy");
    expect(policy).not.toBeNull();
    const csp = directives(policy ?? "");
    expect(csp.get("default-src")).toEqual(["'none'"]);
    // Only this origin's scripts: no CDN, no inline script, no eval.
    expect(csp.get("script-src")).toEqual(["'self'"]);
    expect(csp.get("connect-src")).toEqual(["'self'"]);
    expect(csp.get("frame-ancestors")).toEqual(["'none'"]);
    expect(csp.get("base-uri")).toEqual(["'none'"]);
    expect(csp.get("object-src") ?? csp.get("default-src")).toEqual(["'none'"]);
    // 'unsafe-inline' is tolerated for styles only (Scalar's own <style> elements and style attributes).
    for (const [name, sources] of csp) {
      for (const source of sources) {
        expect(source, `${name} ${source}`).toMatch(/^('self'|'none'|'unsafe-inline'|data:)$/);
        if (source === "'unsafe-inline'") expect(name).toMatch(/^style-src/);
        if (source === "data:") expect(name).toBe("img-src");
      }
    }
  });

  it("loads the pinned Scalar build from this origin with its integrity hash, and nothing from elsewhere", async () => {
    const html = await (await getDocs()).text();
    expect(SCALAR_SCRIPT_PATH).toMatch(/^\/docs\/assets\/scalar-api-reference-\d+\.\d+\.\d+\.js$/);
    expect(SCALAR_SCRIPT_INTEGRITY).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    const scripts = [...html.matchAll(/<script\b([^>]*)>/g)].map((match) => match[1] ?? "");
    const external = scripts.filter((attributes) => /\bsrc=/.test(attributes));
    expect(external).toEqual([` src="${SCALAR_SCRIPT_PATH}" integrity="${SCALAR_SCRIPT_INTEGRITY}"`]);
    // The other script element only carries Scalar's configuration (data attributes) and has no content to run.
    expect(html).toMatch(
      /<script id="api-reference" data-url="\/v2\/openapi.json" data-configuration="[^"]*"><\/script>/,
    );
    expect(html).not.toMatch(/https?:\/\//);
  });

  it("configures Scalar to stay on this origin (no default fonts, telemetry, AI agent, hosted client or proxy)", async () => {
    const html = await (await getDocs()).text();
    const attribute = /data-configuration="([^"]*)"/.exec(html)?.[1] ?? "";
    const configuration = JSON.parse(attribute.replaceAll("&quot;", '"').replaceAll("&amp;", "&")) as Record<
      string,
      unknown
    >;
    expect(configuration).toMatchObject({
      withDefaultFonts: false,
      telemetry: false,
      agent: { disabled: true },
      mcp: { disabled: true },
      showDeveloperTools: "never",
      hideClientButton: true,
      proxyUrl: "",
    });
  });
});
