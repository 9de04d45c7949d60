import { z } from "@hono/zod-openapi";
import { listDocumentSchema, resourceSchema } from "../lib/openapi";

const ts = () => z.string().nullable().openapi({ format: "date-time", example: "2025-11-25T00:30:00Z" });

/** Transport event attributes (docs/api.md §Transport event resource, sample A.3). */
export const TransportEventAttributes = z
  .object({
    event: z.string().openapi({ example: "container.transport.vessel_departed" }),
    created_at: z.string().openapi({ format: "date-time" }),
    voyage_number: z.string().nullable(),
    timestamp: ts(),
    timezone: z.string().nullable().openapi({ description: "IANA zone of the event's location." }),
    location_locode: z.string().nullable(),
    data_source: z.enum(["shipping_line", "terminal", "ais"]),
    invalidated_at: ts(),
    value: z.string().nullable().openapi({ description: "New value of a `*.changed` event (an LFD or appointment)." }),
  })
  .openapi("TransportEventAttributes");

/** A transport event's attributes as its serializer writes them (`serializeTransportEvent`). */
export type TransportEventAttributes = z.infer<typeof TransportEventAttributes>;

export const TransportEventResourceSchema = resourceSchema(
  "transport_event",
  TransportEventAttributes,
  "TransportEvent",
);
export const TransportEventListDocument = listDocumentSchema(TransportEventResourceSchema, "TransportEventList");
