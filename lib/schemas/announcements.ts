import { z } from "zod";
import { orderBy, pagination, timestamp } from "./common";

export const announcementTitle = z
  .string()
  .trim()
  .min(1, "must not be empty")
  .max(255, "at most 255 characters")
  .regex(/^[^\p{Cc}]*$/u, "one line, no control characters");
/** Markdown. */
export const announcementContent = z
  .string()
  .max(100_000, "at most 100,000 characters")
  .refine((text) => text.trim() !== "", "must not be empty");

export const announcementUuid = z.uuid({ message: "expected an announcement id (uuid)" });
export const announcementParams = z.object({ uuid: announcementUuid });

export const listAnnouncementsQuery = pagination.extend({ order_by: orderBy });

/** The list shows title and date only, as the specification says. */
export const announcementSummary = z.object({ title: z.string(), date: timestamp });

export const announcementObject = z.object({
  uuid: z.string(),
  title: z.string(),
  content: z.string(),
  date: timestamp,
});
