// What makes the Worker bundle's size, from the esbuild metafile `wrangler deploy --dry-run --metafile` writes:
// bytes in the output per package and per module, packages bundled from two directories (two versions or two
// copies), known overlapping families (two majors of one library, two generations of one SDK), and why a module is
// in the bundle at all (the shortest import chain from the entry point, with each step's kind: a static
// `import-statement`, a `require-call` or a `dynamic-import`).

/**
 * The package a bundled input path belongs to (`zod`, `@scope/name`), or `(src) <first two path segments>` for the
 * project's own files, and the directory it was bundled from (so two copies of one package are told apart).
 * @param {string} path an input path of the metafile (relative to the working directory, e.g. `../x/node_modules/zod/v4/core/core.js`)
 * @returns {{ name: string, root: string }}
 */
export function packageOf(path) {
  const at = path.lastIndexOf("node_modules/");
  if (at === -1) {
    const parts = path.split("/");
    const name = `(src) ${parts.slice(0, Math.min(2, parts.length - 1)).join("/") || parts[0]}`;
    return { name, root: "" };
  }
  const rest = path.slice(at + "node_modules/".length).split("/");
  const name = rest[0].startsWith("@") ? `${rest[0]}/${rest[1]}` : rest[0];
  return { name, root: path.slice(0, at + "node_modules/".length) + name };
}

/**
 * Families of modules that do the same job twice when both are bundled: a library's two majors shipped in one
 * package (`zod/v3` beside `zod/v4`), or one SDK's two generations (the MCP SDK v1 `@modelcontextprotocol/sdk` and
 * v2 `@modelcontextprotocol/server`/`client`/`core`). Each member matches input paths by substring.
 */
export const OVERLAPPING_FAMILIES = [
  { family: "zod 3 and zod 4 (one package, two majors)", members: ["node_modules/zod/v3/", "node_modules/zod/v4/"] },
  {
    family: "MCP SDK v1 and v2",
    members: [
      "node_modules/@modelcontextprotocol/sdk/",
      "node_modules/@modelcontextprotocol/server/",
      "node_modules/@modelcontextprotocol/client/",
      "node_modules/@modelcontextprotocol/core/",
    ],
  },
  {
    family: "JSON Schema validators",
    members: ["node_modules/ajv/", "node_modules/ajv-formats/", "node_modules/@cfworker/json-schema/"],
  },
  {
    family: "date libraries",
    members: ["node_modules/moment/", "node_modules/moment-timezone/", "node_modules/luxon/", "node_modules/dayjs/"],
  },
];

/**
 * Shortest import chains from the entry point to every input (breadth-first over the metafile's imports).
 * @returns {Map<string, { from: string, kind: string } | null>} each input's predecessor on its shortest chain
 */
function shortestChains(meta, entry) {
  const prev = new Map([[entry, null]]);
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift();
    for (const imp of meta.inputs[file]?.imports ?? []) {
      if (!imp.path || !meta.inputs[imp.path] || prev.has(imp.path)) continue;
      prev.set(imp.path, { from: file, kind: imp.kind });
      queue.push(imp.path);
    }
  }
  return prev;
}

/**
 * The import chain that brings `target` into the bundle, entry first: `[{ path, kind }]`, `kind` being how the step
 * was imported (absent on the entry). A chain with a `dynamic-import` step is evaluated only when that import runs
 * (esbuild wraps the module in a lazy initializer), though its bytes are in the one bundle all the same.
 */
export function chainTo(prev, target) {
  const chain = [];
  for (let at = target; at; ) {
    const step = prev.get(at);
    chain.push({ path: at, kind: step?.kind });
    at = step?.from;
  }
  return chain.reverse();
}

/**
 * Summarises a metafile.
 * @param {object} meta the parsed metafile
 * @param {{ top?: number }} [options] rows per table (default 20)
 * @returns {{ outputBytes: number, inputs: number, packages: Array<{ name: string, bytes: number, modules: number,
 *   lazy: boolean, via: string }>, modules: Array<{ path: string, bytes: number }>, duplicates: Array<{ name: string,
 *   copies: Array<{ root: string, bytes: number }> }>, overlapping: Array<{ family: string, members: Array<{ member:
 *   string, bytes: number }> }> }} `lazy`: every module of the package is reached only through a dynamic import;
 *   `via`: the chain to its largest module, shortened to the project's files and package boundaries
 */
export function analyseMetafile(meta, { top = 20 } = {}) {
  const [, output] = Object.entries(meta.outputs).find(([file, o]) => file.endsWith(".js") && o.entryPoint);
  const prev = shortestChains(meta, output.entryPoint);
  const packages = new Map();
  const roots = new Map();
  for (const [path, input] of Object.entries(output.inputs)) {
    const { name, root } = packageOf(path);
    const p = packages.get(name) ?? { name, bytes: 0, modules: 0, largest: null, largestBytes: -1 };
    p.bytes += input.bytesInOutput;
    p.modules += 1;
    if (input.bytesInOutput > p.largestBytes) {
      p.largest = path;
      p.largestBytes = input.bytesInOutput;
    }
    packages.set(name, p);
    if (root) {
      const copies = roots.get(name) ?? new Map();
      copies.set(root, (copies.get(root) ?? 0) + input.bytesInOutput);
      roots.set(name, copies);
    }
  }
  const describeChain = (path) => {
    const chain = chainTo(prev, path);
    const lazy = chain.some((s) => s.kind === "dynamic-import");
    // Keep the project's files and the first file of each package on the way.
    const steps = [];
    let last = null;
    for (const s of chain) {
      const { name } = packageOf(s.path);
      const here = name.startsWith("(src)") ? s.path.replace(/^.*?src\//, "src/") : name;
      const mark = s.kind === "dynamic-import" ? " (dynamic)" : s.kind === "require-call" ? " (require)" : "";
      if (here !== last) steps.push(`${here}${mark}`);
      last = here;
    }
    return { lazy, via: steps.join(" → ") };
  };
  const packageRows = [...packages.values()]
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top)
    .map((p) => ({ name: p.name, bytes: p.bytes, modules: p.modules, ...describeChain(p.largest) }));
  const modules = Object.entries(output.inputs)
    .map(([path, input]) => ({ path: path.replace(/^(\.\.\/)+[^/]+\//, ""), bytes: input.bytesInOutput }))
    .sort((a, b) => b.bytes - a.bytes)
    .slice(0, top);
  const duplicates = [...roots.entries()]
    .filter(([, copies]) => copies.size > 1)
    .map(([name, copies]) => ({ name, copies: [...copies.entries()].map(([root, bytes]) => ({ root, bytes })) }));
  const overlapping = OVERLAPPING_FAMILIES.map(({ family, members }) => ({
    family,
    members: members
      .map((member) => ({
        member: member.replace("node_modules/", ""),
        bytes: Object.entries(output.inputs)
          .filter(([path]) => path.includes(member))
          .reduce((sum, [, input]) => sum + input.bytesInOutput, 0),
      }))
      .filter((m) => m.bytes > 0),
  })).filter((f) => f.members.length > 1);
  return {
    outputBytes: output.bytes,
    inputs: Object.keys(output.inputs).length,
    packages: packageRows,
    modules,
    duplicates,
    overlapping,
  };
}
