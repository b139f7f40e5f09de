"use client";

import { useEffect, useState } from "react";
import { linkClass, Outcome } from "./plain-page";

type State = { kind: "pending" } | { kind: "done" | "failed"; message: string };

/**
 * Follows the activation link through GET /api/user/validation_account once the page runs in a
 * browser: mail scanners that fetch the link without running it do not use up the token.
 */
export function AccountActivation({ email, token }: { email: string; token: string }) {
  const [state, setState] = useState<State>({ kind: "pending" });

  useEffect(() => {
    const query = new URLSearchParams({ email, token });
    fetch(`/api/user/validation_account?${query}`)
      .then(async (response) => {
        if (response.ok) {
          setState({ kind: "done", message: "Your account is activated: you can log in." });
          return;
        }
        const body = await response.json().catch(() => undefined);
        setState({ kind: "failed", message: body?.message ?? `The service answered ${response.status}.` });
      })
      .catch(() => setState({ kind: "failed", message: "The service did not answer." }));
  }, [email, token]);

  if (state.kind === "pending") return <Outcome kind="pending">Activating your account…</Outcome>;
  if (state.kind === "done")
    return (
      <>
        <Outcome kind="done">{state.message}</Outcome>
        <p className="mt-4 text-sm">
          <a className={linkClass} href="/login?confirmed=1">
            Log in
          </a>
        </p>
      </>
    );
  return (
    <>
      <Outcome kind="failed">The account was not activated. {state.message}</Outcome>
      <p className="mt-4 text-sm text-slate-600 dark:text-slate-300">
        Links work once, for 24 hours.{" "}
        <a className={linkClass} href="/signup/check-email">
          Ask for a new link
        </a>
        .
      </p>
    </>
  );
}
