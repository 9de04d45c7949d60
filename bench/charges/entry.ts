// What bench/charges/index.mjs runs, bundled by esbuild so that the Worker's own modules (extensionless imports,
// date-holidays) load in Node. Not part of the Worker.
export { chargesOf } from "../../src/charges/calculator";
export { boxChargeFactsOf } from "../../src/charges/facts";
export { serializeContainerCharges } from "../../src/charges/serializer";
export { portfolioOf } from "../../src/charges/service";
export { serializeContainer } from "../../src/containers/serializer";
export { tariffOfRow } from "../../src/tariffs/serializer";
