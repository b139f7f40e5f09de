"use client";

import { useMutation } from "@tanstack/react-query";
import { FileKey } from "lucide-react";
import { type DragEvent, type FormEvent, useId, useState } from "react";
import { toast } from "sonner";
import { createConnectorBody } from "@/lib/schemas/connectors";
import { ApiFailure, api, failureText, json } from "../console/api";
import { Button, Callout, SwitchField, TextField } from "../ui/controls";
import { Dialog, DialogButtons } from "../ui/dialog";
import { type Connector, connectorPath, connectorsPath, useInvalidateConnectors } from "./connector-data";

type TlsFile = "ca" | "cert" | "key";
const tlsFiles: { name: TlsFile; label: string; hint: string }[] = [
  { name: "ca", label: "CA certificate", hint: "ca.pem: the CA that signed the engine's certificate" },
  { name: "cert", label: "Client certificate", hint: "cert.pem: the certificate the engine accepts" },
  { name: "key", label: "Client key", hint: "key.pem: kept encrypted on the server, never shown again" },
];

/** A PEM file, chosen or dropped; only its name shows once read. */
function FileDrop({
  label,
  hint,
  fileName,
  error,
  onText,
}: {
  label: string;
  hint: string;
  fileName?: string;
  error?: string;
  onText: (text: string, name: string) => void;
}) {
  const id = useId();
  const [isOver, setIsOver] = useState(false);
  const read = (file: File | undefined) => {
    if (file) void file.text().then((text) => onText(text, file.name));
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setIsOver(false);
    read(event.dataTransfer.files[0]);
  };
  return (
    <div className="grid min-w-0 grid-cols-1 gap-1">
      <label
        htmlFor={id}
        onDragOver={(event) => {
          event.preventDefault();
          setIsOver(true);
        }}
        onDragLeave={() => setIsOver(false)}
        onDrop={onDrop}
        className={`flex cursor-pointer items-center gap-3 rounded-md border border-dashed px-3 py-2.5 text-sm ${
          error
            ? "border-red-500"
            : isOver
              ? "border-indigo-500 bg-indigo-50 dark:bg-indigo-950/40"
              : "border-slate-300 dark:border-slate-600"
        }`}
      >
        <FileKey aria-hidden className="size-5 shrink-0 text-slate-500" />
        <span className="min-w-0">
          <span className="block font-medium">{label}</span>
          <span className="block truncate text-xs text-slate-600 dark:text-slate-400">
            {fileName ? `${fileName} (read)` : `Drop the file here or choose it. ${hint}`}
          </span>
        </span>
      </label>
      <input
        id={id}
        type="file"
        accept=".pem,.crt,.cert,.key,text/plain"
        className="sr-only"
        aria-invalid={error ? true : undefined}
        onChange={(event) => read(event.target.files?.[0])}
      />
      {error && <p className="text-xs font-medium text-red-700 dark:text-red-400">{error}</p>}
    </div>
  );
}

type Draft = { address: string; port: string; enable: boolean; secure: boolean };

/** Adds a connector, or changes one: address, port, TLS material as files, enabled. */
export function ConnectorForm({ connector, onClose }: { connector?: Connector; onClose: () => void }) {
  const invalidate = useInvalidateConnectors();
  const [draft, setDraft] = useState<Draft>({
    address: connector?.address ?? "",
    port: String(connector?.port ?? 2376),
    enable: connector?.enable ?? true,
    secure: connector?.secure ?? true,
  });
  const [tls, setTls] = useState<Partial<Record<TlsFile, { text: string; name: string }>>>({});
  const [errors, setErrors] = useState<Record<string, string>>({});
  const hasStoredTls = connector?.tls !== null && connector?.tls !== undefined;
  const save = useMutation({
    mutationFn: (body: unknown) =>
      connector
        ? api<Connector>(connectorPath(connector.uid), { method: "PATCH", body: json(body) })
        : api<Connector>(connectorsPath, { method: "POST", body: json(body) }),
    onSuccess: () => {
      toast.success(connector ? "Connector saved" : "Connector added");
      invalidate();
      onClose();
    },
    onError: (error) => {
      if (error instanceof ApiFailure && error.fields.length > 0) {
        setErrors(Object.fromEntries(error.fields.map((field) => [field.field, field.message])));
      }
    },
  });

  const submit = (event: FormEvent) => {
    event.preventDefault();
    const hasFiles = tls.ca !== undefined || tls.cert !== undefined || tls.key !== undefined;
    const material = hasFiles ? { ca: tls.ca?.text, cert: tls.cert?.text, key: tls.key?.text } : undefined;
    // Plain HTTP drops the material; an edit that adds no files keeps the stored one.
    const tlsField = !draft.secure ? null : (material ?? (hasStoredTls ? undefined : null));
    const body = {
      address: draft.address,
      port: draft.port === "" ? Number.NaN : Number(draft.port),
      enable: draft.enable,
      secure: draft.secure,
      ...(tlsField === undefined ? {} : { tls: tlsField }),
    };
    const checked = createConnectorBody.safeParse({ ...body, tls: tlsField ?? null });
    const found: Record<string, string> = {};
    if (!checked.success) {
      for (const issue of checked.error.issues) found[issue.path.join(".") || "body"] ??= issue.message;
    }
    if (draft.secure && tlsField === null) found.tls = "Add the CA certificate, the client certificate and its key";
    setErrors(found);
    if (Object.keys(found).length === 0) save.mutate(body);
  };

  return (
    <Dialog isOpen onClose={onClose} title={connector ? "Edit connector" : "Add connector"} isWide>
      <form onSubmit={submit} noValidate className="grid gap-4">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          A Docker engine this service dials (the Docker Engine API, usually port 2376 with TLS). Its running containers
          become devices of the namespace.
        </p>
        <div className="grid items-start gap-3 sm:grid-cols-[1fr_8rem]">
          <TextField
            label="Address"
            placeholder="docker.example.org"
            value={draft.address}
            error={errors.address}
            onChange={(event) => setDraft({ ...draft, address: event.target.value })}
            autoComplete="off"
            required
          />
          <TextField
            label="Port"
            inputMode="numeric"
            value={draft.port}
            error={errors.port}
            onChange={(event) => setDraft({ ...draft, port: event.target.value.trim() })}
            required
          />
        </div>
        <SwitchField isOn={draft.secure} onChange={(secure) => setDraft({ ...draft, secure })}>
          Use TLS (HTTPS with a client certificate)
        </SwitchField>
        {draft.secure ? (
          <fieldset className="grid min-w-0 grid-cols-1 gap-2">
            <legend className="mb-1 text-sm font-medium">
              TLS material{hasStoredTls ? " (stored; add all three files to replace it)" : ""}
            </legend>
            {tlsFiles.map((file) => (
              <FileDrop
                key={file.name}
                label={file.label}
                hint={file.hint}
                fileName={tls[file.name]?.name}
                error={errors[`tls.${file.name}`]}
                onText={(text, name) => setTls((current) => ({ ...current, [file.name]: { text, name } }))}
              />
            ))}
            {errors.tls && <p className="text-xs font-medium text-red-700 dark:text-red-400">{errors.tls}</p>}
          </fieldset>
        ) : (
          <Callout kind="error">
            Without TLS, the engine's API travels unencrypted and anyone who reaches its port controls its containers.
          </Callout>
        )}
        <SwitchField isOn={draft.enable} onChange={(enable) => setDraft({ ...draft, enable })}>
          Enabled: keep it connected and its containers listed
        </SwitchField>
        {save.isError && !(save.error instanceof ApiFailure && save.error.fields.length > 0) && (
          <Callout kind="error">{failureText(save.error)}</Callout>
        )}
        <DialogButtons onCancel={onClose}>
          <Button type="submit" isPending={save.isPending}>
            {connector ? "Save connector" : "Add connector"}
          </Button>
        </DialogButtons>
      </form>
    </Dialog>
  );
}
