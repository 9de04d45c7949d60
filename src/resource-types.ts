/**
 * Loads every resource's serializer, each of which registers its JSON:API resource type in the include registry
 * (src/lib/jsonapi/include-registry.ts), so that `include` can reach every type whichever module a request started
 * from. Imported for its effect by the Worker's entry point (src/index.ts) and the tests' setup; a new resource type
 * adds its serializer here.
 */

import "./charges/serializer";
import "./containers/serializer";
import "./custom-fields/serializer";
import "./documents/compact-serializers";
import "./documents/representation-serializer";
import "./documents/email-submission-serializer";
import "./documents/serializer";
import "./metro-areas/serializer";
import "./parties/serializer";
import "./ports/serializer";
import "./raw-events/serializer";
import "./shipments/serializer";
import "./tariffs/serializer";
import "./terminals/serializer";
import "./tracking-requests/serializer";
import "./transport-events/serializer";
import "./vessels/serializer";
import "./webhook-notifications/serializer";
import "./webhooks/serializer";
import "./alerts/serializer";
import "./users/serializer";
import "./api-keys/serializer";
