/**
 * Reading a document's text: a PDF's text layer through `unpdf` (a serverless build of Mozilla's PDF.js that runs in
 * workerd and Node), or a plain-text file as UTF-8. No OCR (docs/documents.md §No OCR): a PDF whose pages carry no
 * text is reported as such, never guessed at.
 */
import { extractTextItems, getDocumentProxy } from "unpdf";

/**
 * A cell of a line: text printed as one run, and where it starts. A wide gap between two runs on one baseline starts a
 * new cell (a table column, or a form's next box). `x` is in PDF points for a PDF and in characters for plain text:
 * only compared within one document.
 */
export interface TextCell {
  x: number;
  text: string;
}

/** A line of text: its cells, left to right, and their texts joined by a tab. */
export interface TextLine {
  text: string;
  cells: TextCell[];
}

/** The text of a document: its pages, each a list of non-empty lines, top to bottom. */
export interface DocumentText {
  pages: TextLine[][];
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
 * ordered left to right, joined by a space when they do not touch and split into cells at wide gaps. Pages without
 * text have no lines.
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

/** One page's items as lines, top to bottom (PDF y grows upwards), each split into cells at wide gaps. */
function pageLines(items: readonly { str: string; x: number; y: number; width: number; height: number }[]): TextLine[] {
  const visible = items.filter((item) => item.str.trim() !== "");
  const sorted = [...visible].sort((a, b) => b.y - a.y || a.x - b.x);
  const lines: { y: number; parts: { x: number; end: number; size: number; str: string }[] }[] = [];
  for (const item of sorted) {
    const last = lines.at(-1);
    const part = { x: item.x, end: item.x + item.width, size: item.height || 10, str: item.str };
    if (last && Math.abs(last.y - item.y) < LINE_TOLERANCE) last.parts.push(part);
    else lines.push({ y: item.y, parts: [part] });
  }
  return lines.map(({ parts }) => {
    parts.sort((a, b) => a.x - b.x);
    const cells: TextCell[] = [];
    let end = Number.NEGATIVE_INFINITY;
    for (const part of parts) {
      const gap = part.x - end;
      const cell = cells.at(-1);
      if (cell && gap <= CELL_GAP * part.size) cell.text += gap > 0.5 ? ` ${part.str}` : part.str;
      else cells.push({ x: part.x, text: part.str });
      end = part.end;
    }
    return textLine(cells);
  });
}

/** Two runs on one baseline further apart than this many times the font size are in different cells. */
const CELL_GAP = 1.5;

/** A line of cells (whitespace collapsed, empty cells dropped). */
function textLine(rawCells: readonly TextCell[]): TextLine {
  const cells = rawCells
    .map(({ x, text }) => ({ x, text: text.replace(/\s+/g, " ").trim() }))
    .filter((cell) => cell.text !== "");
  return { text: cells.map((c) => c.text).join("\t"), cells };
}

/**
 * A line of plain text as cells: a tab or a run of two or more spaces starts a cell; `x` is its character offset, so
 * columns aligned with spaces line up as a PDF's do.
 */
export function plainTextLine(line: string): TextLine {
  const cells: TextCell[] = [];
  for (const match of line.matchAll(/[^\t ]+(?: [^\t ]+)*/g)) cells.push({ x: match.index ?? 0, text: match[0] });
  return textLine(cells);
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
  const lines = text
    .split(/\r\n|\r|\n/)
    .map(plainTextLine)
    .filter((line) => line.cells.length > 0);
  return { pages: [lines] };
}
