import { z } from "zod";
import { namespaceName } from "./namespaces";
import { email, password, personName, username } from "./users";

/** The proof that the caller runs the server: the `sign` of the setup link printed at start. */
export const setupQuery = z.object({ sign: z.string().min(1).max(256) });

/**
 * What ShellHub's web UI sends: name, username, email, password. The namespace takes the
 * username as its name, as ShellHub's does, unless `namespace` names it: a username with
 * characters no namespace name has needs one.
 */
export const setupBody = z
  .object({ name: personName, email, username, password, namespace: namespaceName.optional() })
  .superRefine((body, context) => {
    if (body.namespace === undefined && !namespaceName.safeParse(body.username).success) {
      context.addIssue({
        code: "custom",
        path: ["namespace"],
        message: "the username is no namespace name (3 to 30 lower-case letters, digits or inner hyphens): give one",
      });
    }
  });
