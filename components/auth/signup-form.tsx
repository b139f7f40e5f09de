"use client";

import Link from "next/link";
import { type ChangeEvent, type FormEvent, useActionState, useState } from "react";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { type SignUpState, signUp } from "@/lib/console/sign-up";
import { registerBody } from "@/lib/schemas/users";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid } from "./field-errors";

const capitalized = (message?: string) => message && `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;

/** Name, username, e-mail and password, checked with the API's own schema before sending. */
export function SignUpForm() {
  const [state, action, isPending] = useActionState<SignUpState, FormData>(signUp, {});
  const [errors, setErrors] = useState<FieldErrors>({});
  const shown = (field: string) => errors[field] ?? capitalized(state.fields?.[field]);
  // React resets a form after its action: what was typed is kept here for a refused attempt.
  const [values, setValues] = useState<Record<string, string>>({});
  const bind = (name: string) => ({
    name,
    value: values[name] ?? "",
    onChange: (event: ChangeEvent<HTMLInputElement>) => setValues({ ...values, [name]: event.target.value }),
  });

  function check(event: FormEvent<HTMLFormElement>) {
    const form = new FormData(event.currentTarget);
    const values = Object.fromEntries(["name", "email", "username", "password"].map((name) => [name, form.get(name)]));
    const found = fieldErrorsOf(registerBody, values);
    if (form.get("password") !== form.get("confirmation")) found.confirmation = "The two passwords differ.";
    setErrors(found);
    if (Object.keys(found).length > 0) {
      event.preventDefault();
      focusFirstInvalid(event.currentTarget, found);
    }
  }

  return (
    <form action={action} onSubmit={check} noValidate className="grid gap-4">
      {state.message && <Callout kind="error">{capitalized(state.message)}</Callout>}
      <TextField label="Name" {...bind("name")} autoComplete="name" autoFocus required error={shown("name")} />
      <TextField
        label="Username"
        {...bind("username")}
        autoComplete="username"
        required
        error={shown("username")}
        hint="3 to 30 letters, digits or - _ . @"
      />
      <TextField label="E-mail" {...bind("email")} type="email" autoComplete="email" required error={shown("email")} />
      <TextField
        label="Password"
        {...bind("password")}
        type="password"
        autoComplete="new-password"
        required
        error={shown("password")}
        hint="5 to 30 characters"
      />
      <TextField
        label="Confirm password"
        {...bind("confirmation")}
        type="password"
        autoComplete="new-password"
        required
        error={errors.confirmation}
      />
      <Button type="submit" isPending={isPending}>
        Create account
      </Button>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Already have an account?{" "}
        <Link className="font-medium text-indigo-700 hover:underline dark:text-indigo-300" href="/login">
          Log in
        </Link>
      </p>
    </form>
  );
}
