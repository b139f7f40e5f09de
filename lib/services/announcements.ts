import { asc, desc, eq } from "drizzle-orm";
import { type AnnouncementRow, announcements } from "@/models/announcements";
import type { Executor } from "../db";
import { readPage } from "../db/paging";
import { notFound } from "../errors";
import { paged } from "../results";
import type { Pagination } from "../schemas/common";

// Announcements are service-wide news, not namespace data: no scope here.

const describe = (row: AnnouncementRow) => ({ uuid: row.uuid, title: row.title, content: row.content, date: row.date });

export async function listAnnouncements(db: Executor, query: Pagination & { order_by: "asc" | "desc" }) {
  const direction = query.order_by === "asc" ? asc : desc;
  const { rows, total } = await readPage(
    db,
    { from: announcements },
    db
      .select({ title: announcements.title, date: announcements.date })
      .from(announcements)
      .orderBy(direction(announcements.date), direction(announcements.uuid))
      .$dynamic(),
    query,
  );
  return paged(rows, total);
}

/** Whole announcements, newest first: the console's "what's new" and its history. */
export async function listAnnouncementEntries(db: Executor, query: Pagination) {
  const { rows, total } = await readPage(
    db,
    { from: announcements },
    db.select().from(announcements).orderBy(desc(announcements.date), desc(announcements.uuid)).$dynamic(),
    query,
  );
  return paged(rows.map(describe), total);
}

export async function getAnnouncement(db: Executor, uuid: string) {
  const [row] = await db.select().from(announcements).where(eq(announcements.uuid, uuid));
  if (!row) throw notFound("announcement");
  return describe(row);
}

export async function createAnnouncement(db: Executor, input: { title: string; content: string }) {
  const [row] = await db.insert(announcements).values(input).returning();
  if (!row) throw new Error("insert returned no row");
  return describe(row);
}

/** Every announcement, newest first, without content (the admin CLI's list). */
export function listAllAnnouncements(db: Executor) {
  return db
    .select({ uuid: announcements.uuid, title: announcements.title, date: announcements.date })
    .from(announcements)
    .orderBy(desc(announcements.date), desc(announcements.uuid));
}

export async function deleteAnnouncement(db: Executor, uuid: string) {
  const deleted = await db
    .delete(announcements)
    .where(eq(announcements.uuid, uuid))
    .returning({ uuid: announcements.uuid });
  if (deleted.length === 0) throw notFound("announcement");
}
