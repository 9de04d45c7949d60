import { describe, expect, it } from "vitest";
import {
  registeredResourceTypes,
  registerResourceType,
  resourceTypeNamed,
} from "../../../src/lib/jsonapi/include-registry";
import { portResource } from "../../../src/ports/serializer";
import "../../../src/resource-types";

// The include registry (src/lib/jsonapi/include-registry.ts): serializers register their types and name their
// relationships' targets by type, so nothing but this catalog checks that every name resolves.

describe("include registry", () => {
  it("src/resource-types.ts registers every JSON:API resource type that `include` can reach", () => {
    expect([...registeredResourceTypes().keys()].sort()).toEqual([
      "alert_rule",
      "api_key",
      "container",
      "container_charges",
      "custom_field",
      "custom_field_definition",
      "custom_field_option",
      "document",
      "document_email_submission",
      "document_representation",
      "email_submission",
      "email_submission_document",
      "invitation",
      "metro_area",
      "party",
      "port",
      "raw_event",
      "reference_object",
      "shipment",
      "tariff",
      "terminal",
      "tracking_request",
      "transport_event",
      "user",
      "vessel",
      "webhook",
      "webhook_notification",
      "webhook_notification_log",
    ]);
  });

  it("every relationship names a registered type that can read what the relationship asks of it", () => {
    const problems: string[] = [];
    for (const [name, type] of registeredResourceTypes()) {
      for (const [relationship, rel] of Object.entries(type.relationships)) {
        const where = `${name}.${relationship} → ${rel.target}`;
        const target = registeredResourceTypes().get(rel.target);
        if (!target) problems.push(`${where}: not registered`);
        else if ("idOf" in rel && !target.loadByIds) problems.push(`${where}: no loadByIds`);
        else if ("idOf" in rel && rel.prefetchIds && !target.byIdsQueries) problems.push(`${where}: no byIdsQueries`);
      }
    }
    expect(problems).toEqual([]);
  });

  it("each type is registered under its own `type`, and a name is looked up as registered", () => {
    for (const [name, type] of registeredResourceTypes()) expect(type.type).toBe(name);
    expect(resourceTypeNamed("port")).toBe(portResource);
  });

  it("refuses a second serializer for a registered name, and takes the same one again", () => {
    expect(() => registerResourceType({ ...portResource, serializerName: "V2::OtherPortSerializer" })).toThrow(
      /"port" is registered by V2::PortSerializer/,
    );
    expect(resourceTypeNamed("port")).toBe(portResource);
    expect(registerResourceType(portResource)).toBe(portResource);
    expect(resourceTypeNamed("port")).toBe(portResource);
  });

  it("an unregistered name fails loudly, naming the catalog", () => {
    expect(() => resourceTypeNamed("no_such_type")).toThrow(/no resource type "no_such_type".*src\/resource-types\.ts/);
  });
});
