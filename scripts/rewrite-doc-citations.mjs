#!/usr/bin/env node
// One-off (issue 24 §5): rewrites comments that cite the documents of ../shared, which a clone of this repository does
// not have, into citations of the documents under docs/ that now hold the same content (or of data/ for data files).
//
//   node scripts/rewrite-doc-citations.mjs [--write] [--list] [--strings] <file or folder>...
//
//   (default)   dry run: counts every citation found, says how each maps, lists what it cannot map; writes nothing
//   --list      also prints every rewrite, file:line: old → new
//   --write     applies the rewrites; a comment line made longer than 120 characters is rewrapped (its last words move
//               to the next line of the same paragraph)
//   --strings   also rewrites citations inside string literals under src/ (held back by default: those strings are
//               served, as OpenAPI descriptions, MCP schema descriptions and MCP resource text); string literals
//               elsewhere (test names, script output) are always rewritten
//
// Exit code 1 when a citation cannot be mapped (each is listed with file and line), 2 on a usage error.
//
// Forms handled: SPEC.md, DECISIONS.md, DESIGN.md, STYLE.md, REFERENCE-SERVICE.md (and its "R §n" abbreviation),
// TERMINAL-APIS.md, MCP.md, each with or without a ../shared/ or ../shared/reference/ prefix and with a chain of
// sections (`§4.6, §4.7`, `§1.1/§1.2`, `§3.11–3.13`, across a comment line break too); ../shared/data/… and
// scripts/data/… paths; README sections that moved to docs/; and the bare `§1.6a` continuations of TERMINAL-APIS.md
// in the files listed in BARE_CONTEXT. A section maps to `docs/<file>.md §<Heading>`, the heading's exact title;
// every target heading is checked to exist in docs/ before anything is done.
// Generated files (src/reference/generated, test/contract/*.generated.*, reference.schema.json) are skipped: their
// generators already write the new form. migrations/ is skipped: a migration is never edited once it has landed.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const SELF = relative(ROOT, fileURLToPath(import.meta.url));

// ---- targets -------------------------------------------------------------------------------------------------------

const DOC = {
  api: "docs/api.md",
  arch: "docs/architecture.md",
  dec: "docs/decisions.md",
  hooks: "docs/webhooks.md",
  mcp: "docs/mcp.md",
  car: "docs/carriers.md",
  term: "docs/terminals.md",
  conf: "docs/configuration.md",
  dep: "docs/deploy.md",
};

/** Where a whole document went when it is cited without a section. */
const WHOLE = {
  SPEC: ["api", null],
  DECISIONS: ["dec", null],
  DESIGN: ["arch", null],
  STYLE: ["arch", "Conventions"],
  "REFERENCE-SERVICE": ["api", "Compatibility"],
  "REFERENCE-SERVICE-MORE": ["api", "Compatibility"],
  "TERMINAL-APIS": ["term", null],
  MCP: ["mcp", null],
};

/** SPEC.md sections → [doc, heading]. */
const SPEC = {
  1: ["api", "Conventions"],
  2: ["api", "Resources"],
  2.1: ["api", "Container resource"],
  2.2: ["api", "Holds"],
  2.3: ["api", "Fees"],
  2.4: ["api", "Tracking request resource"],
  2.5: ["api", "Lists and pagination"],
  2.6: ["hooks", "Webhook resource"],
  2.7: ["api", "Infer number"],
  3: ["api", "Readiness"],
  4: ["api", "Endpoints"],
  4.1: ["api", "Container endpoints"],
  4.2: ["api", "Container endpoints"],
  4.3: ["api", "Container endpoints"],
  "4.3b": ["api", "Shipment endpoints"],
  4.4: ["api", "Tracking request endpoints"],
  4.5: ["hooks", "Webhook endpoints"],
  4.6: ["api", "Infer number"],
  4.7: ["mcp", "Tools"],
  5: ["api", "Authentication"],
  5.1: ["api", "Authentication"],
  5.2: ["api", "Authentication"],
  5.3: ["api", "Authentication"],
  5.4: ["hooks", "Signatures"],
  6: ["hooks", "Payloads"],
  7: ["api", "Errors"],
  8: ["api", "Rate limits"],
  9: ["api", "Base address and media types"],
};

/** More precise targets of a section when the citation goes on with these words (quoted or not). */
const SPEC_PHRASES = [
  { section: "3", startsWith: " readiness rule", target: ["api", "Readiness"], consume: " readiness rule" },
  { section: "3", startsWith: " and §6", target: ["api", "Holds"] },
  { section: "3", startsWith: ", §6", target: ["api", "Holds"] },
  { section: "4.7", fileIncludes: "mcp/http", target: ["mcp", "Transport"] },
  { section: "4.7", startsWith: ' "a local stdio variant', target: ["mcp", "stdio"] },
  { section: "4.3b", fileIncludes: "tracking-requests", target: ["api", "Tracking request endpoints"] },
];

/** DESIGN.md sections → [doc, heading]; `4 Sources` and `1 cron` are sub-parts named in the citations. */
const DESIGN = {
  1: ["arch", "Overview"],
  "1 cron": ["arch", "Cron"],
  2: ["arch", "Components"],
  3: ["arch", "Data model"],
  4: ["arch", "Tracking pipeline"],
  "4 Sources": ["arch", "Sources"],
  5: ["arch", "Webhook delivery"],
  6: ["arch", "MCP"],
  7: ["arch", "Security"],
  8: ["arch", "Performance model"],
  9: ["arch", "Layout"],
  10: ["arch", "Connecting to the real world"],
  11: ["arch", "Where the next capabilities go"],
};
/** `DESIGN.md §10 "<label>"`: the label is a heading of its own now. */
const DESIGN_LABELS = [
  "Credentials, one place",
  "Push endpoints",
  "One event identity",
  "Batched terminal polls",
  "Reference data as data",
  "Growth",
  "One data path",
];

/** DECISIONS.md and STYLE.md sections by name: old name → [doc, heading]. Longest names first. */
const NAMED = {
  DECISIONS: [
    ["Accounts and keys", ["dec", "Accounts and keys"]],
    ["Tracking requests", ["dec", "Tracking requests"]],
    ["Infer number", ["dec", "Infer number"]],
    ["Wire format", ["dec", "Wire format"]],
    ["Rate limits", ["dec", "Rate limits"]],
    ["Containers", ["dec", "Containers"]],
    ["Webhooks", ["dec", "Webhooks"]],
    ["Accounts", ["dec", "Accounts and keys"]],
    ["Sandbox", ["dec", "Sandbox"]],
  ],
  STYLE: [
    ["One error path", ["arch", "One error path"]],
    ["Thin handlers", ["arch", "Thin handlers"]],
    ["Habits", ["arch", "Conventions"]],
    ["Layout", ["arch", "Layout"]],
  ],
};

/** REFERENCE-SERVICE.md ("R") sections → [doc, heading]. */
const R = {
  0: ["api", "Conventions"],
  0.1: ["api", "Conventions"],
  0.2: ["api", "Lists and pagination"],
  0.3: ["api", "Lists and pagination"],
  0.4: ["api", "Includes"],
  1: ["api", "Resources"],
  1.1: ["api", "Container resource"],
  1.2: ["api", "Shipment resource"],
  1.3: ["api", "Tracking request resource"],
  1.4: ["api", "Terminal resource"],
  1.5: ["api", "Terminal resource"],
  1.6: ["api", "Port resource"],
  1.7: ["api", "Port resource"],
  1.8: ["api", "Shipping line resource"],
  1.9: ["api", "Transport event resource"],
  "1.10": ["api", "Raw event resource"],
  1.11: ["api", "Vessel resource"],
  1.12: ["api", "Party resource"],
  1.13: ["hooks", "Webhook resource"],
  1.14: ["hooks", "Notification resource"],
  1.15: ["api", "Infer number"],
  1.16: ["hooks", "Events"],
  2: ["api", "States"],
  2.1: ["api", "Container status"],
  2.2: ["api", "Tracking request status"],
  2.3: ["hooks", "Delivery status"],
  2.4: ["api", "Transport event names"],
  2.5: ["api", "Raw event names"],
  2.6: ["hooks", "Events"],
  2.7: ["api", "Holds"],
  2.8: ["api", "Fees"],
  2.9: ["api", "Resources"],
  3: ["api", "Errors"],
  3.1: ["api", "Container endpoints"],
  3.2: ["api", "Container endpoints"],
  3.3: ["api", "Container endpoints"],
  3.4: ["api", "Container endpoints"],
  3.5: ["api", "Container endpoints"],
  3.6: ["api", "Tracking request endpoints"],
  3.7: ["api", "Tracking request endpoints"],
  3.8: ["api", "Tracking request endpoints"],
  3.9: ["api", "Tracking request endpoints"],
  "3.10": ["api", "Infer number"],
  3.11: ["api", "Shipment endpoints"],
  3.12: ["api", "Shipment endpoints"],
  3.13: ["api", "Shipment endpoints"],
  3.14: ["hooks", "Webhook endpoints"],
  3.15: ["hooks", "Trigger"],
  3.16: ["hooks", "Webhook endpoints"],
  3.17: ["hooks", "Webhook endpoints"],
  3.18: ["hooks", "Webhook endpoints"],
  3.19: ["api", "Reference data endpoints"],
  "3.20": ["api", "Reference data endpoints"],
  3.21: ["api", "Reference data endpoints"],
  3.22: ["api", "Route resource"],
  4: ["api", "Errors"],
  5: ["hooks", "How delivery works"],
  5.1: ["hooks", "How delivery works"],
  5.2: ["hooks", "Signatures"],
  5.3: ["hooks", "Acknowledgement and retries"],
  5.4: ["hooks", "Deduplication"],
  5.5: ["hooks", "Payloads"],
  6: ["api", "Rate limits"],
  7: ["dec", "Sandbox"],
  8: ["dec", "Infer number"],
  9: ["api", "What a client can expect"],
  9.1: ["api", "What a client can expect"],
  9.2: ["api", "What a client can expect"],
  9.3: ["api", "What a client can expect"],
  9.4: ["api", "What a client can expect"],
  9.5: ["api", "What a client can expect"],
  10: ["api", "Compatibility"],
  10.1: ["api", "Timestamps and time zones"],
  10.2: ["dec", "Containers"],
  10.3: ["api", "Shipment resource"],
  10.4: ["api", "Milestones and attributes"],
  10.5: ["api", "Shipment resource"],
  10.6: ["api", "Terminal resource"],
  10.7: ["car", "Carrier registry"],
  10.8: ["mcp", "Compatibility with the reference server"],
  10.9: ["api", "Party resource"],
  "10.10": ["api", "Accounts and entitlements"],
  11: ["api", "Known defects of the reference"],
  12: ["dec", null],
};

/** TERMINAL-APIS.md sections → [doc, heading]. */
const TERMINAL = {
  1: ["term", "APM Terminals"],
  1.1: ["term", "APMT API"],
  1.2: ["term", "APMT authentication"],
  1.3: ["term", "APMT request"],
  1.4: ["term", "APMT facility codes"],
  1.5: ["term", "APMT responses and errors"],
  1.6: ["term", "APMT response fields"],
  "1.6a": ["term", "APMT response fields"],
  1.7: ["term", "APMT response fields"],
  1.8: ["term", "APMT empty returns"],
  1.9: ["term", "APMT mapping"],
  "1.10": ["term", "APMT mapping"],
  2: ["term", "LBCT"],
  2.1: ["term", "LBCT API"],
  2.2: ["term", "LBCT API"],
  2.3: ["term", "LBCT response"],
  2.4: ["term", "LBCT response"],
  2.5: ["term", "LBCT mapping"],
  3: ["term", "Port of Virginia"],
  3.1: ["term", "Port of Virginia API"],
  3.2: ["term", "Port of Virginia API"],
  3.3: ["term", "Port of Virginia fields"],
  3.4: ["term", "Port of Virginia terminal codes"],
  3.5: ["term", "Port of Virginia fields"],
  3.6: ["term", "Port of Virginia mapping"],
  4: ["term", "Other terminal sources"],
  5: ["term", "Other terminal sources"],
};

/** MCP.md sections → [doc, heading]. */
const MCP = {
  1: ["mcp", "Compatibility with the reference server"],
  1.1: ["mcp", "Transport"],
  1.2: ["mcp", "Server instructions"],
  1.3: ["mcp", "Compatibility with the reference server"],
  1.4: ["mcp", "Prompts"],
  1.5: ["mcp", "Completions"],
  1.6: ["mcp", "Resources"],
  1.7: ["mcp", "Compatibility with the reference server"],
  1.8: ["mcp", "Compatibility with the reference server"],
  1.9: ["mcp", "Where we go further"],
  2: ["mcp", "Conformance"],
  2.1: ["mcp", "Conformance"],
  2.2: ["mcp", "Conformance"],
  2.3: ["mcp", "Conformance"],
  2.4: ["mcp", "Conformance"],
  2.5: ["mcp", "Conformance"],
  2.6: ["mcp", "Conformance"],
  3: ["mcp", "Transport"],
  3.1: ["mcp", "Transport"],
  3.2: ["mcp", "Transport"],
  3.3: ["mcp", "Transport"],
  3.4: ["mcp", "Transport"],
  3.5: ["mcp", "stdio"],
};

const NUMBERED = { SPEC, DESIGN, "REFERENCE-SERVICE": R, "REFERENCE-SERVICE-MORE": {}, "TERMINAL-APIS": TERMINAL, MCP };

/**
 * Files whose bare `§n.m` continue a citation of TERMINAL-APIS.md made earlier in the same comment, by base name (so
 * the rule survives files moving between folders). Every other bare numbered `§` in a file that cites these documents
 * is reported for review.
 */
const BARE_CONTEXT = { "apmt.ts": "TERMINAL-APIS", "fake-apmt.ts": "TERMINAL-APIS", "fake-lbct.ts": "TERMINAL-APIS" };

/** README sections that moved, as cited (`README "Name"`, `README.md "Name"`, `README.md §Name`). */
const README_SECTIONS = {
  "REST client": ["api", "REST client"],
  "Connecting a real carrier": ["car", "Connecting a carrier"],
  "Connecting a real terminal": ["term", "Connecting a terminal"],
  Compatibility: ["api", "Compatibility"],
  MCP: ["mcp", null],
  "MCP stdio": ["mcp", "stdio"],
  Webhooks: ["hooks", "Receiving locally"],
  Endpoints: ["api", "Endpoints"],
  Configuration: ["conf", null],
  "Reference data": ["term", "Ports and terminals data"],
  "API keys": ["dep", "API keys"],
  Deploy: ["dep", null],
};

/** Other phrases that cite the README's old contents. */
const README_PHRASES = [
  { re: /(leases\.ts[;,] )README §Endpoints/g, to: (m) => `${m[1]}docs/api.md §Rate limits` },
  { re: /(→ see(?:\s*\n\s*(?:\*|\/\/)\s*|\s+))README\)/g, to: (m) => `${m[1]}docs/mcp.md §Tools)` },
  {
    re: /the figures measured are in the README\./g,
    to: () => "the figures measured are in docs/terminals.md §Ports and terminals data.",
  },
  { re: /the start banner and the README\./g, to: () => "the start banner and the docs." },
];

/** Mentions of ../shared as a place, not a file, and of "R" as the abbreviation of REFERENCE-SERVICE.md. */
const SHARED_PHRASES = [
  { re: /(cannot read |can read neither )\.\.\/shared\b/g, to: (m) => `${m[1]}data/` },
  { re: /\(REFERENCE-SERVICE\.md, "R"\)/g, to: () => "(docs/api.md §Compatibility)" },
];

/** ../shared/data files that were not copied, and where their content is now. */
const DATA_ELSEWHERE = {
  "dcsa-to-transport-events.csv": () => "docs/carriers.md §DCSA event mapping",
  "dcsa/TNT_v2.2.0-resolved.yaml": (after) =>
    /^\s*\(dcsaorg\//.test(after)
      ? "DCSA's TNT_v2.2.0-resolved.yaml"
      : "DCSA's TNT_v2.2.0-resolved.yaml (docs/carriers.md §DCSA Track & Trace)",
  "dcsa/": () => "DCSA's Track & Trace files (docs/carriers.md §DCSA Track & Trace)",
};

// ---- checks of the tables ------------------------------------------------------------------------------------------

const headings = new Map();
for (const [key, path] of Object.entries(DOC)) {
  const file = join(ROOT, path);
  if (!existsSync(file)) fail(`target ${path} does not exist`);
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  headings.set(key, new Set([...text.matchAll(/^#{2,4} (.+)$/gm)].map((m) => m[1].trim())));
}

function checkTarget([doc, heading], where) {
  if (!DOC[doc]) fail(`${where}: unknown doc ${doc}`);
  if (heading !== null && !headings.get(doc).has(heading)) fail(`${where}: ${DOC[doc]} has no heading "${heading}"`);
}
for (const [name, table] of Object.entries(NUMBERED))
  for (const [k, t] of Object.entries(table)) checkTarget(t, `${name} §${k}`);
for (const [name, list] of Object.entries(NAMED)) for (const [k, t] of list) checkTarget(t, `${name} §${k}`);
for (const [k, t] of Object.entries(README_SECTIONS)) checkTarget(t, `README "${k}"`);
for (const p of SPEC_PHRASES) checkTarget(p.target, `SPEC §${p.section} phrase`);
for (const label of DESIGN_LABELS) checkTarget(["arch", label], `DESIGN label ${label}`);
for (const [k, t] of Object.entries(WHOLE)) checkTarget(t, `whole ${k}`);
checkTarget(["car", "DCSA event mapping"], "data");
checkTarget(["car", "DCSA Track & Trace"], "data");
checkTarget(["mcp", "Tools"], "README phrase");
checkTarget(["term", "Ports and terminals data"], "README phrase");

function fail(message) {
  console.error(`rewrite-doc-citations: ${message}`);
  process.exit(2);
}

// ---- scanning ------------------------------------------------------------------------------------------------------

const DOC_NAMES = "REFERENCE-SERVICE-MORE|REFERENCE-SERVICE|TERMINAL-APIS|DECISIONS|DESIGN|STYLE|SPEC|MCP";
/** A cited document: `SPEC.md`, `../shared/DESIGN.md`, `../shared/reference/MCP.md`, or the abbreviation `R`. */
const CITE = new RegExp(
  `(?<![\\w/.-])(?:(?:\\.\\./shared/|/work/shared/)(?:reference/)?)?(${DOC_NAMES})\\.md(?![\\w-])|(?<![\\w/.-])(?:SPEC )?R(?= §)`,
  "g",
);
/** Whitespace between a document and its section, across one comment line break at most. */
const GAP = /^[ \t]*(?:\r?\n[ \t]*(?:\*|\/\/|#)?[ \t]*)?/;
/** Separators between the sections of one chain; up to two lower-case words may qualify a section (`§2.4 note, §3.4`). */
const CHAIN_SEP = /^(?:(?:[ \t]+[a-z]+){0,2}[ \t]*(?:,|\band\b|&)[ \t]*(?:\r?\n[ \t]*(?:\*|\/\/|#)?[ \t]*)?|\/)(?=§)/;
const NUM = String.raw`\d+(?:\.\d+)*[a-z]?`;
/** What comes before a `§` that cites another standard, not one of the old documents (RFC 9110 §15.5.6, …). */
const OTHER_STANDARD =
  /(?:RFC \d{3,4}|[Ii]ssue \d+|JSON:API(?: 1\.[01])?|JSON-RPC 2\.0|MCP \d{4}-\d\d-\d\d|ISO \d+|bench\/README\.md)[ \t]*(?:\r?\n[ \t]*(?:\*|\/\/)?[ \t]*)?$/;
const NUMBERED_SECTION = new RegExp(`^§(${NUM})(?:–§?(${NUM}))?`);

/** Numbers of a range `a–b` with a common prefix (`3.11–3.13` → 3.11, 3.12, 3.13; `1–3` → 1, 2, 3). */
function expandRange(a, b) {
  if (!b) return [a];
  const pa = a.split(".");
  const pb = b.split(".");
  if (pa.length !== pb.length || pa.slice(0, -1).join(".") !== pb.slice(0, -1).join(".")) return [a, b];
  const from = Number(pa.at(-1));
  const to = Number(pb.at(-1));
  if (!Number.isInteger(from) || !Number.isInteger(to) || to < from || to - from > 20) return [a, b];
  const head = pa.slice(0, -1);
  return Array.from({ length: to - from + 1 }, (_, i) => [...head, String(from + i)].join("."));
}

/** The TS/JS string literals of a file, as [start, end) ranges, to tell served text from comments. */
function stringRanges(file, text) {
  if (!/\.(?:[cm]?[jt]s|tsx)$/.test(file)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, false);
  const ranges = [];
  const visit = (node) => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      node.kind === ts.SyntaxKind.TemplateHead ||
      node.kind === ts.SyntaxKind.TemplateMiddle ||
      node.kind === ts.SyntaxKind.TemplateTail
    ) {
      ranges.push([node.getStart(source), node.end]);
    }
    ts.forEachChild(node, visit);
    if (ts.isTemplateExpression(node)) {
      ranges.push([node.head.getStart(source), node.head.end]);
      for (const span of node.templateSpans) ranges.push([span.literal.getStart(source), span.literal.end]);
    }
  };
  visit(source);
  return ranges;
}

/**
 * Every rewrite of one file: `{start, end, replacement, original, mapped}`, plus the citations that cannot be mapped.
 * Positions are in the original text; rewrites never overlap.
 */
function scan(file, text) {
  const edits = [];
  const unmapped = [];
  const taken = [];
  const isTaken = (i) => taken.some(([a, b]) => i >= a && i < b);
  const push = (start, end, replacement, mapped = true) => {
    edits.push({ start, end, replacement, original: text.slice(start, end), mapped });
    taken.push([start, end]);
  };
  const base = basename(file);
  const targetText = ([doc, heading]) => (heading === null ? DOC[doc] : `${DOC[doc]} §${heading}`);

  // ../shared/data/… and scripts/data/…
  for (const m of text.matchAll(/(?:\.\.\/shared|\/work\/shared)\/data(\/[\w.*/-]*[\w*/])?/g)) {
    const rest = (m[1] ?? "").replace(/^\//, "");
    const after = text.slice(m.index + m[0].length);
    const elsewhere = DATA_ELSEWHERE[rest];
    let replacement = null;
    if (elsewhere) replacement = elsewhere(after);
    else if (rest === "" || dataExists(rest)) replacement = `data/${rest}`;
    if (replacement) push(m.index, m.index + m[0].length, replacement);
    else unmapped.push({ index: m.index, text: m[0], why: "no such file in data/" });
  }
  for (const { re, to } of SHARED_PHRASES)
    for (const m of text.matchAll(re)) push(m.index, m.index + m[0].length, to(m));
  for (const m of text.matchAll(/scripts\/data\/inland-rail\.csv/g))
    push(m.index, m.index + m[0].length, "data/inland-rail.csv");

  // README phrases and sections
  for (const { re, to } of README_PHRASES)
    for (const m of text.matchAll(re)) push(m.index, m.index + m[0].length, to(m));
  for (const m of text.matchAll(
    /(?<![\w/.-])README(?:\.md)?\s*(?:"([^"\n]+)"|§([A-Za-z][\w ]*?)(?=[\s.,;:)]*(?:\s(?:shows|for|lists)\b|[.,;:)]|$)))/gm,
  )) {
    if (isTaken(m.index)) continue;
    const name = (m[1] ?? m[2]).trim();
    const target = README_SECTIONS[name];
    if (target) push(m.index, m.index + m[0].length, targetText(target));
    else unmapped.push({ index: m.index, text: m[0], why: "README section not in README_SECTIONS" });
  }

  // SPEC.md, DECISIONS.md, …, R
  for (const m of text.matchAll(CITE)) {
    if (isTaken(m.index)) continue;
    const name = m[1] ?? "REFERENCE-SERVICE";
    const docEnd = m.index + m[0].length;
    const chain = parseChain(name, text, docEnd, file);
    if (chain.items.length === 0) {
      push(m.index, docEnd, targetText(WHOLE[name]));
      continue;
    }
    const bad = chain.items.filter((it) => it.targets.length === 0);
    for (const it of bad)
      unmapped.push({ index: it.start, text: text.slice(m.index, it.end), why: `no target for ${name} §${it.key}` });
    if (bad.length > 0) continue;
    push(m.index, chain.end, renderChain(text, docEnd, chain, targetText));
  }

  // Bare `§n.m` continuing a TERMINAL-APIS.md citation
  const context = BARE_CONTEXT[base];
  for (const m of text.matchAll(/§\d+\.\d+[a-z]?/g)) {
    if (isTaken(m.index) || OTHER_STANDARD.test(text.slice(Math.max(0, m.index - 40), m.index))) continue;
    if (!context) {
      if (edits.length > 0 || unmapped.length > 0)
        unmapped.push({
          index: m.index,
          text: m[0],
          why: "bare § in a file citing the old documents: which document?",
        });
      continue;
    }
    const chain = parseChain(context, text, m.index, file, true);
    const bad = chain.items.filter((it) => it.targets.length === 0);
    for (const it of bad)
      unmapped.push({
        index: it.start,
        text: text.slice(it.start, it.end),
        why: `no target for ${context} §${it.key}`,
      });
    if (bad.length > 0 || chain.items.length === 0) continue;
    push(
      m.index,
      chain.end,
      renderChain(text, m.index, chain, ([, heading]) => `§${heading}`, true),
    );
  }

  // Anything of ../shared left
  for (const m of text.matchAll(/\.\.\/shared\b|\/work\/shared\b/g))
    if (!isTaken(m.index)) unmapped.push({ index: m.index, text: m[0], why: "a ../shared path no rule covers" });

  edits.sort((a, b) => a.start - b.start);
  return { edits: joinNeighbours(text, edits), unmapped, count: edits.length };
}

/**
 * Two citations side by side (`, ` or `; ` between them) that now say the same thing become one (`SPEC.md §4.6, R
 * §3.10` → `docs/api.md §Infer number`), and a second one in the same document drops its path (`docs/api.md §A,
 * docs/api.md §B` → `docs/api.md §A, §B`).
 */
function joinNeighbours(text, edits) {
  const out = [];
  for (const e of edits) {
    const prev = out.at(-1);
    const between = prev ? text.slice(prev.end, e.start) : null;
    if (prev?.mapped && e.mapped && (between === ", " || between === "; ")) {
      if (e.replacement === prev.replacement || prev.replacement.endsWith(`, ${e.replacement}`)) {
        prev.end = e.end;
        prev.original = text.slice(prev.start, prev.end);
        continue;
      }
      const doc = /^docs\/[\w-]+\.md /.exec(e.replacement)?.[0];
      const prevDocs = prev.replacement.match(/docs\/[\w-]+\.md /g) ?? [];
      if (between === ", " && doc && prevDocs.at(-1) === doc) e.replacement = e.replacement.slice(doc.length);
    }
    out.push(e);
  }
  return out;
}

function dataExists(rest) {
  if (rest.includes("*")) {
    const dir = join(ROOT, "data", dirname(rest));
    const pattern = new RegExp(`^${basename(rest).replace(/[.]/g, "\\.").replace(/\*/g, ".*")}$`);
    return existsSync(dir) && readdirSync(dir).some((f) => pattern.test(f));
  }
  return existsSync(join(ROOT, "data", rest));
}

/**
 * The sections cited after a document (from `from`): `{items: [{start, end, key, targets, labelEnd?}], end}`. An
 * item's targets are the [doc, heading] pairs it maps to (a range maps each section it spans).
 */
function parseChain(name, text, from, file, bare = false) {
  const items = [];
  let i = from;
  let first = true;
  for (;;) {
    let j = i;
    if (first) {
      if (!bare) j += GAP.exec(text.slice(i))[0].length;
    } else {
      const sepMatch = CHAIN_SEP.exec(text.slice(i));
      if (!sepMatch) break;
      j += sepMatch[0].length;
    }
    if (text[j] !== "§") break;
    const item = parseSection(name, text, j, file);
    if (!item) break;
    items.push(item);
    i = item.end;
    first = false;
  }
  return { items, end: i };
}

function parseSection(name, text, at, file) {
  const rest = text.slice(at);
  if (NAMED[name]) {
    for (const [old, target] of NAMED[name]) {
      if (rest.startsWith(`§${old}`) && !/^[\w]/.test(rest.slice(old.length + 1))) {
        return { start: at, end: at + old.length + 1, key: old, targets: [target] };
      }
    }
    return { start: at, end: at + 1 + (/^§(\S*)/.exec(rest)?.[1].length ?? 0), key: rest.slice(1, 20), targets: [] };
  }
  const table = NUMBERED[name];
  const m = NUMBERED_SECTION.exec(rest);
  if (!m) return null;
  let end = at + m[0].length;
  const after = text.slice(end);
  if (name === "DESIGN") {
    const sub = /^ (Sources|cron)\b/.exec(after);
    if (sub && DESIGN[`${m[1]} ${sub[1]}`]) {
      return { start: at, end: end + sub[0].length, key: `${m[1]} ${sub[1]}`, targets: [DESIGN[`${m[1]} ${sub[1]}`]] };
    }
    const label = /^[ \t]*"([^"]*)"/.exec(after);
    if (m[1] === "10" && label) {
      const normal = label[1].replace(/\s*\r?\n[ \t]*(?:\*|\/\/)?[ \t]*/g, " ").trim();
      if (DESIGN_LABELS.includes(normal))
        return { start: at, end: end + label[0].length, key: `10 "${normal}"`, targets: [["arch", normal]] };
    }
  }
  if (name === "SPEC") {
    for (const p of SPEC_PHRASES) {
      if (p.section !== m[1]) continue;
      if (p.startsWith && !after.startsWith(p.startsWith)) continue;
      if (p.fileIncludes && !file.includes(p.fileIncludes)) continue;
      if (p.consume) end += p.consume.length;
      return { start: at, end, key: m[1], targets: [p.target] };
    }
  }
  const keys = expandRange(m[1], m[2]);
  const targets = [];
  for (const k of keys) {
    const t = table[k];
    if (!t) return { start: at, end, key: m[0].slice(1), targets: [] };
    if (!targets.some((x) => x[0] === t[0] && x[1] === t[1])) targets.push(t);
  }
  return { start: at, end, key: m[0].slice(1), targets };
}

/**
 * The new text of a chain: the first target with its document, the others `§Heading` when in the same document as the
 * one before, else with their own; a section already named in the chain is dropped with the separator before it.
 */
function renderChain(text, docEnd, chain, targetText, bare = false) {
  let out = "";
  let lastDoc = null;
  const seen = new Set();
  let cursor = docEnd;
  chain.items.forEach((item, n) => {
    // Kept as written: the gap between the document and its first section (a space, or a comment line break, so
    // lines keep their length) and the separators between sections.
    const between = text.slice(cursor, item.start);
    const parts = [];
    for (const t of item.targets) {
      const id = `${t[0]}#${t[1]}`;
      if (seen.has(id)) continue;
      seen.add(id);
      if (bare) parts.push(targetText(t));
      else if (n === 0 && parts.length === 0) parts.push(t[1] === null ? DOC[t[0]] : `${DOC[t[0]]}${between}§${t[1]}`);
      else if (t[0] === lastDoc && t[1] !== null) parts.push(`§${t[1]}`);
      else parts.push(`${DOC[t[0]]}${t[1] === null ? "" : ` §${t[1]}`}`);
      lastDoc = t[0];
    }
    if (n === 0) out += (bare ? between : "") + parts.join(", ");
    else if (parts.length > 0) out += between + parts.join(", ");
    cursor = item.end;
  });
  return out;
}

// ---- rewrapping ----------------------------------------------------------------------------------------------------

/** Longest line a comment may have after a rewrite (Biome's line width; it formats code, not comments). */
const WIDTH = 120;
/** A comment line: its marker (`//`, ` *`, `#`) with the space after it, then its text. */
const COMMENT_LINE = /^(\s*(?:\/\/|\*|#)[ \t]?)(.*)$/;
/** The same in JavaScript and TypeScript, where a line starting with `#` is code (a private member). */
const JS_COMMENT_LINE = /^(\s*(?:\/\/|\*)[ \t]?)(.*)$/;
/** Text that starts a new paragraph rather than continuing one: a list item, a JSDoc tag, the end of a JSDoc block. */
const STARTS_PARAGRAPH = /^(?:[-*] |\d+\. |@|\/|$)/;

/**
 * Comment lines a rewrite made longer than {@link WIDTH} (`touched`: offsets in `text` just after each rewrite) are
 * rewrapped by moving their last words to the start of the next line of the same paragraph (or a new line with the
 * same indentation), cascading down; words are never split, nor a `code span`. Code is left to Biome.
 */
function rewrapComments(text, touched, commentLine) {
  const lines = text.split("\n");
  const starts = [];
  let at = 0;
  for (const l of lines) {
    starts.push(at);
    at += l.length + 1;
  }
  const lineAt = (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
  const indexes = [...new Set(touched.map(lineAt))].sort((a, b) => b - a);
  for (const i of indexes) {
    // A one-line JSDoc comment that grew too long becomes a block, whose text is then rewrapped.
    const one = /^(\s*)\/\*\* (.*) \*\/$/.exec(lines[i]);
    if (one && lines[i].length > WIDTH) {
      lines.splice(i, 1, `${one[1]}/**`, `${one[1]} * ${one[2]}`, `${one[1]} */`);
      pushDown(lines, i + 1, commentLine);
    } else pushDown(lines, i, commentLine);
  }
  return lines.join("\n");
}

/** Every heading of docs/, longest first: a citation `§Heading` is never split across lines. */
const ALL_HEADINGS = [...new Set([...headings.values()].flatMap((set) => [...set]))].sort(
  (a, b) => b.length - a.length,
);

/** [start, end) of each `docs/x.md §Heading` or `§Heading` citation in a line. */
function citationSpans(body) {
  const spans = [];
  for (let at = body.indexOf("§"); at >= 0; at = body.indexOf("§", at + 1)) {
    const heading = ALL_HEADINGS.find((h) => body.startsWith(h, at + 1));
    if (!heading) continue;
    const doc = /docs\/[\w-]+\.md $/.exec(body.slice(0, at));
    spans.push([doc ? at - doc[0].length : at, at + 1 + heading.length]);
  }
  return spans;
}

function pushDown(lines, i, commentLine) {
  for (let guard = 0; guard < 200 && i < lines.length; guard++) {
    const line = lines[i];
    if (line.length <= WIDTH) return;
    const m = commentLine.exec(line);
    if (!m) return;
    const marker = m[1];
    const body = m[2];
    // Continuation indent: a list item's text, or the line's own leading spaces.
    const indent = /^(?:[-*] |\d+\. )/.exec(body)?.[0].replace(/./g, " ") ?? /^ */.exec(body)[0];
    const keep = citationSpans(body);
    let split = -1;
    for (let k = WIDTH - marker.length; k > indent.length; k--) {
      if (
        body[k] === " " &&
        (body.slice(0, k).split("`").length - 1) % 2 === 0 &&
        !keep.some(([a, b]) => k > a && k < b)
      ) {
        split = k;
        break;
      }
    }
    if (split < 0) return;
    const overflow = body.slice(split + 1).trimEnd();
    lines[i] = marker + body.slice(0, split).trimEnd();
    const next = lines[i + 1];
    const n = next === undefined ? null : commentLine.exec(next);
    const continues =
      n !== null &&
      n[1] === marker &&
      n[2].startsWith(indent) &&
      !n[2].slice(indent.length).startsWith(" ") &&
      !STARTS_PARAGRAPH.test(n[2].slice(indent.length));
    if (continues) lines[i + 1] = `${marker}${indent}${overflow} ${n[2].slice(indent.length)}`;
    else lines.splice(i + 1, 0, `${marker}${indent}${overflow}`);
    i++;
  }
}

// ---- files ---------------------------------------------------------------------------------------------------------

const SKIP_DIRS = new Set(["node_modules", ".git", ".wrangler", "dist", "migrations", "data", "docs", "results"]);
const SKIP_FILES = [
  /^src\/reference\/generated\//,
  /^test\/contract\/.*\.generated\./,
  /^test\/contract\/reference\.schema\.json$/,
];
const EXTENSIONS = /\.(?:[cm]?[jt]s|tsx|md|toml|ya?ml|json|sql|sh)$|^run$/;

function* walk(path) {
  const rel = relative(ROOT, path).split(sep).join("/");
  const st = statSync(path);
  if (st.isDirectory()) {
    if (SKIP_DIRS.has(basename(path)) && rel !== "") return;
    for (const entry of readdirSync(path).sort()) yield* walk(join(path, entry));
    return;
  }
  if (rel === SELF || SKIP_FILES.some((re) => re.test(rel)) || !EXTENSIONS.test(basename(path))) return;
  yield rel;
}

const args = process.argv.slice(2);
const write = args.includes("--write");
const list = args.includes("--list");
const strings = args.includes("--strings");
const paths = args.filter((a) => !a.startsWith("--"));
if (paths.length === 0) {
  console.error("usage: node scripts/rewrite-doc-citations.mjs [--write] [--list] [--strings] <file or folder>...");
  process.exit(2);
}

const lineOf = (text, index) => text.slice(0, index).split("\n").length;
let found = 0;
let rewritten = 0;
let held = 0;
let files = 0;
const unmappedAll = [];
const heldAll = [];
for (const p of paths) {
  const abs = resolve(p);
  if (!existsSync(abs)) fail(`${p} does not exist`);
  for (const rel of walk(abs)) {
    const text = readFileSync(join(ROOT, rel), "utf8");
    const { edits, unmapped, count } = scan(rel, text);
    found += count + unmapped.length;
    for (const u of unmapped) unmappedAll.push(`${rel}:${lineOf(text, u.index)}: ${JSON.stringify(u.text)} (${u.why})`);
    if (edits.length === 0) continue;
    const served = rel.startsWith("src/") && !strings ? stringRanges(rel, text) : [];
    const inString = (e) => served.some(([a, b]) => e.start >= a && e.end <= b);
    let out = "";
    let cursor = 0;
    let changed = 0;
    const touched = [];
    for (const e of edits) {
      const line = lineOf(text, e.start);
      if (inString(e)) {
        held++;
        heldAll.push(`${rel}:${line}: ${JSON.stringify(e.original)} → ${JSON.stringify(e.replacement)}`);
        continue;
      }
      if (list) console.log(`${rel}:${line}: ${JSON.stringify(e.original)} → ${JSON.stringify(e.replacement)}`);
      out += text.slice(cursor, e.start) + e.replacement;
      cursor = e.end;
      touched.push(out.length);
      changed++;
    }
    out += text.slice(cursor);
    const literals = stringRanges(rel, out);
    out = rewrapComments(
      out,
      touched.filter((at) => !literals.some(([a, b]) => at > a && at <= b)),
      /\.(?:[cm]?[jt]s|tsx)$/.test(rel) ? JS_COMMENT_LINE : COMMENT_LINE,
    );
    rewritten += changed;
    if (changed > 0) files++;
    if (write && changed > 0) writeFileSync(join(ROOT, rel), out);
  }
}

if (heldAll.length > 0) {
  console.log(`\nheld back (string literals under src/, served as OpenAPI or MCP text; --strings rewrites them):`);
  for (const h of heldAll) console.log(`  ${h}`);
}
if (unmappedAll.length > 0) {
  console.log(`\nunmapped:`);
  for (const u of unmappedAll) console.log(`  ${u}`);
}
console.log(
  `\nrewrite-doc-citations: ${found} citations found, ${found - unmappedAll.length} mapped, ${unmappedAll.length} unmapped; ${rewritten} rewrites ${write ? "made" : "to make"} in ${files} files (neighbouring citations that now say the same are joined), ${held} held back in served strings${write ? "" : " (dry run: nothing written)"}`,
);
if (write && rewritten > 0)
  console.log(
    "then: npm run format (a test name or string that grew may need rewrapping; comments were rewrapped here)",
  );
process.exit(unmappedAll.length > 0 ? 1 : 0);
