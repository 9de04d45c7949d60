// Island of the settings pages (src/dashboard/webhooks-views.tsx DeliveriesSection): every element with a
// `data-poll` URL is fetched again every few seconds and replaced by the fresh copy the server renders, so a test
// delivery or a retry shows up without reloading. Pauses while the tab is hidden or focus is inside the section
// (replacing it would drop the focus). Without JavaScript the section's "Refresh" link does the same.
const INTERVAL_MS = 4000;
/** Polling stops after this long on one page (a tab left open all day costs nothing); reloading starts it again. */
const MAX_POLLING_MS = 15 * 60_000;

async function refresh(section) {
  const url = section.getAttribute("data-poll");
  if (!url || document.hidden || section.contains(document.activeElement)) return section;
  const res = await fetch(url, { headers: { Accept: "text/html" }, credentials: "same-origin" });
  if (!res.ok) return section;
  const doc = new DOMParser().parseFromString(await res.text(), "text/html");
  const fresh = doc.querySelector(`[data-poll="${CSS.escape(url)}"]`);
  if (!fresh) return section;
  const live = section.querySelector("[aria-live]");
  const freshLive = fresh.querySelector("[aria-live]");
  // Only the live region's content is swapped, so screen readers announce what changed and nothing else moves.
  if (live && freshLive) {
    if (live.innerHTML !== freshLive.innerHTML) live.replaceChildren(...freshLive.childNodes);
    return section;
  }
  section.replaceWith(fresh);
  return fresh;
}

for (const initial of document.querySelectorAll("[data-poll]")) {
  let section = initial;
  const started = Date.now();
  const timer = setInterval(async () => {
    if (Date.now() - started > MAX_POLLING_MS) {
      clearInterval(timer);
      return;
    }
    try {
      section = await refresh(section);
    } catch {
      // Offline or signed out: the next tick tries again; the Refresh link still works.
    }
  }, INTERVAL_MS);
}
