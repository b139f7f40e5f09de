import { index, pgTable, text, timestamp, uuid } from "drizzle-orm/pg-core";

/** Service-wide news for every user (cloud edition), written with the admin CLI. */
export const announcements = pgTable(
  "announcements",
  {
    uuid: uuid("uuid").primaryKey().defaultRandom(),
    title: text("title").notNull(),
    content: text("content").notNull(),
    date: timestamp("date", { withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [index("announcements_date_idx").on(table.date)],
);

export type AnnouncementRow = typeof announcements.$inferSelect;
