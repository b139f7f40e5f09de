/**
 * Every query key of the console. Namespace data start with the tenant, so a namespace switch
 * can never show one namespace's cache in another; mutations invalidate by these prefixes.
 */
export const queryKeys = {
  info: () => ["info"] as const,
  /** Service-wide news, the same in every namespace. */
  announcements: (page: number, perPage: number) => ["announcements", page, perPage] as const,
  namespaces: () => ["namespaces"] as const,
  /** The signed-in user (not namespace data). */
  currentUser: () => ["current-user"] as const,
  stats: (tenant: string) => ["stats", tenant] as const,
  devices: {
    all: (tenant: string) => ["devices", tenant] as const,
    lists: (tenant: string) => ["devices", tenant, "list"] as const,
    list: (tenant: string, params: Record<string, unknown>) => ["devices", tenant, "list", params] as const,
    detail: (tenant: string, uid: string) => ["devices", tenant, "detail", uid] as const,
    /** Under the device's detail, so whatever refreshes the device refreshes its diagnostics. */
    diagnostics: (tenant: string, uid: string) => ["devices", tenant, "detail", uid, "diagnostics"] as const,
    /** The accepted devices the key and rule editors preview their filters against. */
    previewed: (tenant: string) => ["devices", tenant, "previewed"] as const,
    /** How many accepted devices carry a tag (the tags page). */
    taggedCount: (tenant: string, tag: string) => ["devices", tenant, "tagged-count", tag] as const,
  },
  tags: (tenant: string) => ["tags", tenant] as const,
  publicKeys: (tenant: string) => ["public-keys", tenant] as const,
  firewallRules: (tenant: string) => ["firewall-rules", tenant] as const,
  connectors: {
    all: (tenant: string) => ["connectors", tenant] as const,
    detail: (tenant: string, uid: string) => ["connectors", tenant, "detail", uid] as const,
    info: (tenant: string, uid: string) => ["connectors", tenant, "info", uid] as const,
  },
  containers: (tenant: string) => ["containers", tenant] as const,
  webhooks: {
    all: (tenant: string) => ["webhooks", tenant] as const,
    list: (tenant: string) => ["webhooks", tenant, "list"] as const,
    detail: (tenant: string, id: string) => ["webhooks", tenant, "detail", id] as const,
    deliveries: (tenant: string, id: string, params: Record<string, unknown>) =>
      ["webhooks", tenant, "deliveries", id, params] as const,
  },
  /** The namespace itself: name, members, settings, device count and limit. */
  namespace: (tenant: string) => ["namespace", tenant] as const,
  apiKeys: (tenant: string) => ["api-keys", tenant] as const,
  /** The audit trail (the activity page), by its filters and page. */
  audit: (tenant: string, params: Record<string, unknown>) => ["audit", tenant, params] as const,
  billing: {
    all: (tenant: string) => ["billing", tenant] as const,
    customer: (tenant: string) => ["billing", tenant, "customer"] as const,
    subscription: (tenant: string) => ["billing", tenant, "subscription"] as const,
    mostUsed: (tenant: string) => ["billing", tenant, "most-used"] as const,
  },
  sessions: {
    all: (tenant: string) => ["sessions", tenant] as const,
    list: (tenant: string, params: Record<string, unknown>) => ["sessions", tenant, "list", params] as const,
    detail: (tenant: string, uid: string) => ["sessions", tenant, "detail", uid] as const,
  },
};
