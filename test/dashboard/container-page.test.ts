import { env } from "cloudflare:test";
import { getIssues } from "@placemarkio/check-geojson";
import { beforeAll, describe, expect, it } from "vitest";
import { DASHBOARD_CONTENT_SECURITY_POLICY } from "../../src/dashboard/headers";
import { toIsoSeconds } from "../../src/lib/clock";
import { localTimeIn } from "../../src/lib/time-zones";
import { vesselIdForImo } from "../../src/vessels/identity";
import { api, apiJson } from "../helpers/api";
import { createWebUser, type TestWebUser, WEB_ORIGIN, web } from "../helpers/web-session";
import { seedTransshipmentJourney, type TrackedAccount, trackedAccounts } from "../mcp/fixtures";

// The container page of the dashboard (src/dashboard/container-page.tsx; issue 28 "A container"): summary, holds and
// fees, timeline in local times with zones and the raw events behind each milestone, documents, custom fields (edit
// through the REST service, errors next to the field, roles, CSRF), the map's data island, the live fragment; 404 for
// another account's container; free text from carriers, documents and custom fields rendered inert.

const XSS_SCRIPT = "<script>alert(1)</script>";
const XSS_ATTR = '"><img src=x onerror=alert(1)>';

let routed: TrackedAccount;
let plain: TrackedAccount;
let viewer: TestWebUser;
let member: TestWebUser;
let stranger: TestWebUser;
let plainViewer: TestWebUser;
let boxId: string;
let documentId: string;

/** The session's CSRF token (what the page's hidden `_csrf` input carries). */
async function csrfOf(user: TestWebUser): Promise<string> {
  const row = await env.DB.prepare("SELECT csrf_token FROM web_sessions WHERE id = ?1")
    .bind(user.sessionId)
    .first<{ csrf_token: string }>();
  if (!row) throw new Error("no session");
  return row.csrf_token;
}

/** The `_csrf` value of the first form of a rendered page. */
function csrfInPage(html: string): string | null {
  return /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? null;
}

/** The HTML of the element opened by `id="<id>"` up to its section's end. */
function sectionOf(html: string, id: string): string {
  const start = html.indexOf(`id="${id}"`);
  expect(start, `section ${id}`).toBeGreaterThan(-1);
  return html.slice(start, html.indexOf("</section>", start));
}

async function page(path: string, user: TestWebUser | null) {
  const res = await web(path, { user });
  return { res, html: await res.text() };
}

async function postField(user: TestWebUser, apiSlug: string, value: string | string[], csrf?: string | null) {
  const form = new URLSearchParams({ api_slug: apiSlug });
  for (const v of Array.isArray(value) ? value : [value]) form.append("value", v);
  if (csrf !== null) form.set("_csrf", csrf ?? (await csrfOf(user)));
  return web(`/app/containers/${boxId}/custom-fields`, {
    user,
    body: form.toString(),
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
  });
}

async function storedValue(apiSlug: string): Promise<unknown> {
  const { res, json } = await apiJson<{ data: { attributes: { value: unknown } } }>(
    `/containers/${boxId}/custom_fields/${apiSlug}`,
    { key: routed.account.key },
  );
  return res.status === 404 ? undefined : json.data.attributes.value;
}

async function define(apiSlug: string, dataType: string, displayName: string) {
  const { res } = await apiJson("/custom_field_definitions", {
    key: routed.account.key,
    body: {
      data: {
        type: "custom_field_definition",
        attributes: { entity_type: "Container", api_slug: apiSlug, display_name: displayName, data_type: dataType },
      },
    },
  });
  expect(res.status).toBe(201);
}

beforeAll(async () => {
  [routed, plain] = (await trackedAccounts([["routing"], []])) as [TrackedAccount, TrackedAccount];
  boxId = routed.containers[0]?.id ?? "";
  await seedTransshipmentJourney(routed, boxId);
  viewer = await createWebUser(routed.account.accountId, "viewer");
  member = await createWebUser(routed.account.accountId, "member");
  stranger = await createWebUser(plain.account.accountId, "admin");
  plainViewer = await createWebUser(plain.account.accountId, "viewer");
  const now = routed.factsAt ?? Date.now();
  // Carrier feed rows: the actual arrival at Los Angeles (behind the vessel_arrived milestone, with hostile wording),
  // and a VGM receipt no milestone stands on.
  const raw = (
    id: string,
    index: number,
    event: string,
    original: string,
    estimated: number,
    at: number,
    locode: string,
  ) =>
    env.DB.prepare(
      `INSERT INTO raw_events (id, account_id, container_id, "index", event, original_event, timestamp, estimated,
         location, location_locode, vessel_name, voyage_number, timezone, data_source, created_at)
       VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 'MSC BETA', '002E', NULL, 'shipping_line', ?11)`,
    ).bind(
      id,
      routed.account.accountId,
      boxId,
      index,
      event,
      original,
      toIsoSeconds(at),
      estimated,
      `Port ${XSS_ATTR}`,
      locode,
      toIsoSeconds(now),
    );
  await env.DB.batch([
    raw(`raw-arr-${boxId}`, 1, "vessel_arrived", `Arrived ${XSS_SCRIPT}`, 0, now - 2 * 86_400_000, "USLAX"),
    raw(`raw-vgm-${boxId}`, 0, "vgm_received", "VGM received", 0, now - 13 * 86_400_000, "CNYTN"),
  ]);
  await api(`/containers/${boxId}`, {
    key: routed.account.key,
    method: "PATCH",
    body: { data: { type: "container", attributes: { ref_numbers: [`PO-${XSS_SCRIPT}`] } } },
  });
  // A document linked to the box, with a hostile name.
  documentId = crypto.randomUUID();
  const blobId = crypto.randomUUID();
  const at = toIsoSeconds(now - 3_600_000);
  await env.DB.batch([
    env.DB.prepare(
      "INSERT INTO document_blobs (id, account_id, storage_key, filename, content_type, byte_size, checksum, created_at, uploaded_at) VALUES (?1, ?2, ?3, 'bl.pdf', 'application/pdf', 10, ?4, ?5, ?5)",
    ).bind(blobId, routed.account.accountId, `${routed.account.accountId}/${blobId}`, `sum-${blobId}`, at),
    env.DB.prepare(
      `INSERT INTO documents (id, account_id, blob_id, name, source, document_type, document_type_manual, file_name,
         file_content_type, file_size_bytes, checksum, storage_key, created_at, updated_at)
       VALUES (?1, ?2, ?3, ?4, 'api', 'bill_of_lading', NULL, 'bl.pdf', 'application/pdf', 10, ?5, ?6, ?7, ?7)`,
    ).bind(
      documentId,
      routed.account.accountId,
      blobId,
      `BL ${XSS_ATTR}`,
      `sum-${blobId}`,
      `${routed.account.accountId}/${blobId}`,
      at,
    ),
    env.DB.prepare(
      "INSERT INTO document_links (id, account_id, document_id, target_type, target_id, matched_value, created_at) VALUES (?1, ?2, ?3, 'container', ?4, ?5, ?6)",
    ).bind(crypto.randomUUID(), routed.account.accountId, documentId, boxId, routed.containers[0]?.number ?? "", at),
  ]);
  // The shipment's customer, with a hostile company name.
  const partyId = crypto.randomUUID();
  await env.DB.batch([
    env.DB.prepare("INSERT INTO parties (id, account_id, company_name, created_at) VALUES (?1, ?2, ?3, ?4)").bind(
      partyId,
      routed.account.accountId,
      `Acme ${XSS_ATTR}`,
      at,
    ),
    env.DB.prepare("UPDATE shipments SET customer_id = ?1 WHERE id = ?2").bind(partyId, routed.shipmentId),
  ]);
  await define("pallets", "number", "Pallets");
  await define("po_note", "short_text", "PO note");
});

describe("GET /app/containers/{id}", () => {
  it("shows the summary, holds and fees from the container view, under the dashboard's CSP", async () => {
    const { res, html } = await page(`/app/containers/${boxId}`, viewer);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(DASHBOARD_CONTENT_SECURITY_POLICY);
    expect(html).toContain(`<h1>Container ${routed.containers[0]?.number}</h1>`);
    const summary = sectionOf(html, "live-summary");
    expect(summary).toContain('aria-live="polite"');
    expect(summary).toMatch(/<dt>Status<\/dt><dd>Available<\/dd>/);
    expect(summary).toMatch(/<dt>Available for pickup<\/dt><dd>Yes<\/dd>/);
    // The LFD (30 h after the facts were written) as the local date at Los Angeles, with the zone named.
    const lfd = localTimeIn(toIsoSeconds((routed.factsAt ?? 0) + 30 * 3_600_000), "America/Los_Angeles");
    expect(summary).toContain(`<dd>${lfd?.date} (America/Los_Angeles, ${lfd?.abbreviation})</dd>`);
    expect(summary).toContain("Los Angeles (USLAX)");
    expect(summary).toContain("TEST-TR-SUCCEEDED");
    expect(summary).toContain("<dt>Customer</dt><dd>Acme &quot;&gt;&lt;img src=x onerror=alert(1)&gt;</dd>");
    const holds = sectionOf(html, "holds-fees");
    expect(holds).toMatch(/<td>customs<\/td><td>On hold<\/td><td>CBP HOLD<\/td>/);
    expect(holds).toMatch(/<td>TMF<\/td><td>Pending<\/td><td>—<\/td>/);
    expect(holds).toContain("USD 150.00");
    expect(holds).toContain("USD 75.50");
    expect(sectionOf(html, "charges")).toContain("No tariff of the account applies.");
  });

  it("lists the milestones in time order, each in the local time and zone of its place, actual or estimated in words", async () => {
    const { html } = await page(`/app/containers/${boxId}`, viewer);
    const timeline = sectionOf(html, "timeline");
    const items = [...timeline.matchAll(/<li class="milestone milestone-(\w+)"[^>]*>([\s\S]*?)<\/li>/g)];
    const { results } = await env.DB.prepare(
      "SELECT event, timestamp, timezone FROM transport_events WHERE container_id = ?1 ORDER BY timestamp, id",
    )
      .bind(boxId)
      .all<{ event: string; timestamp: string; timezone: string }>();
    expect(items).toHaveLength(results.length);
    expect(items.map((m) => m[1])).toEqual(
      results.map((r) => (r.event.includes(".estimated.") ? "estimated" : "actual")),
    );
    results.forEach((row, i) => {
      const local = localTimeIn(row.timestamp, row.timezone);
      const item = items[i]?.[2] ?? "";
      expect(item).toContain(
        `<time datetime="${row.timestamp}">${local?.date} ${local?.time} ${local?.abbreviation} (${row.timezone})</time>`,
      );
      expect(item).toContain(row.event.includes(".estimated.") ? ">Estimated<" : ">Actual<");
    });
    expect(items[0]?.[2]).toContain("(Asia/Shanghai)");
    expect(items[0]?.[2]).toContain("GMT+8");
    expect(items.at(-1)?.[2]).toContain("(America/Los_Angeles)");
  });

  it("puts each raw event under the milestone it stands behind, and the rest apart, with carrier text inert", async () => {
    const { html } = await page(`/app/containers/${boxId}`, viewer);
    const timeline = sectionOf(html, "timeline");
    const arrival = [...timeline.matchAll(/<li class="milestone[^"]*"[^>]*>([\s\S]*?)<\/li>/g)]
      .map((m) => m[1] ?? "")
      .find((m) => m.includes("<strong>Vessel arrived</strong>") && m.includes(">Actual<"));
    expect(arrival).toContain("Carrier events behind this milestone (1)");
    expect(arrival).toContain("Arrived &lt;script&gt;alert(1)&lt;/script&gt;");
    expect(timeline).toContain("Carrier events behind no milestone (1)");
    expect(timeline).toContain("VGM received");
    expect(html).not.toContain(XSS_SCRIPT);
    expect(html).not.toContain("<img src=x");
  });

  it("lists the documents naming the box with a download link that redirects to a signed URL", async () => {
    const { html } = await page(`/app/containers/${boxId}`, viewer);
    const docs = sectionOf(html, "documents");
    expect(docs).toContain("BL &quot;&gt;&lt;img src=x onerror=alert(1)&gt;");
    expect(docs).toContain("bill_of_lading");
    const href = `/app/containers/${boxId}/documents/${documentId}`;
    expect(docs).toContain(`href="${href}"`);
    const res = await web(href, { user: viewer });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toMatch(
      new RegExp(`^${WEB_ORIGIN}/files/documents/[A-Za-z0-9_-]+--[0-9a-f]{64}$`),
    );
    // Another account's user gets 404 for the document, through their own container or this one.
    const theirs = plain.containers[0]?.id;
    expect((await web(`/app/containers/${theirs}/documents/${documentId}`, { user: stranger })).status).toBe(404);
    const notTheirs = await web(href, { user: stranger });
    expect(notTheirs.status).toBe(404);
    expect(await notTheirs.text()).toContain("No container of your account has this id.");
    const mine = await web(`/app/containers/${theirs}/documents/${documentId}`, { user: stranger });
    expect(await mine.text()).toContain("No document of your account has this id.");
  });

  it("renders the reference numbers inert", async () => {
    const { html } = await page(`/app/containers/${boxId}`, viewer);
    expect(sectionOf(html, "live-summary")).toContain("PO-&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("embeds the map as a JSON data island: valid GeoJSON, the API's own map, with a text alternative", async () => {
    const { html } = await page(`/app/containers/${boxId}`, viewer);
    const match = /<script type="application\/json" id="container-map-data">([\s\S]*?)<\/script>/.exec(html);
    expect(match).not.toBeNull();
    const island = match?.[1] ?? "";
    expect(island).not.toMatch(/</);
    const geojson = JSON.parse(island);
    expect(getIssues(JSON.stringify(geojson))).toEqual([]);
    const fromApi = await (await api(`/containers/${boxId}/map_geojson`, { key: routed.account.key })).json();
    expect(geojson).toEqual(fromApi);
    expect(geojson.features.length).toBeGreaterThan(0);
    expect(sectionOf(html, "map")).toMatch(
      /<p id="map-description">Route: Yantian[^<]*\(POL\) → Singapore[^<]*\(TS1\) → Los Angeles[^<]*\(POD\)\./,
    );
    expect(html).toContain('<script type="module" src="/app/assets/container-map.js">');
  });

  it("keeps a hostile vessel name inside the data island: `</script>` cannot end the element", async () => {
    // The second box sails from Yantian on a vessel whose name (shared reference data) carries markup; it is under
    // way mid-Pacific, so the map has its current_vessel with that name.
    const box = routed.containers[1]?.id ?? "";
    const imo = "9000777";
    const name = `EVIL </script><script>alert(1)</script> ${XSS_ATTR}`;
    const now = routed.factsAt ?? Date.now();
    await env.DB.batch([
      env.DB.prepare("UPDATE shipments SET pol_atd_at = NULL, pod_ata_at = NULL WHERE id = ?1").bind(routed.shipmentId),
      env.DB.prepare(
        "UPDATE containers SET pod_arrived_at = NULL, pod_discharged_at = NULL, pol_vessel_departed_at = NULL WHERE id = ?1",
      ).bind(box),
      ...[
        ["container.transport.vessel_departed", -3 * 86_400_000, "CNYTN"],
        ["container.transport.estimated.vessel_arrived", 6 * 86_400_000, "USLAX"],
      ].map(([event, offset, locode], i) =>
        env.DB.prepare(
          `INSERT INTO transport_events (id, account_id, container_id, shipment_id, event, voyage_number, timestamp,
             location_locode, vessel_name, vessel_imo, data_source, created_at)
           VALUES (?1, ?2, ?3, ?4, ?5, '777E', ?6, ?7, ?8, ?9, 'shipping_line', ?10)`,
        ).bind(
          `evil-${i}-${box}`,
          routed.account.accountId,
          box,
          routed.shipmentId,
          event,
          toIsoSeconds(now + (offset as number)),
          locode,
          name,
          imo,
          toIsoSeconds(now),
        ),
      ),
      env.DB.prepare(
        `INSERT INTO vessels (id, imo, name, latitude, longitude, position_timestamp, updated_at)
         VALUES (?1, ?2, ?3, 30, 170, ?4, ?4)`,
      ).bind(vesselIdForImo(imo), imo, name, toIsoSeconds(now - 3_600_000)),
    ]);
    const { html } = await page(`/app/containers/${box}`, viewer);
    const scripts = html.match(/<script type="application\/json" id="container-map-data">[\s\S]*?<\/script>/g) ?? [];
    expect(scripts).toHaveLength(1);
    const island = (scripts[0] ?? "").replace(/^<script[^>]*>/, "").replace(/<\/script>$/, "");
    expect(island).not.toMatch(/</);
    const geojson = JSON.parse(island);
    expect(getIssues(JSON.stringify(geojson))).toEqual([]);
    const vessel = geojson.features.find(
      (f: { properties: { feature_type: string } }) => f.properties.feature_type === "current_vessel",
    );
    expect(vessel?.properties.vessel_name).toBe(name);
    expect(html).not.toContain("<script>alert(1)</script>");
    expect(sectionOf(html, "map")).toContain("EVIL &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
  });

  it("shows the charges so far as GET /v2/containers/{id}/charges computes them", async () => {
    // The second box: discharged two days ago, available, no holds (the first one's customs hold stops the clock).
    const box = plain.containers[1]?.id ?? "";
    const { res: created } = await apiJson("/tariffs", {
      key: plain.account.key,
      body: {
        data: {
          type: "tariff",
          attributes: {
            kind: "demurrage",
            name: "LA demurrage",
            port_code: "USLAX",
            free_days: 0,
            clock_starts_at: "discharged",
            tiers: [{ from_day: 1, to_day: null, rate_per_day: "100.00", currency_code: "USD" }],
          },
        },
      },
    });
    expect(created.status).toBe(201);
    const { json } = await apiJson<{ data: { attributes: { demurrage: Record<string, unknown> } } }>(
      `/containers/${box}/charges`,
      { key: plain.account.key },
    );
    const d = json.data.attributes.demurrage;
    const { html } = await page(`/app/containers/${box}`, plainViewer);
    const days = Number(d.chargeable_days);
    expect(d.last_free_day).toEqual(expect.any(String));
    expect(sectionOf(html, "charges")).toContain(
      `<dt>Demurrage</dt><dd>USD ${d.amount_to_date} to date, ${days} chargeable ${days === 1 ? "day" : "days"}, last free day ${d.last_free_day}`,
    );
  });

  it("says why there is no map without the routing feature, and loads no map script", async () => {
    const { res, html } = await page(`/app/containers/${plain.containers[0]?.id}`, plainViewer);
    expect(res.status).toBe(200);
    expect(sectionOf(html, "map")).toContain("The map needs the routing feature");
    expect(html).not.toContain("container-map.js");
  });

  it("answers 404 as a page for another account's container or an unknown id, and sends no session to sign-in", async () => {
    for (const path of [`/app/containers/${boxId}`, `/app/containers/${boxId}/live`, "/app/containers/nope"]) {
      const { res, html } = await page(path, stranger);
      expect(res.status, path).toBe(404);
      expect(html).toContain("<h1>Not found</h1>");
      expect(html).not.toContain(routed.containers[0]?.number ?? "-");
    }
    const { res } = await page(`/app/containers/${boxId}`, null);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/sign-in?next=${encodeURIComponent(`/app/containers/${boxId}`)}`);
    expect((await web(`/app/containers/${boxId}/custom-fields`, { form: { api_slug: "pallets" } })).status).toBe(401);
  });
});

describe("GET /app/containers/{id}/live", () => {
  it("answers the summary and the timeline alone, with the latest status", async () => {
    await env.DB.prepare("UPDATE containers SET current_status = 'picked_up' WHERE id = ?1").bind(boxId).run();
    try {
      const { res, html } = await page(`/app/containers/${boxId}/live`, viewer);
      expect(res.status).toBe(200);
      expect(html).not.toContain("<html");
      expect(html).toMatch(/<dt>Status<\/dt><dd>Picked up<\/dd>/);
      expect(html).toContain('id="timeline"');
      expect(html).not.toContain('id="custom-fields"');
    } finally {
      await env.DB.prepare("UPDATE containers SET current_status = 'available' WHERE id = ?1").bind(boxId).run();
    }
  });
});

describe("POST /app/containers/{id}/custom-fields", () => {
  it("sets a value through the REST service and comes back to the page saying so", async () => {
    const res = await postField(member, "pallets", "12");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe(`/app/containers/${boxId}?saved=pallets#custom-fields`);
    expect(await storedValue("pallets")).toBe(12);
    const { html } = await page(`/app/containers/${boxId}?saved=pallets`, member);
    const section = sectionOf(html, "custom-fields");
    expect(section).toContain('<p role="status" class="saved">Saved Pallets.</p>');
    expect(section).toMatch(/id="cf-pallets"[^>]*value="12"/);
  });

  it("shows a value that does not fit next to its field, keeps what was typed, and changes nothing", async () => {
    const res = await postField(member, "pallets", "twelve");
    expect(res.status).toBe(422);
    const html = await res.text();
    const section = sectionOf(html, "custom-fields");
    expect(section).toMatch(
      /<input[^>]*id="cf-pallets"[^>]*aria-describedby="cf-pallets-error"[^>]*aria-invalid="true"/,
    );
    expect(section).toMatch(/id="cf-pallets"[^>]*value="twelve"/);
    expect(section).toContain('<p id="cf-pallets-error" class="field-error">Error: Pallets must be a number</p>');
    expect(await storedValue("pallets")).toBe(12);
  });

  it("refuses a viewer (403) and a form without the CSRF token (403), changing nothing", async () => {
    const asViewer = await postField(viewer, "pallets", "7");
    expect(asViewer.status).toBe(403);
    expect(await asViewer.text()).toContain("This needs the member role.");
    expect((await postField(member, "pallets", "7", null)).status).toBe(403);
    expect((await postField(member, "pallets", "7", "forged-token")).status).toBe(403);
    expect(await storedValue("pallets")).toBe(12);
  });

  it("answers 404 for another account's container and 422 for a slug the account lacks, changing nothing", async () => {
    const form = { api_slug: "pallets", value: "9", _csrf: await csrfOf(stranger) };
    expect((await web(`/app/containers/${boxId}/custom-fields`, { user: stranger, form })).status).toBe(404);
    const unknown = await postField(member, "no_such_field", "9");
    expect(unknown.status).toBe(422);
    expect(await unknown.text()).toContain("The form names no custom field of this account&#39;s containers.");
    expect(await storedValue("pallets")).toBe(12);
  });

  it("renders a hostile custom field value inert, in the member's input and the viewer's list", async () => {
    const value = `${XSS_SCRIPT}${XSS_ATTR}`;
    expect((await postField(member, "po_note", value)).status).toBe(303);
    expect(await storedValue("po_note")).toBe(value);
    const escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&gt;&lt;img src=x onerror=alert(1)&gt;";
    const asMember = await page(`/app/containers/${boxId}`, member);
    expect(sectionOf(asMember.html, "custom-fields")).toContain(`value="${escaped}"`);
    const asViewer = await page(`/app/containers/${boxId}`, viewer);
    const section = sectionOf(asViewer.html, "custom-fields");
    expect(section).toContain(`<dt>PO note</dt><dd>${escaped}</dd>`);
    expect(section).not.toContain("<form");
    expect(asViewer.html).not.toContain(XSS_SCRIPT);
    // The CSRF token the forms carry is the session's own.
    expect(csrfInPage(asMember.html)).toBe(await csrfOf(member));
  });
});
