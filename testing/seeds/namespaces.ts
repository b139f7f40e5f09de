import { call, uniqueName } from "../client";
import { type SeededUser, seedUser, tokenFor } from "./users";

/** Namespaces, their members and API keys, made through the API. */

export type SeededNamespace = { tenantId: string; name: string; owner: SeededUser & { tenantToken: string } };

/** A new namespace owned by `owner` (a new user when not given), with the owner's token for it. */
export async function seedNamespace(
  owner?: SeededUser,
  { baseUrl }: { baseUrl?: string } = {},
): Promise<SeededNamespace> {
  const user = owner ?? (await seedUser({}, { baseUrl }));
  const name = uniqueName("ns");
  const response = await call("POST", "/api/namespaces", { token: user.token, body: { name }, baseUrl });
  if (response.status !== 200) throw new Error(`namespace create failed: ${response.status} ${response.text}`);
  const tenantId = response.body.tenant_id as string;
  return { tenantId, name, owner: { ...user, tenantToken: await tokenFor(user, tenantId, { baseUrl }) } };
}

export type Role = "owner" | "administrator" | "operator" | "observer";

/** A new user who is a member of the namespace with `role`, and their token for it. */
export async function seedMember(namespace: SeededNamespace, role: Exclude<Role, "owner">) {
  const user = await seedUser();
  const response = await call("POST", `/api/namespaces/${namespace.tenantId}/members`, {
    token: namespace.owner.tenantToken,
    body: { identifier: user.username, role },
  });
  if (response.status !== 200) throw new Error(`add member failed: ${response.status} ${response.text}`);
  return { ...user, tenantToken: await tokenFor(user, namespace.tenantId) };
}

/** An API key of the namespace, created by its owner. */
export async function seedApiKey(namespace: SeededNamespace, role: Role = "owner", expiresAt = -1): Promise<string> {
  const response = await call("POST", "/api/namespaces/api-key", {
    token: namespace.owner.tenantToken,
    body: { name: uniqueName("k"), expires_at: expiresAt, role },
  });
  if (response.status !== 200) throw new Error(`API key create failed: ${response.status} ${response.text}`);
  return response.body.id;
}
