/**
 * DCSA Track & Trace 2.2 carrier source (docs/architecture.md §Sources): `GET {baseUrl}/v2/events` filtered by the
 * tracked number, cursor paging through `Next-Page`, events mapped to our milestones by
 * docs/carriers.md §DCSA event mapping. Spec: DCSA's TNT_v2.2.0-resolved.yaml (docs/carriers.md §DCSA Track & Trace).
 *
 * - config.ts: `DCSA_SOURCES` parsed into one endpoint per SCAC, and a lookup's limits;
 * - client.ts: the HTTP paging of `/v2/events` and its outcomes;
 * - wire.ts, events.ts: the TNT 2.2 event schemas, and events validated and normalised;
 * - journey.ts, milestones.ts, shipment.ts: calls, POL/POD/inland destination, milestones, the shipment's facts;
 * - source.ts: the `CarrierSource` that puts them together;
 * - subscriptions.ts: event subscriptions at the carrier (push, issue 13 §4).
 */
export {
  DCSA_API_VERSION,
  DCSA_MAX_PAGES,
  DCSA_PAGE_SIZE,
  DCSA_TIMEOUT_MS,
  type DcsaSourceConfig,
  type DcsaSourceOptions,
  parseDcsaSources,
} from "./config";
export { createDcsaSource } from "./source";
export {
  createDcsaSubscription,
  type DcsaSubscriptionOutcome,
  type DcsaSubscriptionRequest,
  deleteDcsaSubscription,
} from "./subscriptions";
