// bench/extract: the built-in document extractor in-process (issue 26; docs/documents.md §Document extraction):
// `extractDocument(bytes, contentType)` of src/documents/extraction — the same module the Worker runs, here in Node —
// over the fixture documents the tests make (test/fixtures/documents.ts). Prints the time per page (p50, p95), pages/s
// and documents/s per fixture and overall, and how that splits between reading the PDF's text layer (unpdf / PDF.js)
// and recognition (the rules).
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, sourceVersion, writeResult } from "../lib/report.mjs";

/** Untimed extractions of each fixture first (JIT, PDF.js's lazy modules). */
const WARM_UP = 10;

export const description = "Document extraction: extractDocument over fixture PDFs and text, per page (in-process)";

export const usage = `bench extract options (or the environment variable in brackets):
  --rounds N    extractions of each fixture after ${WARM_UP} warm-up ones (BENCH_EXTRACT_ROUNDS, default 40)
  --pages N     pages of the manifest fixture (BENCH_EXTRACT_PAGES, default 20)`;

function options(argv) {
  const { num } = benchOptions(argv, { rounds: { type: "string" }, pages: { type: "string" } });
  return {
    rounds: Math.max(1, Math.floor(num("rounds", "BENCH_EXTRACT_ROUNDS", 40))),
    pages: Math.max(1, Math.floor(num("pages", "BENCH_EXTRACT_PAGES", 20))),
  };
}

const quantile = (values, q) => {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))];
};

export async function run(argv) {
  const opts = options(argv);
  const { extractDocument } = await import("../../src/documents/extraction/index.ts");
  const { readPdfText } = await import("../../src/documents/extraction/text-layer.ts");
  const { recognise } = await import("../../src/documents/extraction/recognise.ts");
  const fixtures = await import("../../test/fixtures/documents.ts");

  const docs = [
    { name: "bill of lading (PDF)", bytes: await fixtures.billOfLadingPdf(), type: "application/pdf" },
    { name: "form-style BL (PDF)", bytes: await fixtures.boxedBillOfLadingPdf(), type: "application/pdf" },
    { name: "arrival notice (PDF)", bytes: await fixtures.arrivalNoticePdf(), type: "application/pdf" },
    {
      name: `manifest (PDF, ${opts.pages} pages)`,
      bytes: (await fixtures.manifestPdf(opts.pages)).bytes,
      type: "application/pdf",
    },
    { name: "booking confirmation (text)", bytes: fixtures.bookingConfirmationText(), type: "text/plain" },
    { name: "scanned image (PDF, fails)", bytes: await fixtures.scannedPdf(), type: "application/pdf" },
  ];
  console.log(
    `extractDocument in-process (Node ${process.version}), ${opts.rounds} rounds of each fixture after ${WARM_UP} warm-up`,
  );

  const rows = [];
  const allPageMs = [];
  let totalPages = 0;
  let totalMs = 0;
  let totalDocs = 0;
  const perFixture = [];
  for (const doc of docs) {
    for (let i = 0; i < WARM_UP; i++) await extractDocument(doc.bytes, doc.type);
    const docMs = [];
    let outcome;
    for (let i = 0; i < opts.rounds; i++) {
      const t0 = performance.now();
      outcome = await extractDocument(doc.bytes, doc.type);
      docMs.push(performance.now() - t0);
    }
    const pages = outcome.pageCount ?? 0;
    // Split for PDFs: the text layer alone, then the rules alone on that text.
    let textMs = null;
    let rulesMs = null;
    if (doc.type === "application/pdf" && outcome.status === "extracted") {
      const t = [];
      let text;
      for (let i = 0; i < opts.rounds; i++) {
        const t0 = performance.now();
        text = await readPdfText(doc.bytes, 50);
        t.push(performance.now() - t0);
      }
      const r = [];
      for (let i = 0; i < opts.rounds; i++) {
        const t0 = performance.now();
        recognise(text.pages);
        r.push(performance.now() - t0);
      }
      textMs = quantile(t, 0.5);
      rulesMs = quantile(r, 0.5);
    }
    const pageMs = docMs.map((ms) => ms / Math.max(1, pages));
    if (outcome.status === "extracted") {
      allPageMs.push(...pageMs);
      totalPages += pages * opts.rounds;
      totalMs += docMs.reduce((a, b) => a + b, 0);
      totalDocs += opts.rounds;
    }
    const sum = docMs.reduce((a, b) => a + b, 0);
    const row = {
      name: doc.name,
      outcome: outcome.status === "extracted" ? "extracted" : outcome.reason,
      bytes: doc.bytes.byteLength,
      pages,
      docP50Ms: quantile(docMs, 0.5),
      pageP50Ms: quantile(pageMs, 0.5),
      pageP95Ms: quantile(pageMs, 0.95),
      pagesPerS: (pages * opts.rounds * 1000) / sum,
      docsPerS: (opts.rounds * 1000) / sum,
      textLayerP50Ms: textMs,
      rulesP50Ms: rulesMs,
    };
    perFixture.push(row);
    rows.push([
      row.name,
      row.outcome,
      row.bytes,
      row.pages,
      fmt(row.docP50Ms, 2),
      fmt(row.pageP50Ms, 2),
      fmt(row.pageP95Ms, 2),
      fmt(row.pagesPerS, 0),
      fmt(row.docsPerS, 0),
      textMs === null ? "" : fmt(textMs, 2),
      rulesMs === null ? "" : fmt(rulesMs, 3),
    ]);
  }
  console.log("");
  printTable(
    [
      "fixture",
      "outcome",
      "bytes",
      "pages",
      "doc p50 ms",
      "page p50 ms",
      "page p95 ms",
      "pages/s",
      "docs/s",
      "text layer p50 ms",
      "rules p50 ms",
    ],
    rows,
  );
  const overall = {
    pageP50Ms: quantile(allPageMs, 0.5),
    pageP95Ms: quantile(allPageMs, 0.95),
    pagesPerS: (totalPages * 1000) / totalMs,
    docsPerS: (totalDocs * 1000) / totalMs,
  };
  console.log(
    `\nextracted fixtures together: page p50 ${fmt(overall.pageP50Ms, 2)} ms, p95 ${fmt(overall.pageP95Ms, 2)} ms, ` +
      `${fmt(overall.pagesPerS, 0)} pages/s, ${fmt(overall.docsPerS, 0)} documents/s (one after the other, one core)`,
  );
  const file = writeResult("extract", {
    options: opts,
    machine: machine(),
    source: sourceVersion(),
    perFixture,
    overall,
  });
  console.log(`\nresults: ${file}`);
  return 0;
}
