import { apiKeyOperations } from "./api-keys";
import { internalOperations } from "./internal";
import { namespaceOperations } from "./namespaces";
import { serviceOperations } from "./service";
import { userOperations } from "./users";

/** Every HTTP operation of the service: the OpenAPI document and the role-matrix test read this list. */
export const operations = [
  ...serviceOperations,
  ...userOperations,
  ...namespaceOperations,
  ...apiKeyOperations,
  ...internalOperations,
];
