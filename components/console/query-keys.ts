/**
 * Every query key of the console. Namespace data start with the tenant, so a namespace switch
 * can never show one namespace's cache in another; mutations invalidate by these prefixes.
 */
export const queryKeys = {
  info: () => ["info"] as const,
  namespaces: () => ["namespaces"] as const,
  stats: (tenant: string) => ["stats", tenant] as const,
  devices: {
    all: (tenant: string) => ["devices", tenant] as const,
    lists: (tenant: string) => ["devices", tenant, "list"] as const,
    list: (tenant: string, params: Record<string, unknown>) => ["devices", tenant, "list", params] as const,
    detail: (tenant: string, uid: string) => ["devices", tenant, "detail", uid] as const,
  },
  tags: (tenant: string) => ["tags", tenant] as const,
  /** The namespace itself: name, members, settings, device count and limit. */
  namespace: (tenant: string) => ["namespace", tenant] as const,
  apiKeys: (tenant: string) => ["api-keys", tenant] as const,
  sessions: {
    all: (tenant: string) => ["sessions", tenant] as const,
    list: (tenant: string, params: Record<string, unknown>) => ["sessions", tenant, "list", params] as const,
  },
};
