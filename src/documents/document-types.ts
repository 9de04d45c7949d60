/**
 * The document types of `GET /documents/types` and `document_type` / `document_type_manual` (docs/api.md §Documents
 * "Document types"). The reference publishes only `commercial_invoice` as a code and names the others in prose
 * (arrival notices, carrier delivery orders, cargo control documents, sea waybills, house bills of lading); these codes
 * are the snake_case of those names.
 */
export const DOCUMENT_TYPES: readonly { code: string; label: string }[] = [
  { code: "bill_of_lading", label: "Bill of lading" },
  { code: "house_bill_of_lading", label: "House bill of lading" },
  { code: "sea_waybill", label: "Sea waybill" },
  { code: "arrival_notice", label: "Arrival notice" },
  { code: "booking_confirmation", label: "Booking confirmation" },
  { code: "carrier_delivery_order", label: "Carrier delivery order" },
  { code: "cargo_control_document", label: "Cargo control document" },
  { code: "commercial_invoice", label: "Commercial invoice" },
  { code: "packing_list", label: "Packing list" },
];

/** Whether `code` is one of {@link DOCUMENT_TYPES}. */
export function isDocumentType(code: string): boolean {
  return DOCUMENT_TYPES.some((t) => t.code === code);
}
