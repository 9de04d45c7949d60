// Live refresh of a container's page (src/dashboard/container-page.tsx; issue 28 "updates appear without reloading").
// Every 10 s while the page is visible, fetches GET /app/containers/{id}/live (the summary and the timeline as HTML,
// rendered by the same components as the page) and swaps each part whose HTML changed. The summary is an
// aria-live="polite" region, so a screen reader announces a new status. A part holding the keyboard focus waits for
// the next round; open disclosures stay open. Without JavaScript the page is complete, only not live.
const PERIOD_MS = 10_000;
const PARTS = ["live-summary", "timeline"];

const root = document.getElementById("container-page");
const url = root?.dataset.live;
/** The HTML each part had when last rendered by the server, to swap only what changed. */
const rendered = new Map(PARTS.map((id) => [id, document.getElementById(id)?.outerHTML ?? ""]));
let busy = false;

async function refresh() {
  if (!url || busy || document.visibilityState !== "visible") return;
  busy = true;
  try {
    const res = await fetch(url, { headers: { Accept: "text/html" }, cache: "no-store", credentials: "same-origin" });
    // Signed out (redirected to sign-in) or an error: keep the page as it is.
    if (!res.ok || res.redirected) return;
    const fresh = new DOMParser().parseFromString(await res.text(), "text/html");
    for (const id of PARTS) swap(id, fresh.getElementById(id));
  } catch {
    // Offline for a moment: try again next round.
  } finally {
    busy = false;
  }
}

function swap(id, next) {
  const current = document.getElementById(id);
  if (!current || !next) return;
  const html = next.outerHTML;
  if (html === rendered.get(id)) return;
  if (current.contains(document.activeElement)) return;
  const open = new Set([...current.querySelectorAll("details[open]")].map((d) => d.id).filter(Boolean));
  // The element stays and its children change, so assistive technology sees the live region's content change.
  const children = [...next.childNodes].map((node) => document.importNode(node, true));
  current.replaceChildren(...children);
  for (const details of current.querySelectorAll("details")) if (open.has(details.id)) details.open = true;
  rendered.set(id, html);
}

if (url) {
  setInterval(refresh, PERIOD_MS);
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") refresh();
  });
}
