"use client";

import Link from "next/link";
import { type FormEvent, useActionState, useState } from "react";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { type SignInState, signInWithPassword } from "@/lib/console/sign-in";
import { loginBody } from "@/lib/schemas/users";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid } from "./field-errors";
import { LockoutCountdown } from "./lockout-countdown";

/** Username or e-mail and password; an MFA account goes on to the code step. */
export function LoginForm({ next, notice }: { next: string; notice?: string }) {
  const [state, action, isPending] = useActionState<SignInState, FormData>(signInWithPassword, {});
  const [errors, setErrors] = useState<FieldErrors>({});
  const [lockEnded, setLockEnded] = useState<number>();
  // React resets a form after its action: the name is kept here, the password typed again.
  const [username, setUsername] = useState("");
  const isLocked = state.lockedUntil !== undefined && state.lockedUntil !== lockEnded;

  function check(event: FormEvent<HTMLFormElement>) {
    const form = new FormData(event.currentTarget);
    const found = fieldErrorsOf(loginBody, { username: form.get("username"), password: form.get("password") });
    setErrors(found);
    if (Object.keys(found).length > 0) {
      event.preventDefault();
      focusFirstInvalid(event.currentTarget, found);
    }
  }

  return (
    <form action={action} onSubmit={check} noValidate className="grid gap-5">
      <input type="hidden" name="next" value={next} />
      {notice && !state.message && <Callout kind="info">{notice}</Callout>}
      {isLocked && state.lockedUntil ? (
        <Callout kind="error">
          <LockoutCountdown until={state.lockedUntil} onEnd={() => setLockEnded(state.lockedUntil)} />
        </Callout>
      ) : (
        state.message && (
          <Callout kind="error">
            {sentence(state.message)}
            {state.unconfirmed && (
              <>
                {" "}
                <Link className="font-semibold underline" href="/signup/check-email">
                  Send the e-mail again
                </Link>
              </>
            )}
          </Callout>
        )
      )}
      <TextField
        label="Username or e-mail"
        name="username"
        value={username}
        onChange={(event) => setUsername(event.target.value)}
        autoComplete="username"
        autoFocus
        required
        error={errors.username}
      />
      <TextField
        label="Password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        error={errors.password}
        hint={
          <Link className="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/forgot-password">
            Forgot your password?
          </Link>
        }
      />
      <Button type="submit" isPending={isPending} disabled={isLocked}>
        Log in
      </Button>
    </form>
  );
}

const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;
