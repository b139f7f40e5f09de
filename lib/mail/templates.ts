import { getConfig, publicUrl } from "../config";

/** A mail as the outbox stores it: one plain-text and one HTML body. */
export type Mail = { to: string; subject: string; text: string; html: string };

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Links point at PUBLIC_URL, the address people use to reach the service. */
function link(path: string, query: Record<string, string>) {
  return `${publicUrl(getConfig())}${path}?${new URLSearchParams(query).toString()}`;
}

/** A mail of paragraphs, with at most one link (the action) after the first paragraph. */
function compose(to: string, subject: string, paragraphs: string[], action?: { label: string; url: string }): Mail {
  const [first = "", ...rest] = paragraphs;
  const text = [first, ...(action ? [`${action.label}:\n${action.url}`] : []), ...rest].join("\n\n");
  const htmlParts = [
    `<p>${escapeHtml(first)}</p>`,
    ...(action
      ? [`<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a><br>${escapeHtml(action.url)}</p>`]
      : []),
    ...rest.map((paragraph) => `<p>${escapeHtml(paragraph).replace(/\n/g, "<br>")}</p>`),
  ];
  return { to, subject, text: `${text}\n`, html: `<!doctype html><html><body>${htmlParts.join("")}</body></html>` };
}

export function activationMail(to: string, name: string, token: string): Mail {
  return compose(
    to,
    "Activate your account",
    [
      `Hello ${name}, welcome. Confirm this e-mail address to activate your account.`,
      "The link works once and for 24 hours. If you did not sign up, ignore this mail.",
    ],
    { label: "Activate the account", url: link("/validation-account", { email: to, token }) },
  );
}

export function passwordRecoveryMail(to: string, name: string, userId: string, token: string): Mail {
  return compose(
    to,
    "Reset your password",
    [
      `Hello ${name}, someone asked to reset the password of your account.`,
      `The link works once and for 1 hour. From a script, send the new password with the token:\n` +
        `POST /api/user/${userId}/update_password {"password": "...", "token": "${token}"}`,
      "If it was not you, ignore this mail: your password stays as it is.",
    ],
    { label: "Choose a new password", url: link("/update-password", { id: userId, token }) },
  );
}

export function invitationMail(
  to: string,
  name: string,
  namespaceName: string,
  tenantId: string,
  userId: string,
  sig: string,
): Mail {
  return compose(
    to,
    `You are invited to the namespace ${namespaceName}`,
    [
      `Hello ${name}, you are invited to join the namespace ${namespaceName}.`,
      "The invitation is valid for 7 days. Log in with this account to accept it; from a script, send:\n" +
        `PATCH /api/namespaces/${tenantId}/members/accept-invite {"sig": "${sig}"}`,
      "If you do not want to join, ignore this mail.",
    ],
    { label: "Accept the invitation", url: link("/accept-invite", { "tenant-id": tenantId, "user-id": userId, sig }) },
  );
}

export function mfaResetMail(to: string, name: string, code: string, which: "main" | "recovery"): Mail {
  const field = which === "main" ? "main_email_code" : "recovery_email_code";
  return compose(to, "Your code to turn off two-factor authentication", [
    `Hello ${name}, someone asked to turn off two-factor authentication on your account.`,
    `The code for this address (${field}): ${code}`,
    "A second code went to the account's other address; both are needed, within 24 hours. " +
      "If it was not you, ignore this mail and keep two-factor authentication on.",
  ]);
}
