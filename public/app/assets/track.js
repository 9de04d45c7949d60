// The Track page's island (src/dashboard/track-page.tsx, track-import-page.tsx). No inline script anywhere (the
// dashboard's CSP): this module finds its elements by id and data attributes.
// 1. One number: as the user types (debounced), asks /app/track/infer (the infer_number service) and preselects the
//    suggested line and number type, unless the user chose one; the hint says what was found (aria-live).
// 2. An import being created: polls its status and moves the <progress> bar; reloads when it is complete.

const DEBOUNCE_MS = 300;
const POLL_MS = 1000;

function setupInfer() {
  const form = document.querySelector("form.track-one[data-infer-url]");
  if (!form) return;
  const input = form.querySelector("#track-number");
  const scac = form.querySelector("#track-scac");
  const type = form.querySelector("#track-type");
  const hint = form.querySelector("#track-number-hint");
  if (!input || !scac || !type || !hint) return;
  let scacTouched = false;
  let typeTouched = false;
  scac.addEventListener("change", () => {
    scacTouched = true;
  });
  type.addEventListener("change", () => {
    typeTouched = true;
  });
  let timer;
  let latest = 0;
  input.addEventListener("input", () => {
    clearTimeout(timer);
    timer = setTimeout(async () => {
      const value = input.value.trim();
      if (value.length < 4) return;
      const ticket = ++latest;
      try {
        const url = `${form.dataset.inferUrl}?number=${encodeURIComponent(value)}`;
        const res = await fetch(url, { headers: { Accept: "application/json" }, credentials: "same-origin" });
        if (ticket !== latest) return;
        const body = await res.json();
        if (!res.ok) {
          hint.textContent = body.error || "This number could not be checked.";
          return;
        }
        describe(body);
      } catch {
        hint.textContent = "The line could not be suggested right now; choose it, or leave it on Detect.";
      }
    }, DEBOUNCE_MS);
  });

  function describe(result) {
    const kind = { container: "a container number", bill_of_lading: "a bill of lading", booking: "a booking number" };
    const parts = [`Looks like ${kind[result.number_type] || "a tracking number"}.`];
    if (result.validation && result.validation.is_valid === false) {
      parts.push(result.validation.reason || "It is not valid.");
    }
    if (!typeTouched && result.number_type) type.value = result.number_type;
    const line = result.shipping_line;
    const pick = line && (line.selected || line.candidates?.[0]);
    if (pick) {
      const option = scac.querySelector(`option[value="${CSS.escape(pick.scac)}"]`);
      if (option && !scacTouched) scac.value = pick.scac;
      const sure = line.decision === "auto_select" ? "Line" : "Suggested line";
      parts.push(`${sure}: ${pick.name} (${pick.scac})${option ? "" : ", which is not tracked here"}.`);
    } else {
      parts.push("No line suggested: choose it from the list.");
    }
    hint.textContent = parts.join(" ");
  }
}

function setupProgress() {
  const box = document.querySelector(".import-progress[data-status-url]");
  if (!box) return;
  const bar = box.querySelector("progress");
  const status = box.querySelector("#import-status");
  const summary = document.querySelector("#import-summary strong");
  const poll = async () => {
    try {
      const res = await fetch(box.dataset.statusUrl, { headers: { Accept: "application/json" } });
      if (res.ok) {
        const body = await res.json();
        const done = body.counts.created + body.counts.failed;
        if (bar) {
          bar.max = body.counts.valid;
          bar.value = done;
          bar.textContent = `${done} of ${body.counts.valid}`;
        }
        if (status) status.textContent = `Creating tracking requests: ${done} of ${body.counts.valid} done.`;
        if (summary) summary.textContent = body.summary;
        if (body.status === "completed") {
          window.location.reload();
          return;
        }
      }
    } catch {
      // A missed poll is retried on the next tick.
    }
    setTimeout(poll, POLL_MS);
  };
  setTimeout(poll, POLL_MS);
}

setupInfer();
setupProgress();
