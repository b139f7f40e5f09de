"use client";

import { type FormEvent, useEffect, useState } from "react";
import { Button, Callout, TextField } from "@/components/ui/controls";

type Outcome = { kind: "sent" | "error"; message: string };

async function post(path: string, body: unknown): Promise<Outcome> {
  const response = await fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  }).catch(() => undefined);
  if (response?.ok) return { kind: "sent", message: "" };
  const answer = await response?.json().catch(() => undefined);
  if (response?.status === 429) return { kind: "error", message: "Too many e-mails were asked for: try again later." };
  return { kind: "error", message: answer?.message ? `${answer.message}.` : "The service did not answer: try again." };
}

const cooldownSeconds = 60;

/** Sends the activation e-mail again, at most once a minute from this page. */
export function ResendConfirmation({ user }: { user?: string }) {
  const [outcome, setOutcome] = useState<Outcome>();
  const [isSending, setSending] = useState(false);
  const [wait, setWait] = useState(0);
  useEffect(() => {
    if (wait === 0) return;
    const timer = setTimeout(() => setWait(wait - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  async function resend(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const username = String(new FormData(event.currentTarget).get("username") ?? "").trim();
    setSending(true);
    const result = await post("/api/user/resend_email", { username });
    setSending(false);
    setOutcome(
      result.kind === "sent"
        ? { kind: "sent", message: "If the account waits for confirmation, a new e-mail is on its way." }
        : result,
    );
    if (result.kind === "sent") setWait(cooldownSeconds);
  }

  return (
    <form onSubmit={resend} className="grid gap-4">
      {outcome && <Callout kind={outcome.kind === "sent" ? "success" : "error"}>{outcome.message}</Callout>}
      <TextField label="Username or e-mail" name="username" defaultValue={user} autoComplete="username" required />
      <Button type="submit" variant="secondary" isPending={isSending} disabled={wait > 0}>
        {wait > 0 ? `Send again in ${wait} s` : "Send the e-mail again"}
      </Button>
    </form>
  );
}

/** Asks for a password-reset link; the answer is the same whether the account exists or not. */
export function ForgotPasswordForm() {
  const [outcome, setOutcome] = useState<Outcome>();
  const [isSending, setSending] = useState(false);

  async function request(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const identifier = String(new FormData(event.currentTarget).get("identifier") ?? "").trim();
    setSending(true);
    const body = identifier.includes("@") ? { email: identifier } : { username: identifier };
    const result = await post("/api/user/recover_password", body);
    setSending(false);
    setOutcome(
      result.kind === "sent"
        ? {
            kind: "sent",
            message: "If an account has this name or address, a reset link is on its way. It works for 1 hour.",
          }
        : result,
    );
  }

  if (outcome?.kind === "sent") return <Callout kind="success">{outcome.message}</Callout>;
  return (
    <form onSubmit={request} className="grid gap-4">
      {outcome && <Callout kind="error">{outcome.message}</Callout>}
      <TextField label="Username or e-mail" name="identifier" autoComplete="username" autoFocus required />
      <Button type="submit" isPending={isSending}>
        Send reset link
      </Button>
    </form>
  );
}
