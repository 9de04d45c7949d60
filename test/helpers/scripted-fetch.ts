/**
 * An upstream for fetch-level tests (storage-free: usable in the "unit" project): answers the statuses given, in
 * turn, each a status or `[status, headers]`, then 200 once they run out; `calls` records every URL asked.
 */
export function scriptedUpstream(...answers: (number | [number, Record<string, string>])[]): {
  calls: string[];
  fetch: typeof globalThis.fetch;
} {
  const calls: string[] = [];
  const fetch: typeof globalThis.fetch = async (input) => {
    calls.push(String(input));
    const next = answers.shift() ?? 200;
    const [status, headers] = Array.isArray(next) ? next : [next, {}];
    return new Response(null, { status, headers });
  };
  return { calls, fetch };
}
