"use client";

import { useState } from "react";
import { Button } from "@/components/ui/controls";
import { switchNamespace } from "@/lib/console/namespace-switch";
import { api, failureText, json } from "../console/api";
import { Outcome } from "../plain-page";

type State = { kind: "idle" | "accepting" | "opening" } | { kind: "failed"; message: string };

/**
 * The invited user (signed in) accepts with a press, not on page load: a mail scanner that opens
 * the link must not accept for them. The console then opens the namespace.
 */
export function AcceptInvitation({ tenant, sig, username }: { tenant: string; sig: string; username: string }) {
  const [state, setState] = useState<State>({ kind: "idle" });
  async function accept() {
    setState({ kind: "accepting" });
    try {
      await api(`/api/namespaces/${encodeURIComponent(tenant)}/members/accept-invite`, {
        method: "PATCH",
        body: json({ sig }),
      });
    } catch (failure) {
      setState({ kind: "failed", message: failureText(failure) });
      return;
    }
    setState({ kind: "opening" });
    await switchNamespace(tenant);
    window.location.assign("/dashboard");
  }
  return (
    <>
      <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">
        Logged in as <strong>{username}</strong>. Accepting makes you a member with the role you were invited with.
      </p>
      <div className="mt-6">
        <Button isPending={state.kind === "accepting" || state.kind === "opening"} onClick={accept}>
          Accept the invitation
        </Button>
      </div>
      {state.kind === "opening" && <Outcome kind="done">Invitation accepted: opening the namespace…</Outcome>}
      {state.kind === "failed" && (
        <Outcome kind="failed">
          The invitation was not accepted. {state.message} Ask the namespace's administrator for a new one.
        </Outcome>
      )}
    </>
  );
}
