// bench/sea-route's measuring process, started by bench/sea-route/index.mjs as
//   node bench/sea-route/measure.mjs <pairs> <seed>
// (a process of its own: the module load and graph build are timed from a cold start). Prints one JSON object on
// stdout. CPU time is process.cpuUsage (user + system) around each step, the Worker's unit of account.
const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
const [pairCount, seed] = process.argv.slice(2).map(Number);

let c0 = cpuMs();
const { seaRoute } = await import("../../src/geo/sea-route.ts");
const { predictedTrack } = await import("../../src/geo/along-route.ts");
const { lineGeometry } = await import("../../src/geo/antimeridian.ts");
const { PORTS } = await import("../../src/reference/generated/ports.ts");
const moduleLoadMs = cpuMs() - c0;

// First route: builds the graph (once per isolate).
c0 = cpuMs();
seaRoute([121.5, 31.23], [4.0, 51.95]);
const firstRouteMs = cpuMs() - c0;

// Random port pairs (fixed seed, mulberry32).
let state = seed >>> 0;
const rand = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const ports = PORTS.filter((p) => p.latitude && p.longitude).map((p) => [Number(p.longitude), Number(p.latitude)]);
const pairs = Array.from({ length: pairCount }, () => [
  ports[Math.floor(rand() * ports.length)],
  ports[Math.floor(rand() * ports.length)],
]);
const perRoute = [];
let found = 0;
let totalNm = 0;
let maxPoints = 0;
for (const [a, b] of pairs) {
  const t = cpuMs();
  const r = seaRoute(a, b);
  perRoute.push(cpuMs() - t);
  if (r) {
    found++;
    totalNm += r.lengthNm;
    maxPoints = Math.max(maxPoints, r.coordinates.length);
    lineGeometry(r.coordinates);
  }
}
perRoute.sort((x, y) => x - y);
const q = (p) => perRoute[Math.min(perRoute.length - 1, Math.floor(p * perRoute.length))];

// The largest future_positions answer: 43 200 points (30 days at one a minute), serialised as the route does.
const long = seaRoute([121.5, 31.23], [-74.04, 40.67]);
c0 = cpuMs();
const { points } = predictedTrack(long.coordinates, Date.UTC(2026, 0, 1), 16, { stepMs: 60_000, maxPoints: 43_200 });
const positions = points.map((p) => ({
  latitude: Math.round(p.position[1] * 1e6) / 1e6,
  longitude: Math.round(p.position[0] * 1e6) / 1e6,
  heading: p.headingDegrees,
  timestamp: new Date(p.timestampMs).toISOString().replace(/\.\d{3}Z$/, "Z"),
  estimated: true,
}));
const body = JSON.stringify({ data: { id: "x", type: "vessel", attributes: { positions } }, links: { self: "x" } });
const trackMs = cpuMs() - c0;
const gzipBytes = (await import("node:zlib")).gzipSync(body).length;

console.log(
  JSON.stringify({
    moduleLoadMs,
    firstRouteMs,
    pairs: pairCount,
    found,
    meanNm: totalNm / Math.max(1, found),
    maxPoints,
    routeMs: { p50: q(0.5), p90: q(0.9), p99: q(0.99), max: perRoute[perRoute.length - 1] },
    futurePositions: { points: positions.length, cpuMs: trackMs, bytes: body.length, gzipBytes },
  }),
);
