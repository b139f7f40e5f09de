"use client";

import Link from "next/link";
import { useActionState, useRef } from "react";
import { Button, Callout, TextField } from "@/components/ui/controls";
import {
  type ResetMailState,
  type SignInState,
  sendMfaResetCodes,
  signInWithCode,
  signInWithRecoveryCode,
  signInWithResetCodes,
} from "@/lib/console/sign-in";
import { CodeInput } from "./code-input";
import { LockoutCountdown } from "./lockout-countdown";

function Refusal({ state }: { state: SignInState }) {
  if (state.lockedUntil) {
    return (
      <Callout kind="error">
        <LockoutCountdown until={state.lockedUntil} />
      </Callout>
    );
  }
  if (!state.message) return null;
  return <Callout kind="error">{`${state.message.charAt(0).toUpperCase()}${state.message.slice(1)}.`}</Callout>;
}

const linkClass = "font-medium text-indigo-700 hover:underline dark:text-indigo-300";

/** The code of the authenticator app; it submits itself on the sixth digit. */
export function MfaCodeForm({ next }: { next: string }) {
  const [state, action, isPending] = useActionState<SignInState, FormData>(signInWithCode, {});
  const form = useRef<HTMLFormElement>(null);
  return (
    <form ref={form} action={action} className="grid gap-5">
      <input type="hidden" name="next" value={next} />
      <Refusal state={state} />
      <CodeInput name="code" invalid={Boolean(state.message)} onComplete={() => form.current?.requestSubmit()} />
      <Button type="submit" isPending={isPending}>
        Verify
      </Button>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        No access to the app?{" "}
        <Link className={linkClass} href={`/login/recovery?next=${encodeURIComponent(next)}`}>
          Use a recovery code
        </Link>
      </p>
    </form>
  );
}

/** One of the recovery codes saved when MFA was turned on (10 letters and digits). */
export function RecoveryCodeForm({ next }: { next: string }) {
  const [state, action, isPending] = useActionState<SignInState, FormData>(signInWithRecoveryCode, {});
  return (
    <form action={action} className="grid gap-5">
      <input type="hidden" name="next" value={next} />
      <Refusal state={state} />
      <TextField
        label="Recovery code"
        name="recovery_code"
        autoComplete="off"
        autoFocus
        required
        spellCheck={false}
        className="font-mono"
        hint="Each recovery code works once. Blanks and letter case do not matter."
      />
      <Button type="submit" isPending={isPending}>
        Log in
      </Button>
      <p className="grid gap-1 text-sm text-slate-600 dark:text-slate-400">
        <Link className={linkClass} href={`/login/mfa?next=${encodeURIComponent(next)}`}>
          Use the authenticator app instead
        </Link>
        <Link className={linkClass} href={`/mfa-reset?next=${encodeURIComponent(next)}`}>
          Lost your recovery codes too? Turn MFA off by e-mail
        </Link>
      </p>
    </form>
  );
}

/**
 * Lost both the phone and the recovery codes: one code goes to the account's e-mail and one to
 * its recovery e-mail; both together turn MFA off and log in.
 */
export function MfaResetForm({ next }: { next: string }) {
  const [mail, sendCodes, isSending] = useActionState<ResetMailState, FormData>(sendMfaResetCodes, {});
  const [state, action, isPending] = useActionState<SignInState, FormData>(signInWithResetCodes, {});
  if (!mail.isSent)
    return (
      <form action={sendCodes} className="grid gap-5">
        <input type="hidden" name="next" value={next} />
        {mail.message && (
          <Callout kind="error">{`${mail.message.charAt(0).toUpperCase()}${mail.message.slice(1)}.`}</Callout>
        )}
        <p className="text-sm text-slate-700 dark:text-slate-300">
          We send one code to your e-mail address and another to your recovery e-mail address. Both are needed, within
          24 hours.
        </p>
        <Button type="submit" isPending={isSending}>
          Send the codes
        </Button>
      </form>
    );
  return (
    <form action={action} className="grid gap-5">
      <input type="hidden" name="next" value={next} />
      <Callout kind="info">If the account has MFA, a code is on its way to each of its two addresses.</Callout>
      <Refusal state={state} />
      <TextField
        label="Code from your e-mail"
        name="main_email_code"
        defaultValue={state.typed?.main_email_code}
        autoComplete="off"
        required
        spellCheck={false}
        className="font-mono"
      />
      <TextField
        label="Code from your recovery e-mail"
        name="recovery_email_code"
        defaultValue={state.typed?.recovery_email_code}
        autoComplete="off"
        required
        spellCheck={false}
        className="font-mono"
      />
      <Button type="submit" isPending={isPending}>
        Turn off MFA and log in
      </Button>
    </form>
  );
}
