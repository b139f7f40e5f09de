// The closed sets of values that tables store, apart from the tables themselves: the API's
// schemas and the console's browser code read them without loading the ORM.

export const deviceStatuses = ["accepted", "rejected", "pending", "removed", "unused"] as const;
export type DeviceStatus = (typeof deviceStatuses)[number];

export const firewallActions = ["allow", "deny"] as const;
export type FirewallAction = (typeof firewallActions)[number];

/** A connector's `status.State`: not tried yet, talking to its engine, out of reach, or refused (TLS, policy, answer). */
export const connectorStates = ["pending", "connected", "disconnected", "error"] as const;
export type ConnectorState = (typeof connectorStates)[number];

export const memberRoles = ["owner", "administrator", "operator", "observer"] as const;
export type MemberRole = (typeof memberRoles)[number];

export const memberStatuses = ["accepted", "pending"] as const;
export type MemberStatus = (typeof memberStatuses)[number];

/**
 * What a webhook can be sent (docs/webhooks.md): devices' and sessions' changes, refused SSH
 * logins, every row of the audit trail (`audit`), and the console's test event.
 */
export const webhookEventTypes = [
  "device.registered",
  "device.online",
  "device.offline",
  "device.accepted",
  "device.rejected",
  "device.removed",
  "session.started",
  "session.ended",
  "login.refused",
  "audit",
] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number] | "webhook.test";

/** pending: due for (another) attempt; delivered: answered 2xx; failed: gave up after the last attempt. */
export const webhookDeliveryStatuses = ["pending", "delivered", "failed"] as const;
export type WebhookDeliveryStatus = (typeof webhookDeliveryStatuses)[number];
