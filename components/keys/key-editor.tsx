"use client";

import { type FormEvent, useId, useState } from "react";
import { toast } from "sonner";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { DialogButtons } from "@/components/ui/dialog";
import { createPublicKeyBody, updatePublicKeyBody } from "@/lib/schemas/public-keys";
import {
  isPrivateKeyText,
  KeyLineProblem,
  keyDataOf,
  md5Fingerprint,
  parsePublicKeyLine,
  type SshPublicKey,
  sha256Fingerprint,
} from "@/lib/ssh-public-key";
import { fieldErrorsOf } from "../auth/field-errors";
import { api, json } from "../console/api";
import { keyPath, keysPath, type PublicKey, useInvalidateKeys } from "./key-data";
import { type DeviceFilter, FilterEditor, patternErrorsOf, UsernameRule, useEditorSave } from "./rule-editors";

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
// A public key line is under 1 KB (RSA 8192 bits is about 1.4 KB); the API takes 16 KB of base64.
const maxKeyFileBytes = 12_000;

type Reading = { key?: SshPublicKey; problem?: string };

/** What the pasted text is: a key to show, or why it is refused (the server's rules, lib/ssh-public-key.ts). */
function read(text: string): Reading {
  if (!text.trim()) return {};
  if (isPrivateKeyText(text)) {
    return { problem: "This is a private key — paste the .pub file's line instead. Keep the private key to yourself." };
  }
  try {
    return { key: parsePublicKeyLine(text) };
  } catch (error) {
    if (error instanceof KeyLineProblem) return { problem: sentence(error.message) };
    throw error;
  }
}

const keyTypeNames: Record<SshPublicKey["type"], string> = {
  "ssh-ed25519": "Ed25519",
  "ssh-rsa": "RSA",
  "ecdsa-sha2-nistp256": "ECDSA (P-256)",
  "ecdsa-sha2-nistp384": "ECDSA (P-384)",
  "ecdsa-sha2-nistp521": "ECDSA (P-521)",
};

function KeyFacts({ keyLine }: { keyLine: SshPublicKey }) {
  const rows: [string, string][] = [
    ["Type", keyTypeNames[keyLine.type]],
    ["Size", `${keyLine.bits} bits`],
    ["Comment", keyLine.comment || "—"],
    ["Fingerprint", sha256Fingerprint(keyLine.blob)],
    ["MD5", md5Fingerprint(keyLine.blob)],
  ];
  return (
    <dl
      aria-label="The key read from your text"
      className="grid grid-cols-[max-content_1fr] gap-x-3 gap-y-1 rounded-md bg-emerald-50 p-3 text-xs text-emerald-950 dark:bg-emerald-950/50 dark:text-emerald-50"
    >
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="font-medium">{label}</dt>
          <dd className="min-w-0 font-mono break-all">{value}</dd>
        </div>
      ))}
    </dl>
  );
}

/** The key's text, by paste or from its file, read as it is typed. */
function KeyInput({ text, onText, error }: { text: string; onText: (text: string) => void; error?: string }) {
  const id = useId();
  const [fileProblem, setFileProblem] = useState<string>();
  const reading = read(text);
  const shown = fileProblem ?? reading.problem ?? error;
  async function choose(file: File | undefined) {
    if (!file) return;
    if (file.size > maxKeyFileBytes) {
      setFileProblem(`${file.name} is too large to be a public key: choose the .pub file.`);
      return;
    }
    setFileProblem(undefined);
    onText((await file.text()).trim());
  }
  return (
    <div className="grid gap-1.5">
      <label htmlFor={id} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        Public key
      </label>
      <textarea
        id={id}
        name="data"
        rows={3}
        value={text}
        spellCheck={false}
        placeholder="ssh-ed25519 AAAAC3Nza… you@laptop"
        aria-invalid={shown ? true : undefined}
        aria-describedby={`${id}-help`}
        onChange={(event) => {
          setFileProblem(undefined);
          onText(event.target.value);
        }}
        className={`block w-full rounded-md bg-white px-3 py-2 font-mono text-xs text-slate-900 outline-1 -outline-offset-1 placeholder:text-slate-500 focus:outline-2 focus:-outline-offset-2 dark:bg-slate-900 dark:text-slate-100 dark:placeholder:text-slate-400 ${
          shown ? "outline-red-500" : "outline-slate-300 focus:outline-indigo-600 dark:outline-slate-600"
        }`}
      />
      <div className="flex flex-wrap items-center gap-2 text-sm text-slate-700 dark:text-slate-300">
        <label htmlFor={`${id}-file`}>Or choose its file</label>
        <input
          id={`${id}-file`}
          type="file"
          accept=".pub,text/plain"
          onChange={(event) => void choose(event.target.files?.[0])}
          className="min-w-0 text-xs file:mr-2 file:rounded-md file:border-0 file:bg-slate-100 file:px-2.5 file:py-1.5 file:text-xs file:font-semibold file:text-slate-900 hover:file:bg-slate-200 dark:file:bg-slate-700 dark:file:text-slate-100"
        />
      </div>
      <div id={`${id}-help`}>
        {shown ? (
          <p role="alert" className="text-xs font-medium text-red-700 dark:text-red-400">
            {shown}
          </p>
        ) : reading.key ? (
          <KeyFacts keyLine={reading.key} />
        ) : (
          <p className="text-xs text-slate-600 dark:text-slate-400">
            The line of your <code>~/.ssh/id_ed25519.pub</code> (or another .pub): ed25519, ECDSA or RSA of 1024 bits or
            more.
          </p>
        )}
      </div>
    </div>
  );
}

/**
 * Adds a key (`existing` absent) or edits one: name, users and devices, checked with the API's own
 * schemas and regex rules before sending; the server's refusals land at their fields.
 */
export function KeyEditor({ existing, onDone }: { existing?: PublicKey; onDone: () => void }) {
  const invalidate = useInvalidateKeys();
  const [text, setText] = useState("");
  const [name, setName] = useState(existing?.name ?? "");
  const [isNameTouched, setNameTouched] = useState(existing !== undefined);
  const [username, setUsername] = useState(existing?.username ?? ".*");
  const [filter, setFilter] = useState<DeviceFilter>(existing?.filter ?? { hostname: ".*" });
  const { errors, submit, isPending, failure } = useEditorSave({
    send: (body) =>
      existing
        ? api<PublicKey>(keyPath(existing.fingerprint), { method: "PUT", body: json(body) })
        : api<PublicKey>(keysPath, { method: "POST", body: json(body) }),
    onSaved: (saved) => {
      toast.success(existing ? `Public key ${saved.name} saved` : `Public key ${saved.name} added`);
      invalidate();
      onDone();
    },
    conflictField: "data",
  });

  function onText(next: string) {
    setText(next);
    const key = read(next).key;
    if (key && !isNameTouched) setName(key.comment);
  }

  function check(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = { name, username, filter, ...(existing ? {} : { data: text.trim() ? keyDataOf(text) : "" }) };
    const found = {
      ...fieldErrorsOf(existing ? updatePublicKeyBody : createPublicKeyBody, values),
      ...patternErrorsOf(filter, { username }),
    };
    if (!existing) {
      const reading = read(text);
      if (!text.trim()) found.data = "Paste a public key or choose its file.";
      else if (reading.problem) found.data = reading.problem;
    }
    submit(event.currentTarget, values, found);
  }

  return (
    <form onSubmit={check} noValidate className="grid gap-5">
      {!existing && <KeyInput text={text} onText={onText} error={errors.data} />}
      <TextField
        label="Name"
        name="name"
        value={name}
        onChange={(event) => {
          setNameTouched(true);
          setName(event.target.value);
        }}
        error={errors.name}
        hint={existing ? undefined : "Taken from the key's comment until you change it."}
        autoComplete="off"
      />
      <UsernameRule value={username} onChange={setUsername} error={errors.username} />
      <FilterEditor filter={filter} onChange={setFilter} errors={errors} />
      {failure && <Callout kind="error">{failure}</Callout>}
      <DialogButtons onCancel={onDone}>
        <Button type="submit" isPending={isPending}>
          {existing ? "Save key" : "Add key"}
        </Button>
      </DialogButtons>
    </form>
  );
}
