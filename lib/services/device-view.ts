import type { DeviceRow } from "@/models/devices";

/**
 * A device row as the API shows it. `acceptable` says whether accepting it now would stay
 * within the namespace's `max_devices` (pass whether the namespace is full).
 */
export function describeDevice(row: DeviceRow, namespaceName: string, isNamespaceFull = false) {
  return {
    uid: row.uid,
    name: row.name,
    identity: row.identity,
    info: row.info,
    public_key: row.publicKey,
    tenant_id: row.tenantId,
    last_seen: row.lastSeen,
    online: row.online,
    namespace: namespaceName,
    status: row.status,
    status_update_at: row.statusUpdateAt,
    created_at: row.createdAt,
    remote_addr: row.remoteAddr,
    position: row.position ?? null,
    tags: row.tags,
    public_url: row.publicUrl,
    acceptable: row.status !== "accepted" && !isNamespaceFull,
  };
}
