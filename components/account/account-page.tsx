"use client";

import { useMutation } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { type FormEvent, useRef, useState } from "react";
import { toast } from "sonner";
import { z } from "zod";
import { CodeInput } from "@/components/auth/code-input";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid } from "@/components/auth/field-errors";
import { Badge, Button, Callout, Card, TextField } from "@/components/ui/controls";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { signOutOfConsole } from "@/lib/console/sign-in";
import { password as passwordRule, updateUserBody } from "@/lib/schemas/users";
import { ApiFailure, api, failureText, json } from "../console/api";
import { useConsole } from "../console/context";
import { accountFieldErrors, type CurrentUser, useCurrentUser, useRefreshCurrentUser } from "./account-data";
import { MfaEnrolment } from "./mfa-enrolment";

const recoveryRule = "Must differ from your e-mail. Once set, it cannot be removed.";

function ProfileCard({ user }: { user: CurrentUser }) {
  const router = useRouter();
  const refresh = useRefreshCurrentUser();
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: (changes: Record<string, string>) => api("/api/users", { method: "PATCH", body: json(changes) }),
    onSuccess: () => {
      toast.success("Profile saved");
      void refresh();
      router.refresh();
    },
    onError: (failure) => {
      const fields = accountFieldErrors(failure, {
        recovery_email: recoveryRule,
        email: "Must differ from your recovery e-mail.",
      });
      if (fields) setErrors(fields);
      else toast.error(`The profile was not saved: ${failureText(failure)}`);
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const current: Record<string, string> = {
      name: user.name,
      username: user.user,
      email: user.email,
      recovery_email: user.recovery_email,
    };
    const changes: Record<string, string> = {};
    for (const field of Object.keys(current)) {
      const value = String(form.get(field) ?? "").trim();
      if (value !== current[field]) changes[field] = value;
    }
    const found = fieldErrorsOf(updateUserBody, changes);
    if (changes.recovery_email !== undefined && changes.recovery_email === (changes.email ?? user.email))
      found.recovery_email = "Must differ from your e-mail.";
    setErrors(found);
    if (Object.keys(found).length > 0) return focusFirstInvalid(event.currentTarget, found);
    if (Object.keys(changes).length === 0) return toast.info("Nothing changed");
    save.mutate(changes);
  }
  return (
    <Card className="p-5">
      <form onSubmit={submit} noValidate className="grid gap-4">
        <h2 className="text-base font-semibold">Profile</h2>
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField label="Name" name="name" defaultValue={user.name} autoComplete="name" error={errors.name} />
          <TextField
            label="Username"
            name="username"
            defaultValue={user.user}
            autoComplete="username"
            error={errors.username}
          />
          <TextField
            label="E-mail"
            name="email"
            type="email"
            defaultValue={user.email}
            autoComplete="email"
            error={errors.email}
          />
          <TextField
            label="Recovery e-mail"
            name="recovery_email"
            type="email"
            defaultValue={user.recovery_email}
            error={errors.recovery_email}
            hint={recoveryRule}
          />
        </div>
        <div>
          <Button type="submit" isPending={save.isPending}>
            Save profile
          </Button>
        </div>
      </form>
    </Card>
  );
}

const changePasswordForm = z.object({ password: passwordRule });

function PasswordCard() {
  const { user } = useConsole();
  const [errors, setErrors] = useState<FieldErrors>({});
  const form = useRef<HTMLFormElement>(null);
  const change = useMutation({
    mutationFn: (fields: { current_password: string; password: string }) =>
      api("/api/users", { method: "PATCH", body: json(fields) }),
    onSuccess: () => {
      toast.success("Password changed");
      form.current?.reset();
    },
    onError: (failure) => {
      if (failure instanceof ApiFailure && failure.status === 403)
        setErrors({ current_password: "The current password is wrong." });
      else setErrors({ password: failureText(failure) });
    },
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = new FormData(event.currentTarget);
    const fields = {
      current_password: String(values.get("current_password") ?? ""),
      password: String(values.get("password") ?? ""),
    };
    const errorsNow: FieldErrors = fieldErrorsOf(changePasswordForm, fields);
    if (!fields.current_password) errorsNow.current_password = "Enter your current password.";
    if (fields.password !== String(values.get("confirm") ?? "")) errorsNow.confirm = "The two passwords differ.";
    setErrors(errorsNow);
    if (Object.keys(errorsNow).length > 0) return focusFirstInvalid(event.currentTarget, errorsNow);
    change.mutate(fields);
  }
  return (
    <Card className="p-5">
      <form ref={form} onSubmit={submit} noValidate className="grid gap-4">
        <h2 className="text-base font-semibold">Password</h2>
        {/* Password managers pair the new password with this account. */}
        <input type="text" name="username" autoComplete="username" hidden readOnly value={user.username} />
        <div className="grid gap-4 sm:grid-cols-3">
          <TextField
            label="Current password"
            name="current_password"
            type="password"
            autoComplete="current-password"
            error={errors.current_password}
          />
          <TextField
            label="New password"
            name="password"
            type="password"
            autoComplete="new-password"
            error={errors.password}
            hint="5 to 30 characters."
          />
          <TextField
            label="New password again"
            name="confirm"
            type="password"
            autoComplete="new-password"
            error={errors.confirm}
          />
        </div>
        <div>
          <Button type="submit" isPending={change.isPending}>
            Change password
          </Button>
        </div>
      </form>
    </Card>
  );
}

function DisableMfa({ onDisabled }: { onDisabled: () => void }) {
  const [isOpen, setOpen] = useState(false);
  const [byRecoveryCode, setByRecoveryCode] = useState(false);
  const [attempt, setAttempt] = useState(0);
  const form = useRef<HTMLFormElement>(null);
  const disable = useMutation({
    mutationFn: (body: { code: string } | { recovery_code: string }) =>
      api("/api/user/mfa/disable", { method: "PUT", body: json(body) }),
    onSuccess: () => {
      setOpen(false);
      toast.success("Two-factor authentication is off");
      onDisabled();
    },
    onError: () => setAttempt((count) => count + 1),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = new FormData(event.currentTarget);
    if (byRecoveryCode) disable.mutate({ recovery_code: String(values.get("recovery_code") ?? "").trim() });
    else disable.mutate({ code: String(values.get("code") ?? "") });
  }
  return (
    <>
      <Button variant="secondary" onClick={() => setOpen(true)}>
        Turn off
      </Button>
      <Dialog
        isOpen={isOpen}
        onClose={() => setOpen(false)}
        title="Turn off two-factor authentication?"
        description="Logging in will ask for your password only. Confirm with a code from your app or a recovery code."
      >
        <form ref={form} onSubmit={submit} className="grid gap-4">
          {disable.isError && <Callout kind="error">{failureText(disable.error)}</Callout>}
          {byRecoveryCode ? (
            <TextField label="Recovery code" name="recovery_code" autoComplete="off" required />
          ) : (
            <CodeInput
              key={attempt}
              name="code"
              invalid={disable.isError}
              onComplete={() => form.current?.requestSubmit()}
            />
          )}
          <button
            type="button"
            className="justify-self-start text-sm font-medium text-indigo-700 underline dark:text-indigo-300"
            onClick={() => setByRecoveryCode(!byRecoveryCode)}
          >
            {byRecoveryCode ? "Use a code from the app" : "Use a recovery code"}
          </button>
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" isPending={disable.isPending}>
              Turn off MFA
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

function MfaCard({ user }: { user: CurrentUser }) {
  const { recoveryExpiresAt } = useConsole();
  const refresh = useRefreshCurrentUser();
  const [isEnrolling, setEnrolling] = useState(false);
  const inRecoveryWindow = recoveryExpiresAt !== undefined && recoveryExpiresAt * 1000 > Date.now();
  return (
    <Card className="grid gap-4 p-5">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <div className="grid gap-1">
          <h2 className="flex items-center gap-2 text-base font-semibold">
            Two-factor authentication
            <Badge color={user.mfa ? "green" : "gray"}>{user.mfa ? "On" : "Off"}</Badge>
          </h2>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {user.mfa
              ? "Logging in asks for a code from your authenticator app after the password."
              : "Ask for a code from an authenticator app after the password, so a stolen password is not enough."}
          </p>
        </div>
        {user.mfa ? <DisableMfa onDisabled={refresh} /> : <Button onClick={() => setEnrolling(true)}>Turn on</Button>}
      </div>
      {user.mfa && inRecoveryWindow && (
        <Callout kind="warning">
          You logged in with a recovery code. Until{" "}
          {new Date((recoveryExpiresAt ?? 0) * 1000).toLocaleTimeString(undefined, { timeStyle: "short" })} that code
          also turns MFA off, if you have lost your phone.
        </Callout>
      )}
      <MfaEnrolment user={user} isOpen={isEnrolling} onClose={() => setEnrolling(false)} onEnabled={refresh} />
    </Card>
  );
}

function DeleteAccount({ user }: { user: CurrentUser }) {
  const [isOpen, setOpen] = useState(false);
  const [typed, setTyped] = useState("");
  const remove = useMutation({
    mutationFn: () => api("/api/user", { method: "DELETE" }),
    onSuccess: () => signOutOfConsole(),
  });
  return (
    <Card className="grid gap-3 border-red-200 p-5 dark:border-red-900">
      <h2 className="text-base font-semibold">Delete account</h2>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Your account and your memberships are deleted. Namespaces you own must be deleted (or handed over) first.
      </p>
      <div>
        <Button variant="danger" onClick={() => setOpen(true)}>
          Delete account
        </Button>
      </div>
      <ConfirmDialog
        isOpen={isOpen}
        onClose={() => {
          setOpen(false);
          setTyped("");
          remove.reset();
        }}
        title="Delete your account?"
        description={
          <>
            This cannot be undone. Type your username <strong>{user.user}</strong> to confirm.
          </>
        }
        confirmLabel="Delete my account"
        canConfirm={typed === user.user}
        isPending={remove.isPending}
        failure={remove.isError ? failureText(remove.error) : undefined}
        onConfirm={() => remove.mutate()}
      >
        <TextField
          label="Username"
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          autoComplete="off"
        />
      </ConfirmDialog>
    </Card>
  );
}

/** The signed-in person's own account: profile, password, MFA, deletion. */
export function AccountPage() {
  const { edition } = useConsole();
  const current = useCurrentUser();
  const user = current.data?.data;
  return (
    <div className="grid max-w-4xl gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Account</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">Your profile, password and sign-in security.</p>
      </div>
      {current.isError ? (
        <Callout kind="error">Your account could not be loaded. {failureText(current.error)}</Callout>
      ) : !user ? (
        <p role="status">Loading your account…</p>
      ) : (
        <>
          <ProfileCard user={user} />
          <PasswordCard />
          {edition === "cloud" && <MfaCard user={user} />}
          <DeleteAccount user={user} />
        </>
      )}
    </div>
  );
}
