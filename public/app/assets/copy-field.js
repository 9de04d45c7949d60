// Copy buttons of the dashboard (src/dashboard/api-keys-page.tsx): a `<button data-copy-target="ID" hidden>` copies
// the value of the read-only field #ID to the clipboard and says so in the `role="status"` element #ID-copied. The
// button stays hidden without this script (the field can still be selected and copied by hand). No inline script:
// the page's CSP allows only scripts from this origin.
for (const button of document.querySelectorAll("button[data-copy-target]")) {
  const field = document.getElementById(button.dataset.copyTarget ?? "");
  const status = document.getElementById(`${button.dataset.copyTarget}-copied`);
  if (!(field instanceof HTMLInputElement)) continue;
  button.hidden = false;
  button.addEventListener("click", async () => {
    field.focus();
    field.select();
    try {
      await navigator.clipboard.writeText(field.value);
      if (status) status.textContent = "Copied to the clipboard.";
    } catch {
      if (status) status.textContent = "Selected: press Ctrl+C (or ⌘C) to copy.";
    }
  });
}
