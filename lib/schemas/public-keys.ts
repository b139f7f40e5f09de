import { z } from "zod";
import { maxPatternLength, nameText, pagination, timestamp } from "./common";
import { tagName } from "./devices";
import { filterQuery } from "./list-filter";

/** A user's regular expression; the service checks that the engine supports it (lib/user-regex.ts). */
export const userRegex = z
  .string()
  .min(1, "at least 1 character (.* matches anything)")
  .max(maxPatternLength, `at most ${maxPatternLength} characters`);

export const tagList = z
  .array(tagName)
  .min(1, "at least 1 tag")
  .max(3, "at most 3 tags")
  .refine((tags) => new Set(tags).size === tags.length, "tags must be unique");

/** `{hostname: REGEX}` or `{tags: [1..3 tags]}`: exactly one of the two. */
export const deviceFilter = z
  .object({ hostname: userRegex.optional(), tags: tagList.optional() })
  .transform((filter, context) => {
    if (filter.hostname !== undefined && filter.tags === undefined) return { hostname: filter.hostname };
    if (filter.tags !== undefined && filter.hostname === undefined) return { tags: filter.tags };
    context.addIssue({ code: "custom", message: "expected either hostname (a regex) or tags (1 to 3)" });
    return z.NEVER;
  });

export const deviceFilterObject = z.union([
  z.object({ hostname: z.string() }),
  z.object({ tags: z.array(z.string()) }),
]);

export const tagBody = z.object({ tag: tagName });
export const tagsBody = z.object({ tags: tagList });

export const fingerprint = z
  .string()
  .regex(/^([0-9a-f]{2}:){15}[0-9a-f]{2}$/, "expected 16 colon-separated lower-case hex pairs");
export const publicKeyParams = z.object({ fingerprint });
export const publicKeyTagParams = z.object({ fingerprint, tag: tagName });

const keyName = nameText().trim().min(1, "at least 1 character").max(255, "at most 255 characters");

export const createPublicKeyBody = z.object({
  data: z.string().min(1, "required").max(16384, "at most 16384 characters"),
  filter: deviceFilter,
  name: keyName,
  username: userRegex,
});

export const updatePublicKeyBody = createPublicKeyBody.omit({ data: true });

export const listPublicKeysQuery = pagination.extend({ filter: filterQuery });

export const publicKeyObject = z.object({
  data: z.string(),
  fingerprint: z.string(),
  created_at: timestamp,
  tenant_id: z.string(),
  name: z.string(),
  filter: deviceFilterObject,
  username: z.string(),
});

export const authSshBody = z.object({
  fingerprint,
  data: z.string().min(1, "required").max(4096, "at most 4096 characters"),
});

export const authSshResponse = z.object({ signature: z.string() });
