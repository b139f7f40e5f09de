import { accountOperations } from "./account";
import { agentOperations } from "./agent";
import { announcementOperations } from "./announcements";
import { apiKeyOperations } from "./api-keys";
import { auditOperations } from "./audit";
import { billingOperations } from "./billing";
import { connectorOperations } from "./connectors";
import { containerOperations } from "./containers";
import { deviceOperations } from "./devices";
import { eventOperations } from "./events";
import { firewallOperations } from "./firewall";
import { internalOperations } from "./internal";
import { mfaOperations } from "./mfa";
import { namespaceOperations } from "./namespaces";
import { publicKeyOperations } from "./public-keys";
import { serviceOperations } from "./service";
import { sessionOperations } from "./sessions";
import { statsOperations } from "./stats";
import { tagOperations } from "./tags";
import { terminalOperations } from "./terminal";
import { userOperations } from "./users";
import { webhookOperations } from "./webhooks";

/** Every HTTP operation of the service: the OpenAPI document and the role-matrix test read this list. */
export const operations = [
  ...serviceOperations,
  ...userOperations,
  ...accountOperations,
  ...mfaOperations,
  ...namespaceOperations,
  ...apiKeyOperations,
  ...agentOperations,
  ...deviceOperations,
  ...containerOperations,
  ...connectorOperations,
  ...tagOperations,
  ...statsOperations,
  ...eventOperations,
  ...publicKeyOperations,
  ...firewallOperations,
  ...sessionOperations,
  ...auditOperations,
  ...webhookOperations,
  ...terminalOperations,
  ...announcementOperations,
  ...billingOperations,
  ...internalOperations,
];
