import { z } from "zod";
import { memberRoles } from "@/models/enums";

/**
 * Text that people name things with, in one Unicode spelling (NFC): two spellings of one name
 * (a precomposed letter or a letter and a combining accent) are one name.
 */
export const nameText = () => z.string().normalize("NFC");

/** The longest regular expression a user may write (key filters, firewall rules): lib/user-regex.ts. */
export const maxPatternLength = 512;

export const tenantId = z.uuid({ message: "expected a tenant id (uuid)" });
export const memberRole = z.enum(memberRoles);
export const timestamp = z.date().transform((date) => date.toISOString());
export const orderBy = z.enum(["asc", "desc"]).default("desc");

export const pagination = z.object({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(10),
});
export type Pagination = z.infer<typeof pagination>;

export const offsetOf = ({ page, per_page }: Pagination) => (page - 1) * per_page;

export const tenantParams = z.object({ tenant: tenantId });
