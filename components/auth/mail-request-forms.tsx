"use client";

import { useActionState, useEffect, useState } from "react";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { type MailRequestState, requestPasswordReset, resendActivationMail } from "@/lib/console/mail-requests";

const cooldownSeconds = 60;

/** Sends the activation e-mail again, at most once a minute from this page. */
export function ResendConfirmation({ user }: { user?: string }) {
  const [state, action, isPending] = useActionState<MailRequestState, FormData>(resendActivationMail, {});
  const [identifier, setIdentifier] = useState(user ?? "");
  const [wait, setWait] = useState(0);
  useEffect(() => {
    if (state.outcome === "sent") setWait(cooldownSeconds);
  }, [state]);
  useEffect(() => {
    if (wait === 0) return;
    const timer = setTimeout(() => setWait(wait - 1), 1000);
    return () => clearTimeout(timer);
  }, [wait]);

  return (
    <form action={action} className="grid gap-4">
      {state.outcome === "sent" && (
        <Callout kind="success">If the account waits for confirmation, a new e-mail is on its way.</Callout>
      )}
      {state.outcome === "refused" && <Callout kind="error">{state.message}</Callout>}
      <TextField
        label="Username or e-mail"
        name="identifier"
        value={identifier}
        onChange={(event) => setIdentifier(event.target.value)}
        autoComplete="username"
        required
      />
      <Button type="submit" variant="secondary" isPending={isPending} disabled={wait > 0}>
        {wait > 0 ? `Send again in ${wait} s` : "Send the e-mail again"}
      </Button>
    </form>
  );
}

/** Asks for a password-reset link; the answer is the same whether the account exists or not. */
export function ForgotPasswordForm() {
  const [state, action, isPending] = useActionState<MailRequestState, FormData>(requestPasswordReset, {});
  if (state.outcome === "sent") {
    return (
      <Callout kind="success">
        If an account has this name or address, a reset link is on its way. It works for 1 hour.
      </Callout>
    );
  }
  return (
    <form action={action} className="grid gap-4">
      {state.outcome === "refused" && <Callout kind="error">{state.message}</Callout>}
      <TextField label="Username or e-mail" name="identifier" autoComplete="username" autoFocus required />
      <Button type="submit" isPending={isPending}>
        Send reset link
      </Button>
    </form>
  );
}
