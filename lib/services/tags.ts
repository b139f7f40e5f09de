import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { union } from "drizzle-orm/pg-core";
import { devices } from "@/models/devices";
import { firewallRules } from "@/models/firewall-rules";
import { publicKeys } from "@/models/public-keys";
import type { Scope } from "../auth/credentials";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { conflict, notFound } from "../errors";
import { paged } from "../results";
import type { Pagination } from "../schemas/common";
import { auditChange } from "./audit";
import { publishEvents } from "./events";

/** The `filter.tags` array of public keys and firewall rules (absent in the hostname form). */
const filterTags = (filter: typeof publicKeys.filter | typeof firewallRules.filter) => sql`(${filter}->'tags')`;

/** Every distinct tag of the namespace: on devices, in public-key filters and in firewall-rule filters. */
function namespaceTags(db: Executor, tenantId: string) {
  return union(
    db
      .select({ tag: sql<string>`unnest(${devices.tags})`.as("tag") })
      .from(devices)
      .where(eq(devices.tenantId, tenantId)),
    db
      .select({ tag: sql<string>`jsonb_array_elements_text(${filterTags(publicKeys.filter)})`.as("tag") })
      .from(publicKeys)
      .where(and(eq(publicKeys.tenantId, tenantId), sql`jsonb_typeof(${filterTags(publicKeys.filter)}) = 'array'`)),
    db
      .select({ tag: sql<string>`jsonb_array_elements_text(${filterTags(firewallRules.filter)})`.as("tag") })
      .from(firewallRules)
      .where(
        and(eq(firewallRules.tenantId, tenantId), sql`jsonb_typeof(${filterTags(firewallRules.filter)}) = 'array'`),
      ),
  ).as("namespace_tags");
}

export async function listTags(db: Executor, scope: Scope, query: Pagination) {
  const tags = namespaceTags(db, scope.tenantId);
  const { rows, total } = await readPage(
    db,
    { from: tags },
    db.select({ tag: tags.tag }).from(tags).orderBy(asc(tags.tag)).$dynamic(),
    query,
  );
  return paged(
    rows.map((row) => row.tag),
    total,
  );
}

/** Tells the namespace's live streams the new tags of each device a tag change touched. */
const announceTags = (db: Executor, scope: Scope, changed: { uid: string; tags: string[] }[]) =>
  publishEvents(
    db,
    changed.map((device) => ({
      tenantId: scope.tenantId,
      type: "device.updated" as const,
      uid: device.uid,
      patch: { tags: device.tags },
    })),
  );
/**
 * Renames a tag on every device, public key and firewall rule of the namespace, in one
 * transaction. The new name must be new to the namespace (else 409), as in ShellHub.
 */
export async function renameTag(db: Executor, scope: Scope, from: string, to: string) {
  const changed = await db.transaction(async (tx) => {
    const tags = namespaceTags(tx, scope.tenantId);
    const present = (
      await tx
        .select({ tag: tags.tag })
        .from(tags)
        .where(inArray(tags.tag, [from, to]))
    ).map((row) => row.tag);
    if (!present.includes(from)) throw notFound(`tag '${from}'`);
    if (present.includes(to)) throw conflict(`the tag '${to}' already exists in the namespace`);
    // A concurrent write may have added `to` since the check: drop `from` then instead of doubling `to`.
    const renamed = await tx
      .update(devices)
      .set({
        tags: sql`case when ${to} = any(${devices.tags}) then array_remove(${devices.tags}, ${from}) else array_replace(${devices.tags}, ${from}, ${to}) end`,
      })
      .where(and(eq(devices.tenantId, scope.tenantId), sql`${from} = any(${devices.tags})`))
      .returning({ uid: devices.uid, tags: devices.tags });
    for (const table of [publicKeys, firewallRules]) {
      const tagsOf = filterTags(table.filter);
      await tx
        .update(table)
        .set({
          filter: sql`jsonb_set(${table.filter}, '{tags}', case when ${tagsOf} ? ${to} then ${tagsOf} - ${from} else (
            select jsonb_agg(case when element = ${from} then ${to} else element end order by position)
            from jsonb_array_elements_text(${tagsOf}) with ordinality as item(element, position)
          ) end)`,
        })
        .where(and(eq(table.tenantId, scope.tenantId), sql`${tagsOf} ? ${from}`));
    }
    await auditChange(tx, scope, "tag.rename", { type: "tag", id: from }, { to, devices: renamed.length });
    return renamed;
  });
  await announceTags(db, scope, changed);
}

/** Removes a tag from every device, public key and firewall rule of the namespace. */
export async function deleteTag(db: Executor, scope: Scope, tag: string) {
  const { fromDevices } = await db.transaction(async (tx) => {
    const fromDevices = await tx
      .update(devices)
      .set({ tags: sql`array_remove(${devices.tags}, ${tag})` })
      .where(and(eq(devices.tenantId, scope.tenantId), sql`${tag} = any(${devices.tags})`))
      .returning({ uid: devices.uid, tags: devices.tags });
    let total = fromDevices.length;
    for (const table of [publicKeys, firewallRules]) {
      const tagsOf = filterTags(table.filter);
      const rows = await tx
        .update(table)
        .set({ filter: sql`jsonb_set(${table.filter}, '{tags}', ${tagsOf} - ${tag})` })
        .where(and(eq(table.tenantId, scope.tenantId), sql`${tagsOf} ? ${tag}`))
        .returning({ tenantId: table.tenantId });
      total += rows.length;
    }
    // Nothing had the tag: the 404 below rolls back this row too.
    if (total === 0) throw notFound(`tag '${tag}'`);
    await auditChange(tx, scope, "tag.delete", { type: "tag", id: tag }, { devices: fromDevices.length });
    return { changed: total, fromDevices };
  });
  await announceTags(db, scope, fromDevices);
}
