/**
 * What the APM Terminals source (src/tracking/sources/terminal-operators/apmt.ts) provides at each APM facility: the
 * terminal `provided_data` flags and notes GET /v2/terminals serves (src/terminals/provided-data.ts). Kept apart from
 * the adapter so the `terminal` resource reads them without the adapter's HTTP code.
 */

/**
 * What this source provides at an APM terminal, as the terminal `provided_data` flags of GET /v2/terminals
 * (docs/api.md §Terminal resource; src/terminals/provided-data.ts): LFD (storage paid through), full out (facility
 * out), availability (ready for delivery), fees (demurrage owed), holds, appointment and yard location; not the chassis
 * number (§APMT response fields lists none). Aarhus publishes less: see {@link apmtProvidedData}.
 */
export const APMT_PROVIDED_DATA = {
  pickup_lfd: true,
  pod_full_out_at: true,
  available_for_pickup: true,
  fees_at_pod_terminal: true,
  holds_at_pod_terminal: true,
  pickup_appointment_at: true,
  location_at_pod_terminal: true,
  pod_full_out_chassis_number: false,
} as const satisfies Record<string, boolean>;

/** The `provided_data` flags this source fills. */
export type ApmtProvidedData = { -readonly [K in keyof typeof APMT_PROVIDED_DATA]: boolean };

/**
 * Facilities (APMT `facilityCode`) that do not publish the bill of lading, yard location, storage-paid-through date
 * and demurrage owed: "(Except Aarhus)" in the portal's list (docs/terminals.md §APMT facility codes,
 * developer.apmterminals.com/node/56).
 */
export const APMT_FACILITIES_WITHOUT_STORAGE_DATA: ReadonlySet<string> = new Set(["DKAAR"]);

/**
 * The `provided_data` flags of one APM facility (`providerFacilityCode` = its UN/LOCODE as configured):
 * {@link APMT_PROVIDED_DATA}, with LFD, fees and yard location false at Aarhus.
 */
export function apmtProvidedData(providerFacilityCode: string): ApmtProvidedData {
  const flags: ApmtProvidedData = { ...APMT_PROVIDED_DATA };
  if (APMT_FACILITIES_WITHOUT_STORAGE_DATA.has(providerFacilityCode.trim().toUpperCase())) {
    flags.pickup_lfd = false;
    flags.fees_at_pod_terminal = false;
    flags.location_at_pod_terminal = false;
  }
  return flags;
}

/**
 * The `<field>_notes` of an APM facility's `provided_data` (docs/api.md §Terminal resource): where each field comes
 * from in APMT's data, and why a field is not provided.
 */
export function apmtProvidedDataNotes(
  providerFacilityCode: string,
): Partial<Record<keyof typeof APMT_PROVIDED_DATA, string>> {
  const aarhus = APMT_FACILITIES_WITHOUT_STORAGE_DATA.has(providerFacilityCode.trim().toUpperCase());
  const notAtAarhus = "APM Terminals does not publish it at Aarhus.";
  return {
    pickup_lfd: aarhus ? notAtAarhus : "APM Terminals' storage paid through date.",
    fees_at_pod_terminal: aarhus
      ? notAtAarhus
      : "Demurrage owed; USD at US terminals, elsewhere only when APM Terminals names the currency.",
    location_at_pod_terminal: aarhus ? notAtAarhus : "",
    pod_full_out_chassis_number: "APM Terminals' import availability has no chassis number.",
  };
}
