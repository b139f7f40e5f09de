"use client";

import { type FormEvent, useState } from "react";

type State = { kind: "idle" | "sending" } | { kind: "done" | "error"; message: string };

/** Sends the new password with the link's token to POST /api/user/{uid}/update_password. */
export function ResetPasswordForm({ uid, token }: { uid: string; token: string }) {
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

  if (state.kind === "done") return <p className="mt-6 text-green-800">{state.message}</p>;
  return (
    <form className="mt-6 grid gap-4" onSubmit={submit}>
      <label className="grid gap-1 text-sm">
        New password (5 to 30 characters)
        <input
          className="rounded border border-slate-300 px-3 py-2"
          name="password"
          type="password"
          minLength={5}
          maxLength={30}
          required
          autoComplete="new-password"
        />
      </label>
      <label className="grid gap-1 text-sm">
        The same again
        <input
          className="rounded border border-slate-300 px-3 py-2"
          name="confirmation"
          type="password"
          minLength={5}
          maxLength={30}
          required
          autoComplete="new-password"
        />
      </label>
      <button
        className="rounded bg-blue-700 px-4 py-2 font-medium text-white disabled:opacity-50"
        type="submit"
        disabled={state.kind === "sending"}
      >
        Set the password
      </button>
      {state.kind === "error" && (
        <p className="text-red-700" role="alert">
          {state.message}
        </p>
      )}
    </form>
  );
}
