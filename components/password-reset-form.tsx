"use client";

import { type FormEvent, useState } from "react";
import { buttonClass, inputClass, Outcome } from "./plain-page";

type State = { kind: "idle" | "sending" } | { kind: "done" | "error"; message: string };

const passwordFields = [
  { name: "password", label: "New password (5 to 30 characters)" },
  { name: "confirmation", label: "The same again" },
];

/** Sends the new password with the link's token to POST /api/user/{uid}/update_password. */
export function PasswordResetForm({ uid, token }: { uid: string; token: string }) {
  const [state, setState] = useState<State>({ kind: "idle" });

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password") ?? "");
    if (password !== String(form.get("confirmation") ?? "")) {
      setState({ kind: "error", message: "The two passwords differ." });
      return;
    }
    setState({ kind: "sending" });
    const response = await fetch(`/api/user/${encodeURIComponent(uid)}/update_password`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ password, token }),
    }).catch(() => undefined);
    if (response?.ok) {
      setState({ kind: "done", message: "Your password is changed: log in with it." });
      return;
    }
    const body = await response?.json().catch(() => undefined);
    const message = Array.isArray(body)
      ? `Check: ${body.join(", ")}`
      : (body?.message ?? "The service did not answer.");
    setState({ kind: "error", message: `The password was not changed. ${message}` });
  }

  if (state.kind === "done") return <Outcome kind="done">{state.message}</Outcome>;
  return (
    <form className="mt-6 grid gap-4" onSubmit={submit}>
      {passwordFields.map((field) => (
        <label key={field.name} className="grid gap-1 text-sm">
          {field.label}
          <input
            className={inputClass}
            name={field.name}
            type="password"
            minLength={5}
            maxLength={30}
            required
            autoComplete="new-password"
          />
        </label>
      ))}
      <button className={buttonClass} type="submit" disabled={state.kind === "sending"}>
        Set the password
      </button>
      {state.kind === "error" && <Outcome kind="failed">{state.message}</Outcome>}
    </form>
  );
}
