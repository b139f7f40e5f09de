"use client";

import { type FormEvent, useState } from "react";
import { buttonClass, inputClass, Outcome } from "./plain-page";

type State = { kind: "idle" | "sending" } | { kind: "done" | "error"; message: string };

const fields = [
  { name: "name", label: "Your name (3 to 20 characters)", type: "text", autoComplete: "name" },
  { name: "username", label: "Username", type: "text", autoComplete: "username" },
  { name: "email", label: "E-mail", type: "email", autoComplete: "email" },
  { name: "password", label: "Password (5 to 30 characters)", type: "password", autoComplete: "new-password" },
  { name: "confirmation", label: "The same again", type: "password", autoComplete: "new-password" },
] as const;

/** Sends the first account to POST /api/setup?sign= with the sign of the start message's link. */
export function SetupForm({ sign }: { sign?: string }) {
  const [state, setState] = useState<State>({ kind: "idle" });

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = Object.fromEntries(new FormData(event.currentTarget)) as Record<string, string>;
    if (form.password !== form.confirmation) {
      setState({ kind: "error", message: "The two passwords differ." });
      return;
    }
    setState({ kind: "sending" });
    const account = { name: form.name, username: form.username, email: form.email, password: form.password };
    const namespace = form.namespace?.trim();
    const response = await fetch(`/api/setup?${new URLSearchParams({ sign: sign ?? form.sign ?? "" })}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(namespace ? { ...account, namespace } : account),
    }).catch(() => undefined);
    const body = await response?.json().catch(() => undefined);
    if (response?.ok) {
      setState({ kind: "done", message: `Done: ${body?.message ?? "the account is created"}.` });
      return;
    }
    const problems = Array.isArray(body?.fields)
      ? (body.fields as { field: string; message: string }[]).map((item) => `${item.field}: ${item.message}`)
      : [];
    const message = problems.length > 0 ? problems.join("; ") : (body?.message ?? "The service did not answer.");
    setState({ kind: "error", message: `Nothing was created. ${message}` });
  }

  if (state.kind === "done") return <Outcome kind="done">{state.message}</Outcome>;
  return (
    <form className="mt-6 grid gap-4" onSubmit={submit}>
      {sign === undefined && (
        <label className="grid gap-1 text-sm">
          Sign (from the setup link of the server's start message)
          <input className={inputClass} name="sign" type="text" required autoComplete="off" />
        </label>
      )}
      {fields.map((field) => (
        <label key={field.name} className="grid gap-1 text-sm">
          {field.label}
          <input
            className={inputClass}
            name={field.name}
            type={field.type}
            required
            autoComplete={field.autoComplete}
          />
        </label>
      ))}
      <label className="grid gap-1 text-sm">
        Namespace (optional: the username when it fits, 3 to 30 lower-case letters, digits or hyphens)
        <input className={inputClass} name="namespace" type="text" autoComplete="off" />
      </label>
      <button className={buttonClass} type="submit" disabled={state.kind === "sending"}>
        Create the account
      </button>
      {state.kind === "error" && <Outcome kind="failed">{state.message}</Outcome>}
    </form>
  );
}
