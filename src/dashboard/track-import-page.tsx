import type { Context } from "hono";
import { Hono } from "hono";

import type { AppEnv, SignedInUser } from "../env";
import { ApiError } from "../lib/errors";
import { readFile, requestImportDeps } from "../tracking-request-imports/routes";
import { resultsCsv, serializeImport } from "../tracking-request-imports/serializer";
import {
  allImportRows,
  createImport,
  getImport,
  type ImportRow,
  type ImportRowRecord,
  startImport,
} from "../tracking-request-imports/service";
import { CsrfField, Layout } from "./layout";

/** How each outcome reads on the page (words, never colour alone). */
const OUTCOME_LABELS: Record<string, string> = {
  valid: "Valid",
  creating: "Creating",
  created: "Tracked",
  invalid: "Invalid",
  failed: "Failed",
};

/** The summary line of an import, e.g. "12 rows: 10 valid, 2 invalid" or "10 created, 2 invalid". */
export function importSummary(row: ImportRow): string {
  if (row.status === "validated") {
    return `${row.totalRows} rows: ${row.validRows} valid, ${row.invalidRows} invalid`;
  }
  const parts = [`${row.createdRows} created`, `${row.invalidRows} invalid`];
  if (row.failedRows > 0) parts.push(`${row.failedRows} failed`);
  if (row.status === "running") parts.push(`${row.validRows - row.createdRows - row.failedRows} to go`);
  return parts.join(", ");
}

function ImportPage({ user, row, rows }: { user: SignedInUser; row: ImportRow; rows: ImportRowRecord[] }) {
  const base = `/app/track/imports/${row.id}`;
  const done = row.createdRows + row.failedRows;
  return (
    <Layout
      title={`Import ${row.fileName ? `of ${row.fileName}` : ""}`.trim()}
      user={user}
      current="/app/track"
      scripts={["track.js"]}
      styles={["track.css"]}
    >
      <p class="import-summary" id="import-summary">
        <strong>{importSummary(row)}</strong>
      </p>
      {row.status === "validated" ? (
        row.validRows > 0 ? (
          <form method="post" action={`${base}/start`}>
            <CsrfField user={user} />
            <p>
              Nothing has been created yet. The invalid rows are left out; fix them in the file and upload it again.
            </p>
            <button type="submit">{`Create ${row.validRows} tracking request${row.validRows === 1 ? "" : "s"}`}</button>
          </form>
        ) : (
          <p>No row can be created. Fix the file and upload it again.</p>
        )
      ) : null}
      {row.status === "running" ? (
        <div class="import-progress" data-status-url={`${base}/status`}>
          <label for="import-progress">Progress</label>
          <progress id="import-progress" max={row.validRows} value={done}>
            {`${done} of ${row.validRows}`}
          </progress>
          <p id="import-status" role="status" aria-live="polite">
            {`Creating tracking requests: ${done} of ${row.validRows} done, within your account's rate limit.`}
          </p>
        </div>
      ) : null}
      {row.status === "completed" ? (
        <p>
          {`${row.createdRows} tracked: the boxes appear under Containers once their lines answer. `}
          <a href="/app/containers">Go to Containers</a>
        </p>
      ) : null}
      <p>
        <a href={`${base}/results.csv`} download>
          Download results (CSV)
        </a>{" "}
        · <a href="/app/track">Upload another file</a>
      </p>
      <table class="import-rows">
        <caption>{`Rows of the file (${row.totalRows})`}</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Number</th>
            <th scope="col">Type</th>
            <th scope="col">Line</th>
            <th scope="col">Outcome</th>
            <th scope="col">Details</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr class={`outcome-${r.outcome}`}>
              <th scope="row">{String(r.rowNumber)}</th>
              <td>{r.requestNumber}</td>
              <td>{r.requestType ?? ""}</td>
              <td>{r.scac ? `${r.scac}${r.scacSource === "inferred" ? " (detected)" : ""}` : ""}</td>
              <td>{OUTCOME_LABELS[r.outcome] ?? r.outcome}</td>
              <td>
                {r.reasons.length > 0 ? (
                  <ul class="reasons">
                    {r.reasons.map((x) => (
                      <li>{x.detail}</li>
                    ))}
                  </ul>
                ) : r.trackingRequestId ? (
                  "Tracking request created."
                ) : (
                  ""
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </Layout>
  );
}

/** A 4xx page for an import request (the status kept), with a way back to the upload form. */
function failure(c: Context<AppEnv>, err: ApiError) {
  const status = err.status as 403 | 404 | 413 | 415 | 422;
  return c.html(
    <Layout
      title={status === 404 ? "Not found" : "The file cannot be imported"}
      user={c.get("user")}
      current="/app/track"
    >
      <div role="alert">
        <ul>
          {err.errors.map((e) => (
            <li>{e.detail ?? e.title}</li>
          ))}
        </ul>
      </div>
      <p>
        <a href="/app/track">Back to Track</a>
      </p>
    </Layout>,
    status,
  );
}

async function loadImport(c: Context<AppEnv>): Promise<ImportRow> {
  return getImport(c.var.db, c.var.user.accountId, c.req.param("id") ?? "");
}

/**
 * The import pages under /app/track/imports (issue 28 §Track): upload → a preview of every row's validation → start
 * → a progress bar (the island polls `…/status`) → per-row results and the results CSV. Each calls the service of
 * POST /v2/tracking_request_imports and its siblings (src/tracking-request-imports/), never the API over HTTP.
 */
export const importPageRoutes = new Hono<AppEnv>();

importPageRoutes.onError((err, c) => {
  if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 401) return failure(c, err);
  throw err;
});

importPageRoutes.post("/", async (c) => {
  const length = Number(c.req.header("content-length") ?? "0");
  if (length > 1024 * 1024 + 64 * 1024) {
    throw new ApiError(413, [{ detail: "An import file must be at most 1048576 bytes." }]);
  }
  const form = await c.req.parseBody();
  const file = form.file;
  if (!(file instanceof File) || file.size === 0) {
    throw new ApiError(422, [{ detail: "Choose a CSV or XLSX file to upload." }]);
  }
  const { format, parsed } = await readFile(file);
  const row = await createImport(requestImportDeps(c), c.var.user.accountId, {
    format,
    fileName: file.name || null,
    parsed,
    start: false,
  });
  return c.redirect(`/app/track/imports/${row.id}`, 303);
});

importPageRoutes.get("/:id", async (c) => {
  const row = await loadImport(c);
  const rows = await allImportRows(c.var.db, c.var.user.accountId, row.id);
  return c.html(<ImportPage user={c.var.user} row={row} rows={rows} />);
});

// Same-origin JSON for the progress island: the import's attributes as GET /v2/tracking_request_imports/{id} has them.
importPageRoutes.get("/:id/status", async (c) => {
  const row = await loadImport(c);
  return c.json({ ...serializeImport(row).attributes, summary: importSummary(row) });
});

importPageRoutes.post("/:id/start", async (c) => {
  const row = await startImport(requestImportDeps(c), c.var.user.accountId, c.req.param("id"));
  return c.redirect(`/app/track/imports/${row.id}`, 303);
});

importPageRoutes.get("/:id/results.csv", async (c) => {
  const row = await loadImport(c);
  const rows = await allImportRows(c.var.db, c.var.user.accountId, row.id);
  return c.body(resultsCsv(rows), 200, {
    "Content-Type": "text/csv; charset=utf-8",
    "Content-Disposition": `attachment; filename="import-${row.id}-results.csv"`,
  });
});
