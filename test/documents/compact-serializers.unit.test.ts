import { describe, expect, it } from "vitest";
import { BODY_PREVIEW_LENGTH, bodyPreview } from "../../src/documents/compact-serializers";

// body_preview of the compact e-mail submission (REFERENCE-SERVICE-MORE.md §7.5, docs/api.md §Documents "Includes").

describe("bodyPreview", () => {
  it("collapses white space and keeps a short body whole", () => {
    expect(bodyPreview("  Please find\r\n\r\n attached\tinvoice INV-10027.  ")).toBe(
      "Please find attached invoice INV-10027.",
    );
  });

  it("is null for no body or a blank one", () => {
    expect(bodyPreview(null)).toBeNull();
    expect(bodyPreview(" \r\n ")).toBeNull();
  });

  it("cuts a long body to the limit on whole code points, with an ellipsis", () => {
    const long = `${"😀".repeat(BODY_PREVIEW_LENGTH - 2)} and more text after the cut`;
    const preview = bodyPreview(long) ?? "";
    // 198 emoji, then the space before "and" is where it is cut: trimmed, then the ellipsis.
    expect([...preview]).toHaveLength(BODY_PREVIEW_LENGTH - 1);
    expect(preview.endsWith("…")).toBe(true);
    expect(preview).not.toContain("\uFFFD");
    expect(preview.startsWith("😀😀")).toBe(true);
  });
});
