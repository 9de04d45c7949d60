/**
 * Reading a document's text: a PDF's text layer through `unpdf` (a serverless build of Mozilla's PDF.js that runs in
 * workerd and Node), or a plain-text file as UTF-8. No OCR (docs/documents.md §No OCR): a PDF whose pages carry no
 * text is reported as such, never guessed at.
 */
import { extractTextItems, getDocumentProxy } from "unpdf";

/** The text of a document, one string per page, lines separated by `\n`. */
export interface DocumentText {
  pages: string[];
}

/** Why text could not be read: the docs/documents.md §Failures reasons that arise while reading. */
export type TextReadFailure = "corrupt_file" | "encrypted" | "too_many_pages";

/** Thrown by {@link readPdfText} with a failure reason and the page count when the file could be opened. */
export class TextReadError extends Error {
  readonly reason: TextReadFailure;
  readonly pageCount: number | null;
  constructor(reason: TextReadFailure, message: string, pageCount: number | null = null) {
    super(message);
    this.name = "TextReadError";
    this.reason = reason;
    this.pageCount = pageCount;
  }
}

/** Two text items whose baselines differ by less than this (PDF points) are on one line. */
const LINE_TOLERANCE = 2;

/** Whether `bytes` start with the PDF header `%PDF-` (PDF 32000-1 §7.5.2; leading bytes allowed up to 1 KiB). */
export function looksLikePdf(bytes: Uint8Array): boolean {
  const head = new TextDecoder("latin1").decode(bytes.subarray(0, 1024));
  return head.includes("%PDF-");
}

/**
 * The text layer of a PDF, page by page: text items grouped into lines by baseline (top to bottom), items of a line
 * ordered left to right and joined by a space when they do not touch. Pages without text are empty strings.
 * @throws TextReadError `corrupt_file` (not a PDF, or PDF.js cannot parse it), `encrypted` (password-protected), or
 *   `too_many_pages` (more than `maxPages`; checked before any page is read).
 */
export async function readPdfText(bytes: Uint8Array, maxPages: number): Promise<DocumentText> {
  if (!looksLikePdf(bytes)) throw new TextReadError("corrupt_file", "The file is not a PDF (no %PDF- header).");
  let pdf: Awaited<ReturnType<typeof getDocumentProxy>>;
  try {
    // PDF.js may take ownership of the buffer it is given: hand it a copy so the caller's bytes stay readable.
    pdf = await getDocumentProxy(bytes.slice(), { verbosity: 0 });
  } catch (error) {
    const name = error instanceof Error ? error.name : "";
    if (name === "PasswordException") {
      throw new TextReadError("encrypted", "The PDF is password-protected; it cannot be read.");
    }
    throw new TextReadError("corrupt_file", "The PDF is damaged or not a PDF; it cannot be read.");
  }
  try {
    if (pdf.numPages > maxPages) {
      throw new TextReadError(
        "too_many_pages",
        `The PDF has ${pdf.numPages} pages; at most ${maxPages} are read.`,
        pdf.numPages,
      );
    }
    let items: Awaited<ReturnType<typeof extractTextItems>>["items"];
    try {
      ({ items } = await extractTextItems(pdf));
    } catch {
      throw new TextReadError("corrupt_file", "The PDF's pages cannot be read.", pdf.numPages);
    }
    return { pages: items.map((pageItems) => pageLines(pageItems)) };
  } finally {
    await pdf.loadingTask.destroy();
  }
}

/** One page's items as lines, top to bottom (PDF y grows upwards), left to right. */
function pageLines(items: readonly { str: string; x: number; y: number; width: number }[]): string {
  const visible = items.filter((item) => item.str.trim() !== "");
  const sorted = [...visible].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: { y: number; parts: { x: number; end: number; str: string }[] }[] = [];
  for (const item of sorted) {
    const last = lines.at(-1);
    const part = { x: item.x, end: item.x + item.width, str: item.str };
    if (last && Math.abs(last.y - item.y) < LINE_TOLERANCE) last.parts.push(part);
    else lines.push({ y: item.y, parts: [part] });
  }
  return lines
    .map(({ parts }) => {
      parts.sort((a, b) => a.x - b.x);
      let text = "";
      let end = Number.NEGATIVE_INFINITY;
      for (const part of parts) {
        text += text && part.x - end > 0.5 ? ` ${part.str}` : part.str;
        end = part.end;
      }
      return text.replace(/\s+/g, " ").trim();
    })
    .join("\n");
}

/**
 * A plain-text document as one page (UTF-8; a byte-order mark is dropped).
 * @throws TextReadError `corrupt_file` when the bytes are not valid UTF-8 or contain NUL bytes (a binary file).
 */
export function readPlainText(bytes: Uint8Array): DocumentText {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new TextReadError("corrupt_file", "The text file is not valid UTF-8.");
  }
  if (text.includes("\u0000")) throw new TextReadError("corrupt_file", "The text file holds binary data.");
  return {
    pages: [
      text
        .split(/\r\n|\r|\n/)
        .map((line) => line.replace(/\s+/g, " ").trim())
        .filter((line) => line !== "")
        .join("\n"),
    ],
  };
}
