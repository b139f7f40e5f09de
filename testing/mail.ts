import type { AddressInfo } from "node:net";
import { SMTPServer } from "smtp-server";
import { waitFor as waitUntil } from "./wait";

/** A mail as the SMTP server received it, decoded. */
export type ReceivedMail = { from: string; to: string[]; subject: string; text: string; html: string; raw: string };

/** Splits a MIME entity into its (unfolded, lower-case) headers and its body. */
function splitEntity(entity: string): { headers: Record<string, string>; body: string } {
  const end = entity.indexOf("\r\n\r\n");
  const head = end === -1 ? entity : entity.slice(0, end);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, " ").split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body: end === -1 ? "" : entity.slice(end + 4) };
}

function decodeBody(body: string, encoding = "7bit"): string {
  switch (encoding.toLowerCase()) {
    case "base64":
      return Buffer.from(body.replace(/\s+/g, ""), "base64").toString("utf8");
    case "quoted-printable": {
      const bytes = body
        .replace(/=\r?\n/g, "")
        .replace(/=([0-9A-F]{2})/gi, (_match, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
      return Buffer.from(bytes, "latin1").toString("utf8");
    }
    default:
      return body;
  }
}

/** The text/plain and text/html parts of a message (single part or multipart/alternative). */
function textParts(entity: string, found: { text: string; html: string }) {
  const { headers, body } = splitEntity(entity);
  const type = headers["content-type"] ?? "text/plain";
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith("multipart/") && boundary) {
    for (const part of body.split(`--${boundary}`).slice(1)) {
      if (part.startsWith("--")) break;
      textParts(part.replace(/^\r\n/, ""), found);
    }
    return;
  }
  const decoded = decodeBody(body, headers["content-transfer-encoding"]);
  if (type.toLowerCase().startsWith("text/html")) found.html = decoded;
  else if (type.toLowerCase().startsWith("text/plain")) found.text = decoded;
}

function parseMail(raw: string, from: string, to: string[]): ReceivedMail {
  const found = { text: "", html: "" };
  textParts(raw, found);
  return { from, to, subject: splitEntity(raw).headers.subject ?? "", ...found, raw };
}

export type MailServer = {
  url: string;
  mails: ReceivedMail[];
  /** The first received mail to `to` that `matches`, waiting for it. */
  waitFor: (to: string, matches?: (mail: ReceivedMail) => boolean) => Promise<ReceivedMail>;
  close: () => Promise<void>;
};

/**
 * A real SMTP server (smtp-server) in the test process, on a free port of 127.0.0.1, plain SMTP
 * without authentication. `rejectFirst` deliveries get a temporary failure (451) first.
 */
export async function startMailServer({ rejectFirst = 0 }: { rejectFirst?: number } = {}): Promise<MailServer> {
  const mails: ReceivedMail[] = [];
  let rejectionsLeft = rejectFirst;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on("data", (chunk: Buffer) => chunks.push(chunk));
      stream.on("end", () => {
        if (rejectionsLeft > 0) {
          rejectionsLeft -= 1;
          return callback(Object.assign(new Error("mailbox busy, try again later"), { responseCode: 451 }));
        }
        const from = session.envelope.mailFrom ? session.envelope.mailFrom.address : "";
        const to = session.envelope.rcptTo.map((address) => address.address);
        mails.push(parseMail(Buffer.concat(chunks).toString("utf8"), from, to));
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.server.address() as AddressInfo;
  const waitFor = async (to: string, matches: (mail: ReceivedMail) => boolean = () => true) => {
    let mail: ReceivedMail | undefined;
    const what = () => `a mail to ${to}; received: ${mails.map((m) => `${m.to} ${m.subject}`).join(", ")}`;
    await waitUntil(what, () => {
      mail = mails.find((candidate) => candidate.to.includes(to) && matches(candidate));
      return mail !== undefined;
    });
    return mail as ReceivedMail;
  };
  return {
    url: `smtp://127.0.0.1:${port}`,
    mails,
    waitFor,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text that starts with `prefix`. */
export function linkIn(mail: ReceivedMail, prefix: string): URL {
  const link = mail.text.split(/\s+/).find((word) => word.startsWith(prefix));
  if (!link) throw new Error(`no link starting with ${prefix} in:\n${mail.text}`);
  return new URL(link);
}
