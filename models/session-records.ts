import { bigserial, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { tenantIdColumn } from "./namespaces";
import { sessions } from "./sessions";

/** Recorded terminal output of a session: frames in the order they were written. */
export const sessionRecords = pgTable(
  "session_records",
  {
    id: bigserial("id", { mode: "number" }).primaryKey(),
    sessionUid: text("session_uid")
      .notNull()
      .references(() => sessions.uid, { onDelete: "cascade" }),
    tenantId: tenantIdColumn(),
    time: timestamp("time", { withTimezone: true }).notNull().defaultNow(),
    message: text("message").notNull(),
    width: integer("width").notNull(),
    height: integer("height").notNull(),
    // SHA-256 chained over the session's frames in id order (lib/services/recording-chain.ts);
    // null for frames recorded before recordings were chained.
    hash: text("hash"),
  },
  // Play order: a recording is read in pages along this index (lib/services/recordings.ts).
  (table) => [index("session_records_play_idx").on(table.sessionUid, table.time, table.id)],
);

export type SessionRecordRow = typeof sessionRecords.$inferSelect;
