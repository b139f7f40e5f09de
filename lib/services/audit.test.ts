import { randomUUID } from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "@/models/api-keys";
import { auditEntries } from "@/models/audit";
import { withTestDatabase } from "@/testing/database";
import { seedScope } from "@/testing/rows/namespaces";
import { auditHash, recordAudit, systemActor } from "../audit/trail";
import { resolveCaller } from "../auth/credentials";
import { hashToken } from "../auth/token-hash";
import type { Db } from "../db";
import { auditChange, audited, listAudit, unscopedPurgeAudit, verifyAuditChain } from "./audit";

let db: Db;
withTestDatabase((opened) => {
  db = opened;
});

const listAll = (scope: Awaited<ReturnType<typeof seedScope>>) =>
  listAudit(db, scope, { page: 1, per_page: 100 }).then((page) => page.items);

describe("audit trail", () => {
  it("chains the rows of a namespace written concurrently, and names the actor", async () => {
    const scope = await seedScope(db);
    await Promise.all(
      Array.from({ length: 20 }, (_, index) =>
        auditChange(db, scope, "device.rename", { type: "device", id: `d${index}` }, { name: `n${index}` }),
      ),
    );
    expect(await verifyAuditChain(db, scope.tenantId)).toEqual({ intact: true, rows: 20, startsAfterPurge: false });
    const [newest] = await listAll(scope);
    expect(newest?.actor.type).toBe("user");
    expect(newest?.actor.id).toBe(scope.actorId);
    expect(newest?.actor.name).not.toBe("");
  });

  it("records nothing when the change fails, and the change and its row together when it succeeds", async () => {
    const scope = await seedScope(db);
    await expect(
      audited(
        db,
        scope,
        "tag.delete",
        async () => {
          throw new Error("refused");
        },
        () => ({ target: { type: "tag", id: "x" } }),
      ),
    ).rejects.toThrow("refused");
    expect(await listAll(scope)).toEqual([]);
    const result = await audited(
      db,
      scope,
      "tag.delete",
      async () => 42,
      (value) => ({ target: { type: "tag", id: "x" }, details: { value } }),
    );
    expect(result).toBe(42);
    expect((await listAll(scope)).map((entry) => [entry.action, entry.details])).toEqual([
      ["tag.delete", { value: 42 }],
    ]);
  });

  it("names the first row whose content was changed, or that does not follow the row before it", async () => {
    const scope = await seedScope(db);
    for (const id of ["a", "b", "c", "d"]) await auditChange(db, scope, "tag.delete", { type: "tag", id });
    const ids = (await listAll(scope)).map((entry) => entry.id).reverse();
    await db.execute(sql`update audit_entries set details = '{"forged":true}' where id = ${ids[1]}`);
    expect(await verifyAuditChain(db, scope.tenantId)).toMatchObject({ intact: false, brokenAt: ids[1], rows: 1 });

    const other = await seedScope(db);
    for (const id of ["a", "b", "c"]) await auditChange(db, other, "tag.delete", { type: "tag", id });
    const otherIds = (await listAll(other)).map((entry) => entry.id).reverse();
    await db.delete(auditEntries).where(eq(auditEntries.id, otherIds[1] ?? 0));
    expect(await verifyAuditChain(db, other.tenantId)).toMatchObject({ intact: false, brokenAt: otherIds[2] });
  });

  it("purges old rows with a row that says so, and the chain stays provable", async () => {
    const scope = await seedScope(db);
    for (const id of ["old1", "old2", "new"]) await auditChange(db, scope, "tag.delete", { type: "tag", id });
    await db.execute(
      sql`update audit_entries set at = at - interval '400 days' where tenant_id = ${scope.tenantId} and target_id like 'old%'`,
    );
    // Moving the time changed the rows' content: rewrite their hashes as if written then.
    await rehash(scope.tenantId);
    expect(await unscopedPurgeAudit(db, 365)).toBeGreaterThanOrEqual(2);
    const entries = await listAll(scope);
    expect(entries.map((entry) => entry.target.id)).toEqual([scope.tenantId, "new"]);
    expect(entries[0]).toMatchObject({ action: "audit.purge", actor: systemActor, details: { deleted: 2 } });
    expect(await verifyAuditChain(db, scope.tenantId)).toEqual({ intact: true, rows: 2, startsAfterPurge: true });
  });

  it("records the refused use of an expired API key in its namespace", async () => {
    const scope = await seedScope(db);
    const key = randomUUID();
    await db.insert(apiKeys).values({
      keyHash: hashToken(key),
      tenantId: scope.tenantId,
      name: "nightly",
      role: "administrator",
      createdBy: scope.actorId,
      expiresIn: 1,
    });
    const headers = new Headers({ "x-api-key": key });
    await expect(resolveCaller(db, headers, "GET", "192.0.2.7")).rejects.toThrow("the API key has expired");
    expect(await listAll(scope)).toMatchObject([
      {
        action: "api_key.use",
        actor: { type: "api_key", id: "nightly", name: "nightly" },
        source: "192.0.2.7",
        outcome: "failure",
        details: { reason: "the API key has expired" },
      },
    ]);
  });

  it("keeps each namespace's rows to itself", async () => {
    const [one, two] = [await seedScope(db), await seedScope(db)];
    await auditChange(db, one, "tag.delete", { type: "tag", id: "one" });
    await recordAudit(db, {
      tenantId: two.tenantId,
      actor: systemActor,
      source: "",
      action: "tag.delete",
      target: { type: "tag", id: "two" },
    });
    expect((await listAll(one)).map((entry) => entry.target.id)).toEqual(["one"]);
    expect((await listAll(two)).map((entry) => entry.target.id)).toEqual(["two"]);
  });
});

/** Recomputes a namespace's chain from its rows as they are now (the test's own time travel). */
async function rehash(tenantId: string) {
  const rows = await db.select().from(auditEntries).where(eq(auditEntries.tenantId, tenantId)).orderBy(auditEntries.id);
  let previousHash = "";
  for (const row of rows) {
    const hash = auditHash({ ...row, previousHash });
    await db.update(auditEntries).set({ previousHash, hash }).where(eq(auditEntries.id, row.id));
    previousHash = hash;
  }
}
