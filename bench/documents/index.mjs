// bench/documents: documents per second through the whole upload flow, as a ratio of a bare upload of the same bytes
// (docs/api.md §Documents "Upload flow"), against `wrangler dev` with local D1 and R2.
//
// Bare upload: the signed PUT alone (bytes streamed into R2, size and MD5 checked); its reservations are made before
// the clock starts. Document: reserve (POST /rails/active_storage/direct_uploads) + PUT + POST /v2/documents (which
// also queues the extraction). Both run the same number of files of the same size, sequentially and then with a few
// in flight, alternating rounds so machine load hits both alike. Prints files/s of each and the ratio document ÷ bare.
import { createHash, randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { join } from "node:path";
import { benchOptions } from "../lib/options.mjs";
import { fmt, machine, printTable, sourceVersion, writeResult } from "../lib/report.mjs";
import { execStatements, generateTestKey, hashKey, isoSeconds, openForBulkLoad, uuidv7At } from "../lib/seed.mjs";
import { applyMigrations, d1SqliteFile, ROOT, startDev, wipePersistDir } from "../lib/wrangler.mjs";

export const description = "Documents: reserve + upload + create per second, as a ratio of a bare signed upload";

export const usage = `bench documents options (or the environment variable in brackets):
  --files N        files per round and path (BENCH_DOCUMENT_FILES, default 40)
  --kib N          size of each file in KiB (BENCH_DOCUMENT_KIB, default 200)
  --rounds N       alternating rounds; medians are reported (BENCH_ROUNDS, default 3)
  --concurrency N  files in flight in the concurrent pass (BENCH_CONCURRENCY, default 4)`;

function options(argv) {
  const { num } = benchOptions(argv, {
    files: { type: "string" },
    kib: { type: "string" },
    rounds: { type: "string" },
    concurrency: { type: "string" },
  });
  return {
    files: Math.floor(num("files", "BENCH_DOCUMENT_FILES", 40)),
    kib: Math.floor(num("kib", "BENCH_DOCUMENT_KIB", 200)),
    rounds: Math.floor(num("rounds", "BENCH_ROUNDS", 3)),
    concurrency: Math.floor(num("concurrency", "BENCH_CONCURRENCY", 4)),
  };
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A distinct PDF-looking file of `kib` KiB (distinct bytes, so no upload is a duplicate). */
function file(kib) {
  const bytes = randomBytes(kib * 1024);
  bytes.write("%PDF-1.4\n", 0, "latin1");
  return { bytes, md5: createHash("md5").update(bytes).digest("base64") };
}

async function reserve(base, key, f) {
  const res = await fetch(`${base}/rails/active_storage/direct_uploads`, {
    method: "POST",
    headers: { Authorization: `Token ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      blob: { filename: "bench.pdf", content_type: "application/pdf", byte_size: f.bytes.length, checksum: f.md5 },
    }),
  });
  if (res.status !== 200) throw new Error(`reserve: ${res.status} ${await res.text()}`);
  return res.json();
}

async function put(blob, f) {
  const res = await fetch(blob.direct_upload.url, {
    method: "PUT",
    headers: { "Content-Type": "application/pdf", "Content-MD5": f.md5 },
    body: f.bytes,
  });
  await res.arrayBuffer();
  if (res.status !== 204) throw new Error(`PUT: ${res.status}`);
}

async function create(base, key, blob) {
  const res = await fetch(`${base}/v2/documents`, {
    method: "POST",
    headers: { Authorization: `Token ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify({
      data: { type: "document", attributes: { name: "bench", attached_document: blob.signed_id } },
    }),
  });
  await res.arrayBuffer();
  if (res.status !== 201) throw new Error(`create: ${res.status}`);
}

/** Runs `work(i)` for i < n with `concurrency` in flight; resolves with the elapsed ms. */
async function timed(n, concurrency, work) {
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) await work(next++);
    }),
  );
  return performance.now() - t0;
}

const median = (v) => {
  const s = [...v].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

export async function run(argv) {
  const opts = options(argv);
  const persistDir = join(ROOT, ".wrangler", "bench-documents");
  wipePersistDir(persistDir);
  await applyMigrations(persistDir);
  const key = generateTestKey();
  const accountId = uuidv7At(Date.now());
  const db = openForBulkLoad(d1SqliteFile(persistDir));
  const now = isoSeconds(Date.now());
  execStatements(db, [
    `INSERT INTO accounts (id, name, entitlements, created_at) VALUES ('${accountId}', 'bench', '[]', '${now}')`,
    `INSERT INTO api_keys (id, account_id, name, key_hash, prefix, created_at) VALUES ('${uuidv7At(Date.now())}', '${accountId}', 'bench', '${hashKey(key)}', '${key.slice(0, 13)}', '${now}')`,
  ]);
  db.close();
  const port = await freePort();
  const dev = await startDev({
    persistDir,
    port,
    logFile: join(persistDir, "wrangler.log"),
    vars: { DOCUMENT_SIGNING_KEY: randomBytes(32).toString("hex"), RATE_LIMIT_DEFAULT: "1000000" },
  });
  const results = [];
  try {
    for (const concurrency of [1, opts.concurrency]) {
      const bare = [];
      const full = [];
      for (let round = 0; round < opts.rounds; round++) {
        const filesBare = Array.from({ length: opts.files }, () => file(opts.kib));
        const blobs = [];
        for (const f of filesBare) blobs.push(await reserve(dev.baseUrl, key, f));
        bare.push(await timed(opts.files, concurrency, (i) => put(blobs[i], filesBare[i])));
        const filesFull = Array.from({ length: opts.files }, () => file(opts.kib));
        full.push(
          await timed(opts.files, concurrency, async (i) => {
            const blob = await reserve(dev.baseUrl, key, filesFull[i]);
            await put(blob, filesFull[i]);
            await create(dev.baseUrl, key, blob);
          }),
        );
      }
      const bareRate = (opts.files * 1000) / median(bare);
      const fullRate = (opts.files * 1000) / median(full);
      results.push({ concurrency, bareRate, fullRate, ratio: fullRate / bareRate });
    }
  } finally {
    await dev.stop();
  }
  console.log(`${opts.files} files of ${opts.kib} KiB per round, ${opts.rounds} rounds (medians)`);
  printTable(
    ["in flight", "bare uploads/s", "documents/s", "documents ÷ bare"],
    results.map((r) => [r.concurrency, fmt(r.bareRate, 1), fmt(r.fullRate, 1), fmt(r.ratio, 2)]),
  );
  const out = writeResult("documents", { options: opts, machine: machine(), source: sourceVersion(), results });
  console.log(`\nresults: ${out}`);
  return 0;
}
