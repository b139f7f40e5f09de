import { z } from "zod";

const propertyCondition = z.object({
  type: z.literal("property"),
  params: z.object({
    name: z.string().min(1).max(100),
    operator: z.enum(["contains", "eq", "ne", "gt", "lt", "bool"]),
    // A list only means something for `contains` on tags (all of them); the service refuses it elsewhere.
    value: z.union([z.string().max(1024), z.number(), z.boolean(), z.array(z.string().max(1024)).min(1).max(20)]),
  }),
});

const logicalOperator = z.object({
  type: z.literal("operator"),
  params: z.object({ name: z.enum(["and", "or"]) }),
});

export const filterItems = z.array(z.discriminatedUnion("type", [propertyCondition, logicalOperator])).max(20);
export type FilterItem = z.infer<typeof filterItems>[number];
export type PropertyCondition = z.infer<typeof propertyCondition>;

/** The `filter` query parameter: base64 of a JSON array of conditions (see API.md). */
export const filterQuery = z
  .string()
  .max(8192)
  .transform((value, context) => {
    let decoded: unknown;
    try {
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(value)) throw new Error("not base64");
      decoded = JSON.parse(Buffer.from(value, "base64").toString("utf8"));
    } catch {
      context.addIssue({ code: "custom", message: "filter must be base64 of a JSON array" });
      return z.NEVER;
    }
    const items = filterItems.safeParse(decoded);
    if (!items.success) {
      context.addIssue({ code: "custom", message: `bad filter: ${items.error.issues[0]?.message}` });
      return z.NEVER;
    }
    return items.data;
  })
  .optional();
