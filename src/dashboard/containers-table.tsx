import type { ContainerSortKey } from "../containers/list-order";
import type { ContainersViewQuery, ContainerTableRow, ViewField } from "./containers-view";
import { MAX_EXPORT_ROWS, STATUS_CHOICES, TABLE_PAGE_SIZE } from "./containers-view";

/** The columns of the table: heading, and the API sort key when the column sorts. */
export const TABLE_COLUMNS: ReadonlyArray<{ label: string; sort?: ContainerSortKey }> = [
  { label: "Container", sort: "number" },
  { label: "Line", sort: "scac" },
  { label: "POD", sort: "pod_locode" },
  { label: "Status", sort: "current_status" },
  { label: "Available", sort: "available_for_pickup" },
  { label: "Holds" },
  { label: "Last free day", sort: "pickup_lfd" },
  { label: "Charges today" },
  { label: "ETA at POD", sort: "pod_eta_at" },
  { label: "Customer" },
  { label: "Updated", sort: "updated_at" },
];

/** `current_status` in words (the API's value stays in the CSV). */
export const STATUS_LABELS: Record<string, string> = {
  new: "New",
  on_ship: "On ship",
  grounded: "Grounded",
  available: "Available",
  not_available: "Not available",
  awaiting_inland_transfer: "Awaiting inland transfer",
  on_rail: "On rail",
  off_dock: "Off dock",
  picked_up: "Picked up",
  delivered: "Delivered",
  empty_returned: "Empty returned",
};

/** The query string of the view with some fields replaced (undefined drops one), keys in form order. */
export function viewHref(
  path: string,
  values: ContainersViewQuery["values"],
  changes: Record<string, string | undefined>,
) {
  const params = new URLSearchParams();
  const merged: Record<string, string | undefined> = { ...values, ...changes };
  for (const [k, v] of Object.entries(merged)) if (v !== undefined && v !== "") params.set(k, v);
  const qs = params.toString();
  return qs === "" ? path : `${path}?${qs}`;
}

function availableText(v: boolean | null): string {
  return v === null ? "Unknown" : v ? "Yes" : "No";
}

/** One table row; the container number is the row header and links to its page. */
function Row({ row }: { row: ContainerTableRow }) {
  const inForce = row.holds.filter((h) => h.status === "hold");
  return (
    <tr data-id={row.id} data-updated={row.updatedAt}>
      <th scope="row">
        <a href={`/app/containers/${encodeURIComponent(row.id)}`}>{row.number}</a>
      </th>
      <td>
        {row.scac ?? "—"}
        {row.lineName ? <span class="sub">{row.lineName}</span> : null}
      </td>
      <td>
        {row.podLocode ?? "—"}
        {row.podName ? <span class="sub">{row.podName}</span> : null}
      </td>
      <td>{STATUS_LABELS[row.currentStatus] ?? row.currentStatus}</td>
      <td>{availableText(row.availableForPickup)}</td>
      <td>
        {row.holds.length === 0
          ? "None"
          : `${inForce.length}: ${row.holds.map((h) => (h.status === "hold" ? h.name : `${h.name} (${h.status})`)).join(", ")}`}
      </td>
      <td>{row.pickupLfdLocalDate ? <time datetime={row.pickupLfdLocalDate}>{row.pickupLfdLocalDate}</time> : "—"}</td>
      <td>{row.charges.join(", ")}</td>
      <td>{row.podEtaAt && row.podEtaLocal ? <time datetime={row.podEtaAt}>{row.podEtaLocal}</time> : "—"}</td>
      <td>{row.customerName ?? ""}</td>
      <td>
        <time datetime={row.updatedAt}>{row.updatedAt.replace("T", " ").replace("Z", " UTC")}</time>
      </td>
    </tr>
  );
}

/**
 * The table's body: what the live-update island swaps (`X-Dashboard-Fragment: rows`). `data-latest` is the newest
 * `updated_at` among the rows, the cursor the island polls from.
 */
export function RowsBody({ rows }: { rows: readonly ContainerTableRow[] }) {
  const latest =
    rows
      .map((r) => r.updatedAt)
      .sort()
      .at(-1) ?? "";
  return (
    <tbody id="container-rows" data-latest={latest}>
      {rows.map((row) => (
        <Row row={row} />
      ))}
    </tbody>
  );
}

/** A column heading: a link that sorts by it (the other direction when it is the current sort), with `aria-sort`. */
function Heading({ label, sort, query }: { label: string; sort?: ContainerSortKey; query: ContainersViewQuery }) {
  if (!sort) return <th scope="col">{label}</th>;
  const current = query.sort?.key === sort;
  const descending = current && query.sort?.descending === true;
  const next = current && !descending ? `-${sort}` : sort;
  return (
    <th scope="col" aria-sort={current ? (descending ? "descending" : "ascending") : undefined}>
      <a href={viewHref("/app/containers", query.values, { sort: next, page: undefined })}>
        {label}
        {current ? <span class="sort-mark">{descending ? " ▼ (descending)" : " ▲ (ascending)"}</span> : null}
      </a>
    </th>
  );
}

/** Props of {@link FilterForm}. */
interface FilterFormProps {
  query: Pick<ContainersViewQuery, "values">;
  error?: { field: ViewField | "page"; message: string } | undefined;
}

function Field({
  name,
  label,
  error,
  value,
  type = "text",
  hint,
  inputmode,
}: {
  name: ViewField;
  label: string;
  error: FilterFormProps["error"];
  value: string | undefined;
  type?: string;
  hint?: string;
  inputmode?: "numeric" | "text";
}) {
  const failed = error?.field === name;
  const described = [hint ? `hint-${name}` : "", failed ? `error-${name}` : ""].filter(Boolean).join(" ");
  return (
    <div class="field">
      <label for={`f-${name}`}>{label}</label>
      <input
        id={`f-${name}`}
        name={name}
        type={type}
        value={value ?? ""}
        inputmode={inputmode}
        aria-invalid={failed ? "true" : undefined}
        aria-describedby={described || undefined}
      />
      {hint ? (
        <span class="hint" id={`hint-${name}`}>
          {hint}
        </span>
      ) : null}
      {failed ? (
        <span class="field-error" id={`error-${name}`}>
          {error?.message}
        </span>
      ) : null}
    </div>
  );
}

function Choice({
  name,
  label,
  value,
  options,
  error,
}: {
  name: ViewField;
  label: string;
  value: string | undefined;
  options: ReadonlyArray<[string, string]>;
  error: FilterFormProps["error"];
}) {
  const failed = error?.field === name;
  return (
    <div class="field">
      <label for={`f-${name}`}>{label}</label>
      <select
        id={`f-${name}`}
        name={name}
        aria-invalid={failed ? "true" : undefined}
        aria-describedby={failed ? `error-${name}` : undefined}
      >
        {options.map(([v, text]) => (
          <option value={v} selected={(value ?? "") === v}>
            {text}
          </option>
        ))}
      </select>
      {failed ? (
        <span class="field-error" id={`error-${name}`}>
          {error?.message}
        </span>
      ) : null}
    </div>
  );
}

/** The filter and search form: a plain GET form, so the page works without JavaScript. */
export function FilterForm({ query, error }: FilterFormProps) {
  const v = query.values;
  return (
    <form class="filters" method="get" action="/app/containers" aria-label="Filter containers">
      <Field
        name="q"
        label="Search"
        type="search"
        value={v.q}
        error={error}
        hint="Container, BL, reference or vessel"
      />
      <Choice
        name="status"
        label="Status"
        value={v.status}
        error={error}
        options={[["", "Any status"], ...STATUS_CHOICES.map((s): [string, string] => [s, STATUS_LABELS[s] ?? s])]}
      />
      <Field name="pod" label="Port of discharge (UN/LOCODE)" value={v.pod} error={error} />
      <Field name="line" label="Line (SCAC)" value={v.line} error={error} />
      <Field name="customer" label="Customer" value={v.customer} error={error} />
      <Field
        name="lfd_within"
        label="LFD within (days)"
        value={v.lfd_within}
        error={error}
        inputmode="numeric"
        hint="Overdue included"
      />
      <Choice
        name="holds"
        label="Holds"
        value={v.holds}
        error={error}
        options={[
          ["", "Any"],
          ["yes", "With holds"],
          ["no", "Without holds"],
        ]}
      />
      <Field name="cf_key" label="Custom field" value={v.cf_key} error={error} hint="Its API slug" />
      <Field name="cf_value" label="Custom field value" value={v.cf_value} error={error} />
      {v.sort ? <input type="hidden" name="sort" value={v.sort} /> : null}
      <div class="actions">
        <button type="submit">Apply filters</button>
        <a href="/app/containers">Clear filters</a>
      </div>
    </form>
  );
}

/** Props of {@link ContainersTable}. */
export interface ContainersTableProps {
  query: ContainersViewQuery;
  rows: readonly ContainerTableRow[];
  total: number;
}

/** The summary, export link, table and paging of a view with rows. */
export function ContainersTable({ query, rows, total }: ContainersTableProps) {
  const from = (query.page - 1) * TABLE_PAGE_SIZE + 1;
  const to = from + rows.length - 1;
  const last = Math.max(1, Math.ceil(total / TABLE_PAGE_SIZE));
  const exportHref = viewHref("/app/containers.csv", query.values, {});
  return (
    <>
      <div class="table-bar">
        <p class="summary" id="table-summary">
          {rows.length === 0 ? `0 of ${total}` : `${from}–${to} of ${total}`}
        </p>
        {total > MAX_EXPORT_ROWS ? (
          <p class="export-limit">
            The export holds at most {MAX_EXPORT_ROWS.toLocaleString("en-US")} containers; this view has{" "}
            {total.toLocaleString("en-US")}. Narrow the filters to export it.
          </p>
        ) : (
          <a class="export" href={exportHref} download="containers.csv">
            Export CSV
          </a>
        )}
      </div>
      <div class="table-wrap">
        <table class="containers">
          <caption>Containers, {query.sort ? "sorted as the marked column says" : "newest first"}</caption>
          <thead>
            <tr>
              {TABLE_COLUMNS.map((col) => (
                <Heading label={col.label} sort={col.sort} query={query} />
              ))}
            </tr>
          </thead>
          <RowsBody rows={rows} />
        </table>
      </div>
      <nav class="paging" aria-label="Pages">
        {query.page > 1 ? (
          <a
            rel="prev"
            href={viewHref("/app/containers", query.values, { page: String(Math.min(query.page - 1, last)) })}
          >
            Previous page
          </a>
        ) : null}
        <span>
          Page {Math.min(query.page, last)} of {last}
        </span>
        {query.page < last ? (
          <a rel="next" href={viewHref("/app/containers", query.values, { page: String(query.page + 1) })}>
            Next page
          </a>
        ) : null}
      </nav>
    </>
  );
}
