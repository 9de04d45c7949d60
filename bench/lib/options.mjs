import { parseArgs } from "node:util";

/**
 * A bench's command-line options: `options` as `node:util` `parseArgs` takes them (strict, no positionals), plus two
 * readers that fall back to an environment variable, so every bench reads flags alike:
 * - `num(flag, envName, fallback, min = 1)`: `--flag` or `$envName` as a number (underscores allowed, `1_000`),
 *   `fallback` when neither is set; throws `--flag must be a number ≥ min` otherwise. `envName` may be null.
 * - `flag(name, envName)`: true for `--name`, or `$envName` set to 1, true or yes.
 * @returns {{ values: Record<string, string | boolean | undefined>,
 *   num: (flag: string, envName: string | null, fallback: number, min?: number) => number,
 *   flag: (name: string, envName?: string) => boolean }}
 */
export function benchOptions(argv, options) {
  const { values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options });
  const env = process.env;
  const num = (flag, envName, fallback, min = 1) => {
    const raw = values[flag] ?? (envName ? env[envName] : undefined);
    if (raw === undefined || raw === "") return fallback;
    const n = Number(String(raw).replaceAll("_", ""));
    if (!Number.isFinite(n) || n < min) throw new Error(`--${flag} must be a number ≥ ${min} (got ${raw})`);
    return n;
  };
  const flag = (name, envName) =>
    values[name] === true || (envName !== undefined && /^(1|true|yes)$/i.test(env[envName] ?? ""));
  return { values, num, flag };
}
