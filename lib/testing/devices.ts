import { createHash, randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { type DeviceStatus, devices } from "@/models/devices";
import { namespaces } from "@/models/namespaces";
import { users } from "@/models/users";
import type { Scope } from "../auth/credentials";
import type { Db, Executor } from "../db";
import { createNamespace } from "../services/namespaces";

export const randomUid = () => createHash("sha256").update(randomUUID()).digest("hex");

/** A new namespace and its owner's scope, for service tests; `maxDevices` is set directly (no API changes it). */
export async function seedScope(db: Db, maxDevices = -1): Promise<Scope> {
  const username = `u${randomUUID().slice(0, 8)}`;
  const [user] = await db
    .insert(users)
    .values({ name: "Test User", username, email: `${username}@example.com`, passwordHash: "x" })
    .returning();
  if (!user) throw new Error("no user");
  const namespace = await createNamespace(db, user.id, { name: `ns${randomUUID().slice(0, 8)}` });
  const tenantId = namespace?.tenant_id ?? "";
  await db.update(namespaces).set({ maxDevices }).where(eq(namespaces.tenantId, tenantId));
  return { tenantId, role: "owner", actorId: user.id, via: "jwt" } as Scope;
}

/** A device row as an agent's registration would leave it (the key is a placeholder). */
const deviceRow = (uid: string, tenantId: string, status: DeviceStatus, tags: string[] = []) => ({
  uid,
  tenantId,
  name: `dev-${uid.slice(0, 12)}`,
  identity: { mac: "00:11:22:33:44:55" },
  info: { id: "debian", pretty_name: "Debian", version: "1", arch: "amd64", platform: "docker" },
  publicKey: "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----",
  status,
  tags,
});

/** One device row in the namespace; returns its uid. */
export async function insertDevice(
  db: Executor,
  tenantId: string,
  status: DeviceStatus = "pending",
  uid = randomUid(),
) {
  await db.insert(devices).values(deviceRow(uid, tenantId, status));
  return uid;
}

/** Device rows of the scope's namespace, one per entry; returns their uids. */
export async function insertDevices(db: Db, scope: Scope, entries: { status?: DeviceStatus; tags?: string[] }[]) {
  const uids = entries.map(randomUid);
  await db
    .insert(devices)
    .values(
      entries.map((entry, index) =>
        deviceRow(uids[index] ?? "", scope.tenantId, entry.status ?? "pending", entry.tags),
      ),
    );
  return uids;
}
