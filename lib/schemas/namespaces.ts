import { z } from "zod";
import { memberStatuses } from "@/models/enums";
import { terminalSafe } from "../text";
import { namespaceBillingObject } from "./billing";
import { memberRole, pagination, tenantId, timestamp } from "./common";
import { filterQuery } from "./list-filter";
import { accountIdentifier } from "./users";

/** Namespace names take part in SSH addresses (`user@namespace.device@host`): hostname-like, no dots. */
export const namespaceName = z
  .string()
  .regex(/^[a-z0-9]([a-z0-9-]{1,28})[a-z0-9]$/, "3 to 30 lower-case letters, digits or inner hyphens");

export const createNamespaceBody = z.object({ name: namespaceName });

export const namespaceSettings = z.object({
  session_record: z.boolean().optional(),
  connection_announcement: z.string().max(4096).transform(terminalSafe).optional(),
  allow_unsigned_agents: z.boolean().optional(),
});

export const editNamespaceBody = z.object({ name: namespaceName.optional(), settings: namespaceSettings.optional() });

export const listNamespacesQuery = pagination.extend({ filter: filterQuery });

/** The fields the new member's username or e-mail may come in: ShellHub's UI 0.16 sends `username`, 0.17 `email`. */
const identifierFields = ["identifier", "username", "email"] as const;

/** Add a member: `identifier` (a username or an e-mail), or the same as `username` or `email`; exactly one. */
export const addMemberBody = z
  .object({
    identifier: accountIdentifier.optional(),
    username: accountIdentifier.optional(),
    email: accountIdentifier.optional(),
    role: memberRole,
  })
  .superRefine(
    (body, context) => {
      const given = identifierFields.filter((field) => body[field] !== undefined);
      if (given.length === 0) {
        context.addIssue({
          code: "custom",
          message: "give identifier (a username or an e-mail)",
          path: ["identifier"],
        });
      }
      if (given.length > 1) {
        for (const field of given) {
          context.addIssue({ code: "custom", message: `give only one of ${given.join(", ")}`, path: [field] });
        }
      }
    },
    // Also when another field is bad, so that one answer names every field to fix; not for a body that is no object.
    { when: ({ value }) => typeof value === "object" && value !== null && !Array.isArray(value) },
  )
  // The check above leaves exactly one of the three.
  .transform(({ identifier, username, email, role }) => ({
    identifier: (identifier ?? username ?? email) as string,
    role,
  }));
export const updateMemberBody = z.object({ role: memberRole });
export const memberParams = z.object({ tenant: tenantId, uid: z.uuid() });

/** The `sig` of an invitation mail's link. */
const invitationSig = z.string().min(1).max(200);
export const invitationQuery = z.object({ sig: invitationSig });
export const acceptInvitationBody = z.object({ sig: invitationSig });
export const invitedUserStatus = z.object({ status: z.enum(["confirmed", "not-confirmed"]) });

export const sessionRecordBody = z.object({ session_record: z.boolean().default(false) });

export const namespaceObject = z.object({
  name: z.string(),
  owner: z.string(),
  tenant_id: z.string(),
  members: z.array(
    z.object({
      id: z.string(),
      role: memberRole,
      status: z.enum(memberStatuses),
      username: z.string(),
      email: z.string(),
      added_at: timestamp,
    }),
  ),
  settings: z.object({
    session_record: z.boolean(),
    connection_announcement: z.string(),
    allow_unsigned_agents: z.boolean(),
  }),
  max_devices: z.number().int(),
  device_count: z.number().int(),
  created_at: timestamp,
  billing: namespaceBillingObject.nullable(),
});
