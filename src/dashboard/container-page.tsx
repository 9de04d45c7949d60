import { type Context, Hono } from "hono";
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { findDefinitionBySlug } from "../custom-fields/definitions";
import { requireEntity, upsertValue } from "../custom-fields/values";
import { DOWNLOAD_URL_TTL_SECONDS } from "../documents/limits";
import { documentDownloadUrl } from "../documents/service";
import type { AppEnv, SignedInUser } from "../env";
import { ApiError } from "../lib/errors";
import { requireRole } from "../sessions/session";
import { type CustomFieldFormState, CustomFieldsSection, customFieldFormValue } from "./container-custom-fields";
import { type ContainerPageData, loadContainerLive, loadContainerPage } from "./container-data";
import { MAP_VENDOR, MapSection } from "./container-map";
import { ChargesSection, DocumentsSection, HoldsAndFeesSection, SummarySection } from "./container-sections";
import { TimelineSection } from "./container-timeline";
import { Layout } from "./layout";

/**
 * One container's page of the dashboard (issue 28 "A container"; docs/dashboard-container.md), under /app:
 * - `GET /app/containers/{id}`: summary (status, availability, LFD in the POD's zone, line, POL/POD, vessel, customer),
 *   charges so far, holds and fees, the route map, the milestones with the raw events behind them, the documents
 *   naming the box and its custom fields; 404 page for an unknown id or another account's;
 * - `GET /app/containers/{id}/live`: the summary and the timeline alone (HTML fragment), which
 *   public/app/assets/container-page.js fetches every 10 s while the page is visible;
 * - `POST /app/containers/{id}/custom-fields` (members and admins; `api_slug`, `value`): sets one custom field through
 *   `upsertValue`, the service of `POST /v2/containers/{id}/custom_fields`, then 303 back; a refused value re-renders
 *   the page (422) with the message next to the field and changes nothing;
 * - `GET /app/containers/{id}/documents/{document_id}`: 303 to a fresh signed download URL of the document
 *   (`documentDownloadUrl`, as `GET /v2/documents/{id}/download_url`).
 * Every read goes through the REST services (src/dashboard/container-data.ts); errors render as HTML with their status.
 */
export const containerPageRoutes = new Hono<AppEnv>();

containerPageRoutes.onError((err, c) => {
  if (!(err instanceof ApiError)) throw err;
  return renderError(c, err);
});

/** An error as a page: its title and detail, its status kept (a 404 for another account's container). */
function renderError(c: Context<AppEnv>, err: ApiError) {
  const title = err.status === 404 ? "Not found" : (err.errors[0]?.title ?? "Error");
  // "Couldn't find Container" (the services' 404) in the page's words.
  const detail = err.message.replace(/^Couldn't find (\w+)$/, (_, model: string) => {
    return `No ${model.toLowerCase()} of your account has this id.`;
  });
  const user = c.get("user") ?? null;
  return c.html(
    <Layout title={title} user={user} current="/app/containers">
      <p>{detail}</p>
      <p>
        <a href="/app/containers">Back to the containers</a>
      </p>
    </Layout>,
    err.status as ContentfulStatusCode,
  );
}

function Page(props: {
  data: ContainerPageData;
  user: SignedInUser;
  state?: CustomFieldFormState | null;
  saved?: string | null;
}) {
  const { data, user } = props;
  const c = data.container;
  const hasMap = "geojson" in data.map && data.map.geojson.features.length > 0;
  return (
    <Layout
      title={`Container ${c.number}`}
      user={user}
      current="/app/containers"
      scripts={hasMap ? ["container-page.js", "container-map.js"] : ["container-page.js"]}
      styles={hasMap ? ["container-page.css", "vendor/maplibre-gl.css"] : ["container-page.css"]}
    >
      <p class="breadcrumb">
        <a href="/app/containers">All containers</a>
      </p>
      <div
        class="container-page"
        id="container-page"
        data-live={`/app/containers/${encodeURIComponent(c.id)}/live`}
        data-map-vendor={MAP_VENDOR}
      >
        <section id="summary" aria-labelledby="summary-heading">
          <h2 id="summary-heading">Summary</h2>
          <SummarySection data={data} />
        </section>
        <ChargesSection data={data} />
        <HoldsAndFeesSection data={data} />
        <MapSection data={data} />
        <TimelineSection timeline={data.timeline} />
        <DocumentsSection data={data} />
        <CustomFieldsSection
          entries={data.customFields}
          containerId={c.id}
          user={user}
          state={props.state ?? null}
          saved={props.saved ?? null}
        />
      </div>
    </Layout>
  );
}

const pageDeps = (c: Context<AppEnv>) => ({
  db: c.var.db,
  primary: c.var.primaryDb,
  nowMs: c.var.clock.now(),
  archive: c.env.ARCHIVE_BUCKET,
});

containerPageRoutes.get("/containers/:id", async (c) => {
  const user = c.get("user");
  const data = await loadContainerPage(pageDeps(c), user.accountId, c.req.param("id"));
  const saved = c.req.query("saved") ?? null;
  return c.html(<Page data={data} user={user} saved={saved} />);
});

containerPageRoutes.get("/containers/:id/live", async (c) => {
  const user = c.get("user");
  const data = await loadContainerLive(c.var.db, user.accountId, c.req.param("id"), c.env.ARCHIVE_BUCKET);
  return c.html(
    <div>
      <SummarySection data={data} />
      <TimelineSection timeline={data.timeline} />
    </div>,
  );
});

containerPageRoutes.post("/containers/:id/custom-fields", requireRole("member"), async (c) => {
  const user = c.get("user");
  const id = c.req.param("id");
  const { db, clock } = c.var;
  await requireEntity(db, user.accountId, "container", id);
  const form = await c.req.formData();
  const slug = form.get("api_slug");
  const definition = typeof slug === "string" ? await findDefinitionBySlug(db, user.accountId, slug) : null;
  if (definition?.entityType !== "Container") {
    throw new ApiError(422, [{ detail: "The form names no custom field of this account's containers." }]);
  }
  try {
    await upsertValue({ db, primary: c.var.primaryDb, clock }, user.accountId, {
      entityType: "container",
      entityId: id,
      apiSlug: definition.apiSlug,
      value: customFieldFormValue(definition, form),
    });
  } catch (err) {
    if (!(err instanceof ApiError) || (err.status !== 422 && err.status !== 403)) throw err;
    const submitted = form.getAll("value").filter((v): v is string => typeof v === "string");
    const state = { apiSlug: definition.apiSlug, submitted, message: err.errors[0]?.detail ?? err.message };
    const data = await loadContainerPage(pageDeps(c), user.accountId, id);
    return c.html(<Page data={data} user={user} state={state} />, err.status as ContentfulStatusCode);
  }
  return c.redirect(
    `/app/containers/${encodeURIComponent(id)}?saved=${encodeURIComponent(definition.apiSlug)}#custom-fields`,
    303,
  );
});

containerPageRoutes.get("/containers/:id/documents/:documentId", async (c) => {
  const user = c.get("user");
  const { db, clock } = c.var;
  await requireEntity(db, user.accountId, "container", c.req.param("id"));
  const url = await documentDownloadUrl(
    { db, clock, bucket: c.env.DOCUMENTS_BUCKET, signingKey: c.env.DOCUMENT_SIGNING_KEY },
    user.accountId,
    c.req.param("documentId"),
    new URL(c.req.url).origin,
    DOWNLOAD_URL_TTL_SECONDS,
  );
  return c.redirect(url, 303);
});
