// The Containers page's live-update island (src/dashboard/containers-page.tsx; docs/dashboard.md §Live updates).
// Every POLL_MS while the tab is visible it asks GET /app/containers.json?since=<newest updated_at on the page> with the
// page's own query string; when containers of the view changed, it fetches the same page URL with
// `X-Dashboard-Fragment: rows` and swaps the table's <tbody>, then says so in the polite live region. Polling, not
// server-sent events: a Worker request per open tab every 10 s is cheap and stateless, while an event stream would hold
// a request (and a Durable Object to fan changes out) per tab. Without JavaScript the page is plain links and forms.
const POLL_MS = 10_000;

const body = document.getElementById("container-rows");
/** The empty view's message (no table yet); it carries the cursor as the table body does. */
const emptyState = document.getElementById("containers-empty");
const status = document.getElementById("live-status");

/** Replaces the table body with the server's fresh rows and returns how many rows changed. */
async function refreshRows() {
  const res = await fetch(location.pathname + location.search, {
    headers: { "X-Dashboard-Fragment": "rows" },
    credentials: "same-origin",
  });
  if (!res.ok) return 0;
  const html = await res.text();
  const template = document.createElement("template");
  template.innerHTML = html;
  const fresh = template.content.querySelector("tbody#container-rows");
  const current = document.getElementById("container-rows");
  if (!fresh || !current) return 0;
  const before = new Map([...current.rows].map((r) => [r.dataset.id, r.dataset.updated]));
  let changed = 0;
  for (const row of fresh.rows) if (before.get(row.dataset.id) !== row.dataset.updated) changed++;
  current.replaceWith(fresh);
  return changed;
}

async function poll() {
  const current = document.getElementById("container-rows") ?? emptyState;
  if (!current || document.visibilityState !== "visible") return;
  const since = current.dataset.latest;
  if (!since) return;
  const params = new URLSearchParams(location.search);
  params.set("since", since);
  try {
    const res = await fetch(`/app/containers.json?${params}`, { credentials: "same-origin" });
    if (!res.ok) return;
    const { changed } = await res.json();
    if (changed > 0 && current === emptyState) {
      // An empty view has no table to swap rows into: the first box of the view brings the whole page.
      location.reload();
      return;
    }
    if (changed > 0) {
      const rows = await refreshRows();
      if (status && rows > 0) status.textContent = `${rows} ${rows === 1 ? "container" : "containers"} updated`;
    }
  } catch {
    // Offline or signed out: the next poll tries again; the page itself still works.
  }
}

if (body || emptyState) {
  setInterval(poll, POLL_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") poll();
  });
}
