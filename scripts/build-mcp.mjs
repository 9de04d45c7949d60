#!/usr/bin/env node
// `npm run build:mcp`: bundles the stdio MCP relay (src/mcp/stdio.ts: the SDK's stdio server and streamable-HTTP
// client transports, piping MCP to the service's /mcp) into one ESM file, dist/mcp-stdio.mjs, that runs on Node 18 or
// later with no other files: the package's `container-tracking-mcp` bin. esbuild comes with wrangler.
import { chmodSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/** The built stdio server (package.json `bin.container-tracking-mcp`). */
export const STDIO_BIN = join(ROOT, "dist", "mcp-stdio.mjs");

/**
 * Builds {@link STDIO_BIN}. CommonJS dependencies bundled into ESM may `require` Node built-ins at run time, so the
 * banner gives the module a `require`.
 * @returns {Promise<string>} the output path
 * @throws {Error} with esbuild's messages when the build fails
 */
export async function buildStdioServer() {
  await build({
    // src/mcp/stdio.ts only exports (tests import it); the bin's entry calls its main.
    stdin: {
      contents: [
        'import { runStdioServer } from "./src/mcp/stdio.ts";',
        "runStdioServer().catch((err) => {",
        '  console.error("container-tracking-mcp: " + (err?.stack ?? err));',
        "  process.exit(1);",
        "});",
      ].join("\n"),
      resolveDir: ROOT,
      sourcefile: "container-tracking-mcp.ts",
      loader: "ts",
    },
    outfile: STDIO_BIN,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node18",
    legalComments: "none",
    logLevel: "warning",
    banner: {
      js: [
        "#!/usr/bin/env node",
        'import { createRequire as __createRequire } from "node:module";',
        "const require = __createRequire(import.meta.url);",
      ].join("\n"),
    },
  });
  chmodSync(STDIO_BIN, 0o755);
  return STDIO_BIN;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  buildStdioServer().then(
    (out) => console.log(`built ${relative(ROOT, out)}`),
    (err) => {
      console.error(`build:mcp failed: ${err?.message ?? err}`);
      process.exit(1);
    },
  );
}
