"use client";

import { useMutation } from "@tanstack/react-query";
import { Download } from "lucide-react";
import { type FormEvent, useRef, useState } from "react";
import type { z } from "zod";
import { CodeInput } from "@/components/auth/code-input";
import { LockoutCountdown } from "@/components/auth/lockout-countdown";
import { Button, Callout, CopyButton, TextField } from "@/components/ui/controls";
import { Dialog } from "@/components/ui/dialog";
import { confirmPassword } from "@/lib/console/confirm-password";
import type { mfaCredentials } from "@/lib/schemas/mfa";
import { email } from "@/lib/schemas/users";
import { api, failureText, json } from "../console/api";
import { useConsole } from "../console/context";
import { accountFieldErrors, type CurrentUser } from "./account-data";

type Credentials = z.infer<typeof mfaCredentials>;
type Step = "password" | "recovery-email" | "scan" | "codes" | "verify" | "done";

const stepTitles: Record<Step, string> = {
  password: "Confirm it is you",
  "recovery-email": "Add a recovery e-mail",
  scan: "Scan the QR code",
  codes: "Save your recovery codes",
  verify: "Enter a code from the app",
  done: "Two-factor authentication is on",
};

function PasswordStep({ onDone }: { onDone: () => void }) {
  const [message, setMessage] = useState<string>();
  const [lockedUntil, setLockedUntil] = useState<number>();
  const [isPending, setPending] = useState(false);
  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setPending(true);
    const check = await confirmPassword(String(new FormData(event.currentTarget).get("password") ?? ""));
    setPending(false);
    if (check.ok) return onDone();
    setMessage(check.message);
    setLockedUntil(check.lockedUntil && check.lockedUntil * 1000 > Date.now() ? check.lockedUntil : undefined);
  }
  return (
    <form onSubmit={submit} className="grid gap-4">
      {lockedUntil ? (
        <Callout kind="error">
          <LockoutCountdown until={lockedUntil} />
        </Callout>
      ) : null}
      <TextField
        label="Your password"
        name="password"
        type="password"
        autoComplete="current-password"
        required
        autoFocus
        error={message}
      />
      <Button type="submit" isPending={isPending}>
        Continue
      </Button>
    </form>
  );
}

function RecoveryEmailStep({ onDone }: { onDone: () => void }) {
  const [error, setError] = useState<string>();
  const save = useMutation({
    mutationFn: (address: string) => api("/api/users", { method: "PATCH", body: json({ recovery_email: address }) }),
    onSuccess: onDone,
    onError: (failure) =>
      setError(
        accountFieldErrors(failure, { recovery_email: "Must differ from your e-mail." })?.recovery_email ??
          failureText(failure),
      ),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const typed = String(new FormData(event.currentTarget).get("recovery_email") ?? "");
    const parsed = email.safeParse(typed);
    if (!parsed.success) return setError("Enter an e-mail address.");
    save.mutate(parsed.data);
  }
  return (
    <form onSubmit={submit} className="grid gap-4">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        If you lose your phone and your recovery codes, MFA is reset with two codes: one sent to your e-mail, one to
        this address.
      </p>
      <TextField
        label="Recovery e-mail"
        name="recovery_email"
        type="email"
        autoComplete="email"
        required
        autoFocus
        error={error}
        hint="Must differ from your e-mail. Once set, it cannot be removed."
      />
      <Button type="submit" isPending={save.isPending}>
        Continue
      </Button>
    </form>
  );
}

function ScanStep({ credentials, onNext }: { credentials: Credentials; onNext: () => void }) {
  return (
    <div className="grid gap-4">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Scan this code with an authenticator app (such as Google Authenticator, 1Password or Aegis).
      </p>
      {/* biome-ignore lint/performance/noImgElement: a data URL made by the server, not a remote image */}
      <img
        src={credentials.qr_code}
        alt="QR code for TOTP setup"
        width={200}
        height={200}
        className="mx-auto rounded-md bg-white p-2"
      />
      <details className="text-sm">
        <summary className="cursor-pointer font-medium">Can't scan it?</summary>
        <div className="mt-2 grid gap-2">
          <p>Enter this key in the app:</p>
          <div className="flex items-center gap-2">
            <code
              data-testid="mfa-secret"
              className="min-w-0 flex-1 rounded bg-slate-100 px-2 py-1 font-mono text-xs break-all dark:bg-slate-800"
            >
              {credentials.secret}
            </code>
            <CopyButton text={credentials.secret} label="Copy the key" />
          </div>
          <a href={credentials.link} className="font-medium text-indigo-700 underline dark:text-indigo-300">
            Open in an authenticator app on this device
          </a>
        </div>
      </details>
      <Button onClick={onNext}>Continue</Button>
    </div>
  );
}

function CodesStep({ codes, onNext }: { codes: string[]; onNext: () => void }) {
  const { user } = useConsole();
  const [isSaved, setSaved] = useState(false);
  const text = `${codes.join("\n")}\n`;
  function download() {
    const link = document.createElement("a");
    link.href = URL.createObjectURL(new Blob([text], { type: "text/plain" }));
    link.download = `device-access-recovery-codes-${user.username}.txt`;
    link.click();
    URL.revokeObjectURL(link.href);
  }
  return (
    <div className="grid gap-4">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Each code logs you in once if you lose your phone. They are shown only now: keep them somewhere safe.
      </p>
      <ol
        aria-label="Recovery codes"
        className="grid grid-cols-2 gap-1.5 rounded-md bg-slate-100 p-3 font-mono text-sm dark:bg-slate-800"
      >
        {codes.map((code) => (
          <li key={code}>{code}</li>
        ))}
      </ol>
      <div className="flex flex-wrap items-center gap-2">
        <Button variant="secondary" size="sm" onClick={download}>
          <Download aria-hidden className="size-4" /> Download
        </Button>
        <span className="inline-flex items-center gap-1 text-sm">
          <CopyButton text={text} label="Copy the recovery codes" /> Copy
        </span>
      </div>
      <label className="flex items-center gap-2 text-sm font-medium">
        <input type="checkbox" checked={isSaved} onChange={(event) => setSaved(event.target.checked)} />I saved my
        recovery codes
      </label>
      <Button onClick={onNext} disabled={!isSaved}>
        Continue
      </Button>
    </div>
  );
}

function VerifyStep({ credentials, onDone }: { credentials: Credentials; onDone: () => void }) {
  const form = useRef<HTMLFormElement>(null);
  const enable = useMutation({
    // The codes go to the server exactly as they were shown.
    mutationFn: (code: string) =>
      api("/api/user/mfa/enable", {
        method: "PUT",
        body: json({ code, secret: credentials.secret, recovery_codes: credentials.recovery_codes }),
      }),
    onSuccess: onDone,
  });
  // A new set of boxes after a refused code.
  const [attempt, setAttempt] = useState(0);
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const code = String(new FormData(event.currentTarget).get("code") ?? "");
    if (code.length === 6) enable.mutate(code, { onError: () => setAttempt((count) => count + 1) });
  }
  return (
    <form ref={form} onSubmit={submit} className="grid gap-4">
      {enable.isError && (
        <Callout kind="error">
          {enable.error instanceof Error && /invalid code/.test(enable.error.message)
            ? "That code is wrong or has expired: enter the code the app shows now."
            : failureText(enable.error)}
        </Callout>
      )}
      <CodeInput key={attempt} name="code" invalid={enable.isError} onComplete={() => form.current?.requestSubmit()} />
      <Button type="submit" isPending={enable.isPending}>
        Turn on MFA
      </Button>
    </form>
  );
}

/**
 * Turning MFA on: the password again, a recovery e-mail when there is none, the QR code, the
 * recovery codes (saved before going on), then a code from the app. The secret and the codes are
 * made once per run of the wizard; closing it before the last step throws them away.
 */
export function MfaEnrolment({
  user,
  isOpen,
  onClose,
  onEnabled,
}: {
  user: CurrentUser;
  isOpen: boolean;
  onClose: () => void;
  onEnabled: () => void;
}) {
  const [step, setStep] = useState<Step>("password");
  const generate = useMutation({ mutationFn: () => api<Credentials>("/api/user/mfa/generate") });
  const credentials = generate.data?.data;
  const toScan = () => {
    setStep("scan");
    generate.mutate();
  };
  const close = () => {
    setStep("password");
    generate.reset();
    onClose();
  };
  return (
    <Dialog isOpen={isOpen} onClose={close} title={stepTitles[step]}>
      {step === "password" && (
        <PasswordStep onDone={() => (user.recovery_email ? toScan() : setStep("recovery-email"))} />
      )}
      {step === "recovery-email" && <RecoveryEmailStep onDone={toScan} />}
      {(step === "scan" || step === "codes" || step === "verify") &&
        (generate.isError ? (
          <Callout kind="error">{failureText(generate.error)}</Callout>
        ) : !credentials ? (
          <p role="status">Making your key…</p>
        ) : step === "scan" ? (
          <ScanStep credentials={credentials} onNext={() => setStep("codes")} />
        ) : step === "codes" ? (
          <CodesStep codes={credentials.recovery_codes} onNext={() => setStep("verify")} />
        ) : (
          <VerifyStep
            credentials={credentials}
            onDone={() => {
              setStep("done");
              onEnabled();
            }}
          />
        ))}
      {step === "done" && (
        <div className="grid gap-4">
          <p className="text-sm text-slate-700 dark:text-slate-300">
            From now on, logging in asks for a code from your app after the password.
          </p>
          <Button onClick={close}>Finish</Button>
        </div>
      )}
      {step !== "done" && (
        <Button variant="ghost" onClick={close}>
          Cancel
        </Button>
      )}
    </Dialog>
  );
}
