import type { Context } from "hono";
import { Hono } from "hono";
import { listContainers } from "../containers/service";
import type { AppEnv } from "../env";
import { toIsoSeconds } from "../lib/clock";
import { ApiError } from "../lib/errors";
import { parseTimeBound } from "../lib/jsonapi/filters";
import { containersCsv } from "./containers-csv";
import { ContainersTable, FilterForm, RowsBody } from "./containers-table";
import {
  type ContainersViewQuery,
  loadViewPage,
  loadWholeView,
  MAX_EXPORT_ROWS,
  parseViewQuery,
  tablePage,
  ViewFieldError,
} from "./containers-view";
import { Layout } from "./layout";

/** The request header asking for the table's `<tbody>` only (the live-update island, public/app/assets/containers.js). */
export const FRAGMENT_HEADER = "X-Dashboard-Fragment";

const PATH = "/app/containers";

function signedIn(c: Context<AppEnv>) {
  const user = c.get("user");
  return { user, accountId: user.accountId };
}

async function html(c: Context<AppEnv>, page: Promise<string> | string, status: 200 | 400 | 422 = 200) {
  return c.html(`<!doctype html>${await page}`, status);
}

/** The page, for a view whose rows are read (or a form error with none). */
function Page({
  c,
  query,
  rows,
  total,
  error,
}: {
  c: Context<AppEnv>;
  query: Pick<ContainersViewQuery, "values"> & Partial<ContainersViewQuery>;
  rows: Awaited<ReturnType<typeof loadViewPage>>["rows"];
  total: number;
  error?: { field: ViewFieldError["field"]; message: string };
}) {
  const filtered = Object.keys(query.values).some((k) => k !== "sort");
  const empty = total === 0 && !error;
  // The live island's cursor on an empty view: a second before the page was read, so a box tracked while the page is
  // open counts as a change (the island then reloads the page: there is no table to swap rows into).
  const emptySince = toIsoSeconds(c.var.clock.now() - 1000);
  return (
    <Layout
      title="Containers"
      user={c.get("user")}
      current={PATH}
      scripts={["containers.js"]}
      styles={["containers.css"]}
    >
      <FilterForm query={query} error={error} />
      <p id="live-status" class="live-status" role="status" aria-live="polite" />
      {error ? (
        <p class="form-error" id="form-error">
          Nothing was listed: {error.message}
        </p>
      ) : empty && !filtered ? (
        <p class="empty-state" id="containers-empty" data-latest={emptySince}>
          No containers yet — <a href="/app/track">Track one</a>.
        </p>
      ) : empty ? (
        <p class="empty-state" id="containers-empty" data-latest={emptySince}>
          No containers match these filters. <a href={PATH}>Clear filters</a>
        </p>
      ) : query.filters ? (
        <ContainersTable query={query as ContainersViewQuery} rows={rows} total={total} />
      ) : null}
    </Layout>
  );
}

/** A form error re-renders the form with the message next to its field, status 400, and lists nothing. */
function formError(c: Context<AppEnv>, e: ViewFieldError) {
  const values = Object.fromEntries(new URL(c.req.url).searchParams);
  return html(
    c,
    (<Page c={c} query={{ values }} rows={[]} total={0} error={{ field: e.field, message: e.message }} />).toString(),
    400,
  );
}

/**
 * The Containers page and its companions (issue 28 §Containers; docs/dashboard.md §Containers), mounted under /app:
 * - `GET /containers`: the filter form, the table (one page of {@link TABLE_PAGE_SIZE}), sorting by column links and
 *   paging; with `X-Dashboard-Fragment: rows`, only the table's `<tbody>` (the live-update island swaps it).
 * - `GET /containers.csv`: the same view, every page of it, as CSV (at most {@link MAX_EXPORT_ROWS} rows; a larger
 *   view answers 422 with a message).
 * - `GET /containers.json?since=<updated_at>`: how many containers of the view changed since the cursor, for the
 *   island's poll.
 * Each reads through `listContainers`, the REST list's service (`GET /v2/containers`), with its filters and sort.
 */
export const containersPageRoutes = new Hono<AppEnv>()
  .get("/containers", async (c) => {
    const { accountId } = signedIn(c);
    const nowMs = c.var.clock.now();
    let query: ContainersViewQuery;
    try {
      query = parseViewQuery(new URL(c.req.url).searchParams, nowMs);
    } catch (e) {
      if (e instanceof ViewFieldError) return formError(c, e);
      throw e;
    }
    const { rows, total } = await loadViewPage(c.var.db, accountId, query, tablePage(query.page), nowMs);
    c.header("Vary", FRAGMENT_HEADER);
    if (c.req.header(FRAGMENT_HEADER) === "rows") {
      c.header("X-Total-Count", String(total));
      return c.html(await (<RowsBody rows={rows} />).toString());
    }
    return html(c, (<Page c={c} query={query} rows={rows} total={total} />).toString());
  })
  .get("/containers.csv", async (c) => {
    const { accountId } = signedIn(c);
    const nowMs = c.var.clock.now();
    let query: ContainersViewQuery;
    try {
      query = parseViewQuery(new URL(c.req.url).searchParams, nowMs);
    } catch (e) {
      if (e instanceof ViewFieldError) return formError(c, e);
      throw e;
    }
    const { rows, total } = await loadWholeView(c.var.db, accountId, query, nowMs);
    if (rows === null) {
      return html(
        c,
        (
          <Layout title="Export too large" user={c.get("user")} current={PATH} styles={["containers.css"]}>
            <p class="form-error">
              This view has {total.toLocaleString("en-US")} containers; an export holds at most{" "}
              {MAX_EXPORT_ROWS.toLocaleString("en-US")}. Narrow the filters and export again.
            </p>
            <p>
              <a href={`${PATH}${new URL(c.req.url).search}`}>Back to the containers</a>
            </p>
          </Layout>
        ).toString(),
        422,
      );
    }
    const day = toIsoSeconds(nowMs).slice(0, 10);
    return c.body(containersCsv(rows), 200, {
      "Content-Type": "text/csv; charset=utf-8",
      "Content-Disposition": `attachment; filename="containers-${day}.csv"`,
    });
  })
  .get("/containers.json", async (c) => {
    const { accountId } = signedIn(c);
    const nowMs = c.var.clock.now();
    const params = new URL(c.req.url).searchParams;
    let query: ContainersViewQuery;
    try {
      query = parseViewQuery(params, nowMs);
    } catch (e) {
      if (e instanceof ViewFieldError) throw ApiError.badParameter(e.field, e.message);
      throw e;
    }
    const since = parseTimeBound(params.get("since"), "since");
    if (since === undefined) throw ApiError.badParameter("since", "since (an updated_at) is required.");
    const changed = await changedSince(c, accountId, query, since);
    return c.json(changed);
  });

/**
 * How many containers of the view were updated after `since` (at most one API page of 100 is counted), and the
 * newest `updated_at` among them: `listContainers` with the view's filters, `filter[updated_at][start]` and
 * `sort=-updated_at`.
 */
async function changedSince(c: Context<AppEnv>, accountId: string, query: ContainersViewQuery, since: string) {
  const { rows } = await listContainers(
    c.var.db,
    accountId,
    { ...query.filters, "filter[updated_at][start]": since },
    tablePage(1, 100),
    new Map(),
    { key: "updated_at", descending: true },
  );
  const newer = rows.filter((r) => r.updatedAt > since);
  return { changed: newer.length, latest: newer[0]?.updatedAt ?? since };
}
