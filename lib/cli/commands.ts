import { z } from "zod";
import { memberRoles } from "@/models/namespaces";
import type { Executor } from "../db";
import { ApiError, FieldConflictError, ValidationError } from "../errors";
import { unscopedGetMail, unscopedListOutbox } from "../mail/outbox";
import { announcementContent, announcementTitle, announcementUuid } from "../schemas/announcements";
import { tenantId } from "../schemas/common";
import { namespaceName } from "../schemas/namespaces";
import { email, password, username } from "../schemas/users";
import { createAnnouncement, deleteAnnouncement, listAllAnnouncements } from "../services/announcements";
import { verifyAuditChain } from "../services/audit";
import { unscopedReconcileBilling } from "../services/billing";
import { unscopedAddMember, unscopedRemoveMember } from "../services/members";
import { createNamespace, unscopedDeleteNamespace, unscopedFindNamespace } from "../services/namespaces";
import { unscopedVerifyRecording } from "../services/recording-chain";
import { isSetUp, setupLink } from "../services/setup";
import { createUser, findUserByIdentifier, unscopedDeleteUser, unscopedSetPassword } from "../services/users";

export type CommandResult = { code: number; output: string };

export const usage = `Usage: npm run cli -- COMMAND

  user create USERNAME PASSWORD EMAIL        create a user (confirmed)
  user delete USERNAME                       delete a user and the namespaces they own
  user password USERNAME PASSWORD            set a user's password
  namespace create NAME OWNER [TENANT_ID]    create a namespace owned by user OWNER
  namespace delete NAME                      delete a namespace with its devices, keys and sessions
  namespace member add USERNAME NAMESPACE ROLE
                                             add a member (administrator, operator or observer)
  namespace member remove USERNAME NAMESPACE remove a member
  announcement create TITLE FILE.md          publish an announcement with the Markdown in FILE.md; prints its uuid
  announcement list                          list announcements, newest first: uuid, date, title
  announcement delete UUID                   delete an announcement
  mail list                                  the 50 newest mails of the outbox: id, date, status, recipient, subject
  mail show ID                               one mail of the outbox with its text (links included until delivered)
  setup link                                 the first-run page's link, while the service has no account
  audit verify NAMESPACE                     check the hash chain of a namespace's audit trail (--service: the
                                             trail of logins outside namespaces); names the first broken row
  audit verify-recording SESSION_UID         check the hash chain over a recorded session's frames; names the
                                             first broken frame
  billing reconcile                          read every namespace's subscription from the payment processor again
`;

class UsageError extends Error {}

function parse<S extends z.ZodType>(schema: S, value: unknown, what: string): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw new UsageError(`invalid ${what}: ${result.error.issues[0]?.message}`);
  return result.data;
}

async function requireUser(db: Executor, name: string) {
  const user = await findUserByIdentifier(db, name.toLowerCase());
  if (!user) throw new ApiError(404, `user '${name}' not found`);
  return user;
}

/** `input` is the content of the command's file argument, read where the CLI runs. */
type Handler = (db: Executor, args: string[], input: string | undefined) => Promise<string>;

/**
 * Each command: its words, its argument count (min, max), which argument names a file whose
 * content the command reads, if any, and what it does.
 */
const commands: { words: string[]; arity: [number, number]; file?: number; run: Handler }[] = [
  {
    words: ["user", "create"],
    arity: [3, 3],
    run: async (db, [name = "", secret = "", address = ""]) => {
      const login = parse(username, name, "username");
      const user = await createUser(db, {
        username: login,
        password: parse(password, secret, "password"),
        email: parse(email, address, "e-mail"),
        name: login.slice(0, 20),
      });
      return `user '${user.username}' created (id ${user.id})`;
    },
  },
  {
    words: ["user", "delete"],
    arity: [1, 1],
    run: async (db, [name = ""]) => {
      await unscopedDeleteUser(db, name.toLowerCase());
      return `user '${name.toLowerCase()}' deleted`;
    },
  },
  {
    words: ["user", "password"],
    arity: [2, 2],
    run: async (db, [name = "", secret = ""]) => {
      await unscopedSetPassword(db, name.toLowerCase(), parse(password, secret, "password"));
      return `password of '${name.toLowerCase()}' changed`;
    },
  },
  {
    words: ["namespace", "create"],
    arity: [2, 3],
    run: async (db, [name = "", owner = "", tenant]) => {
      const user = await requireUser(db, owner);
      const namespace = await createNamespace(db, user.id, {
        name: parse(namespaceName, name, "namespace name"),
        tenantId: tenant === undefined ? undefined : parse(tenantId, tenant, "tenant id"),
      });
      return `namespace '${namespace?.name}' created (tenant id ${namespace?.tenant_id})`;
    },
  },
  {
    words: ["namespace", "delete"],
    arity: [1, 1],
    run: async (db, [name = ""]) => {
      await unscopedDeleteNamespace(db, name);
      return `namespace '${name}' deleted`;
    },
  },
  {
    words: ["namespace", "member", "add"],
    arity: [3, 3],
    run: async (db, [name = "", namespaceName = "", role = ""]) => {
      const user = await requireUser(db, name);
      const namespace = await unscopedFindNamespace(db, namespaceName);
      await unscopedAddMember(db, namespace.tenantId, user.id, parse(z.enum(memberRoles), role, "role"));
      return `'${user.username}' added to '${namespace.name}' as ${role}`;
    },
  },
  {
    words: ["namespace", "member", "remove"],
    arity: [2, 2],
    run: async (db, [name = "", namespaceName = ""]) => {
      const user = await requireUser(db, name);
      const namespace = await unscopedFindNamespace(db, namespaceName);
      await unscopedRemoveMember(db, namespace.tenantId, user.id);
      return `'${user.username}' removed from '${namespace.name}'`;
    },
  },
  {
    words: ["announcement", "create"],
    arity: [2, 2],
    file: 1,
    run: async (db, [title = ""], input) => {
      if (input === undefined) throw new UsageError("the content of FILE.md is missing");
      const announcement = await createAnnouncement(db, {
        title: parse(announcementTitle, title, "title"),
        content: parse(announcementContent, input, "content"),
      });
      return announcement.uuid;
    },
  },
  {
    words: ["announcement", "list"],
    arity: [0, 0],
    run: async (db) => {
      const rows = await listAllAnnouncements(db);
      if (rows.length === 0) return "no announcements";
      return rows.map((row) => `${row.uuid}  ${row.date.toISOString()}  ${row.title}`).join("\n");
    },
  },
  {
    words: ["announcement", "delete"],
    arity: [1, 1],
    run: async (db, [uuid = ""]) => {
      await deleteAnnouncement(db, parse(announcementUuid, uuid, "announcement id"));
      return `announcement ${uuid} deleted`;
    },
  },
  {
    words: ["mail", "list"],
    arity: [0, 0],
    run: async (db) => {
      const mails = await unscopedListOutbox(db);
      if (mails.length === 0) return "no mail";
      return mails
        .map((mail) =>
          [mail.id, mail.createdAt.toISOString(), mail.status.padEnd(7), mail.recipient, mail.subject].join("  "),
        )
        .join("\n");
    },
  },
  {
    words: ["mail", "show"],
    arity: [1, 1],
    run: async (db, [id = ""]) => {
      const mail = await unscopedGetMail(db, parse(z.uuid(), id, "mail id"));
      const sent = mail.sentAt ? `, sent ${mail.sentAt.toISOString()}` : "";
      const failure = mail.lastError ? `\nLast error: ${mail.lastError}` : "";
      const body = mail.textBody || "(body removed once delivered)";
      return [
        `Id: ${mail.id}`,
        `To: ${mail.recipient}`,
        `Subject: ${mail.subject}`,
        `Date: ${mail.createdAt.toISOString()}`,
        `Status: ${mail.status} after ${mail.attempts} attempt(s)${sent}${failure}`,
        "",
        body.trimEnd(),
      ].join("\n");
    },
  },
  {
    words: ["audit", "verify"],
    arity: [1, 1],
    run: async (db, [name = ""]) => {
      const tenantId = name === "--service" ? "" : (await unscopedFindNamespace(db, name)).tenantId;
      const verdict = await verifyAuditChain(db, tenantId);
      const trail = name === "--service" ? "the service's audit trail" : `the audit trail of '${name}'`;
      if (!verdict.intact)
        throw new ApiError(
          409,
          `${trail} is broken at row ${verdict.brokenAt}: ${verdict.reason} (${verdict.rows} rows before it are intact)`,
        );
      const start = verdict.startsAfterPurge ? ", starting where the last retention purge ended" : "";
      return `${trail} is intact: ${verdict.rows} rows${start}`;
    },
  },
  {
    words: ["audit", "verify-recording"],
    arity: [1, 1],
    run: async (db, [uid = ""]) => {
      const verdict = await unscopedVerifyRecording(db, uid);
      const recording = `the recording of session ${uid}`;
      if (!verdict.intact) {
        const where = verdict.brokenAt === "end" ? "at its end" : `at frame ${verdict.brokenAt}`;
        throw new ApiError(
          409,
          `${recording} is broken ${where}: ${verdict.reason} (${verdict.frames} frames before it are intact)`,
        );
      }
      if (!verdict.chained)
        return `${recording} has no chained frames (recorded before recordings were chained, or empty)`;
      return `${recording} is intact: ${verdict.frames} frames`;
    },
  },
  {
    words: ["billing", "reconcile"],
    arity: [0, 0],
    run: async (db) => {
      const { accounts, failed } = await unscopedReconcileBilling(db);
      return `reconciled ${accounts - failed} of ${accounts} billing accounts\n`;
    },
  },
  {
    words: ["setup", "link"],
    arity: [0, 0],
    run: async (db) => {
      if (await isSetUp(db)) throw new ApiError(409, "the service is set up already: it has an account");
      return setupLink();
    },
  },
];

function describeError(error: unknown): string | undefined {
  if (error instanceof UsageError) return error.message;
  if (error instanceof FieldConflictError) return `already in use: ${error.fields.join(", ")}`;
  if (error instanceof ValidationError) return error.message;
  if (error instanceof ApiError) return error.message;
  return undefined;
}

export type Resolved = { command: (typeof commands)[number]; rest: string[] };

/** Finds the command the arguments name, or the answer for bad usage (no database needed). */
export function resolveCommand(args: string[]): Resolved | CommandResult {
  if (args.length === 0 || args[0] === "help" || args[0] === "--help") {
    return { code: args.length === 0 ? 2 : 0, output: usage };
  }
  const command = commands.find((candidate) => candidate.words.every((word, index) => args[index] === word));
  if (!command) return { code: 2, output: `unknown command: ${args.join(" ")}\n\n${usage}` };
  const rest = args.slice(command.words.length);
  const [min, max] = command.arity;
  if (rest.length < min || rest.length > max) {
    return { code: 2, output: `wrong number of arguments for '${command.words.join(" ")}'\n\n${usage}` };
  }
  return { command, rest };
}

/**
 * Runs one admin command against a database. Exit codes: 0 done, 1 refused (not found,
 * conflict, not allowed), 2 bad usage. Used by the CLI directly and by the server for a CLI
 * that finds the server holding the embedded database.
 */
export async function runCommand(db: Executor, args: string[], input?: string): Promise<CommandResult> {
  const resolved = resolveCommand(args);
  if (!("command" in resolved)) return resolved;
  try {
    return { code: 0, output: await resolved.command.run(db, resolved.rest, input) };
  } catch (error) {
    const message = describeError(error);
    if (message === undefined) throw error;
    return {
      code: error instanceof UsageError || error instanceof ValidationError ? 2 : 1,
      output: `error: ${message}`,
    };
  }
}
