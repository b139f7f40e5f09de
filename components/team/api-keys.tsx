"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { KeyRound, Pencil, Plus } from "lucide-react";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid } from "@/components/auth/field-errors";
import { Badge, Button, Callout, CommandLine, CopyButton, SelectField, TextField } from "@/components/ui/controls";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { EmptyState, LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { RelativeTime, useNow } from "@/components/ui/relative-time";
import { ResponsiveTable } from "@/components/ui/responsive-table";
import { isRoleAbove, type MemberRole } from "@/lib/auth/roles";
import { createApiKeyBody, updateApiKeyBody } from "@/lib/schemas/api-keys";
import { ApiFailure, api, failureText, json } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { queryKeys } from "../console/query-keys";
import { byExpiry, expiryOf } from "./api-key-expiry";
import { grantableRoles } from "./members";
import { TeamTabs } from "./team-tabs";

type ApiKey = {
  name: string;
  role: MemberRole;
  expires_in: number;
  created_by: string;
  created_at: string;
};

const keysPath = "/api/namespaces/api-key";
const keyPath = (name: string) => `${keysPath}/${encodeURIComponent(name)}`;

const expiryChoices = [
  { value: 30, label: "30 days" },
  { value: 60, label: "60 days" },
  { value: 90, label: "90 days" },
  { value: 365, label: "1 year" },
  { value: -1, label: "Never" },
];

function useApiKeys() {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.apiKeys(tenant),
    queryFn: () => api<ApiKey[]>(`${keysPath}?per_page=100&sort_by=expires_in&order_by=asc`),
  });
}

function useInvalidateKeys() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.apiKeys(tenant) });
}

/** Refusals of a key form mapped to its fields: a taken name (409), a role above the caller's (403). */
function keyFieldErrors(failure: unknown): FieldErrors {
  const status = failure instanceof ApiFailure ? failure.status : 0;
  if (status === 409) return { name: failureText(failure) };
  if (status === 403) return { role: failureText(failure) };
  return {};
}

/** Roles a key may get: up to the creator's own, owner included for the owner. */
const ascendingUpTo = (role: MemberRole | undefined) =>
  role === "owner" ? [...grantableRoles(role), "owner" as const] : grantableRoles(role);

/** The new key, once: with a copy button and a first call to try it. */
function NewKey({ created, onClose }: { created?: { name: string; key: string }; onClose: () => void }) {
  const { publicUrl } = useConsole();
  return (
    <Dialog
      isOpen={created !== undefined}
      onClose={onClose}
      title={`API key ${created?.name ?? ""} created`}
      description="Copy this key now. You won't be able to see it again."
    >
      {created && (
        <>
          <div className="flex items-center gap-2 rounded-md bg-slate-100 py-1 pr-1 pl-3 dark:bg-slate-800">
            <code data-testid="new-api-key" className="min-w-0 flex-1 font-mono text-sm break-all">
              {created.key}
            </code>
            <CopyButton text={created.key} label="Copy the key" />
          </div>
          <div className="grid gap-1">
            <p className="text-xs font-medium text-slate-600 dark:text-slate-400">Try it: list the devices</p>
            <CommandLine
              command={`curl -H "X-API-KEY: ${created.key}" ${publicUrl}/api/devices`}
              label="Copy the curl command"
            />
          </div>
          <div className="flex justify-end">
            <Button onClick={onClose}>I copied it</Button>
          </div>
        </>
      )}
    </Dialog>
  );
}

function CreateKey() {
  const { role } = useConsole();
  const permission = usePermission("apikey.create");
  const invalidate = useInvalidateKeys();
  const [isOpen, setOpen] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const create = useMutation({
    mutationFn: (input: { name: string; role: MemberRole; expires_at: number }) =>
      api<ApiKey & { id: string }>(keysPath, { method: "POST", body: json(input) }),
    onSettled: invalidate,
  });
  const roles = ascendingUpTo(role);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const data = new FormData(form);
    const values = {
      name: String(data.get("name") ?? ""),
      role: data.get("role"),
      expires_at: Number(data.get("expires_at")),
    };
    const found = fieldErrorsOf(createApiKeyBody, values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(form, found);
      return;
    }
    const input = createApiKeyBody.parse(values);
    create.mutate(
      { name: input.name, role: input.role || (role ?? "observer"), expires_at: input.expires_at },
      {
        onSuccess: (answer) => {
          setOpen(false);
          setCreated({ name: answer.data.name, key: answer.data.id });
        },
        onError: (failure) => {
          const mapped = keyFieldErrors(failure);
          setErrors(mapped);
          focusFirstInvalid(form, mapped);
        },
      },
    );
  }

  const isFieldError = Object.values(errors).some(Boolean);
  return (
    <>
      <Button
        deniedReason={permission.reason}
        onClick={() => {
          setErrors({});
          create.reset();
          setOpen(true);
        }}
      >
        <Plus aria-hidden className="size-4" /> Create API key
      </Button>
      <Dialog
        isOpen={isOpen}
        onClose={() => setOpen(false)}
        title="Create an API key"
        description="Scripts send it as the X-API-KEY header. It acts with its role, never above yours."
      >
        <form onSubmit={submit} noValidate className="grid gap-3">
          <TextField
            label="Name"
            name="name"
            autoComplete="off"
            autoFocus
            error={errors.name}
            hint="3 to 20 characters, no spaces or slashes."
          />
          <SelectField label="Role" name="role" defaultValue={role ?? "observer"} error={errors.role}>
            {roles.map((choice) => (
              <option key={choice} value={choice}>
                {choice}
              </option>
            ))}
          </SelectField>
          <SelectField label="Expires after" name="expires_at" defaultValue={30}>
            {expiryChoices.map((choice) => (
              <option key={choice.value} value={choice.value}>
                {choice.label}
              </option>
            ))}
          </SelectField>
          {create.isError && !isFieldError && <Callout kind="error">{failureText(create.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" isPending={create.isPending}>
              Create key
            </Button>
          </div>
        </form>
      </Dialog>
      <NewKey created={created} onClose={() => setCreated(undefined)} />
    </>
  );
}

/** Why the signed-in member may not take `action` on `key`, if they may not. */
function useKeyDenial(key: ApiKey, action: "apikey.update" | "apikey.delete") {
  const { role } = useConsole();
  const permission = usePermission(action);
  if (!permission.allowed) return permission.reason;
  if (role && isRoleAbove(key.role, role)) return "This key's role is above yours";
  return undefined;
}

function RenameKey({ apiKey }: { apiKey: ApiKey }) {
  const denied = useKeyDenial(apiKey, "apikey.update");
  const invalidate = useInvalidateKeys();
  const [isOpen, setOpen] = useState(false);
  const [errors, setErrors] = useState<FieldErrors>({});
  const rename = useMutation({
    mutationFn: (name: string) => api<ApiKey>(keyPath(apiKey.name), { method: "PATCH", body: json({ name }) }),
    onSettled: invalidate,
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const values = { name: String(new FormData(form).get("name") ?? "") };
    const found = fieldErrorsOf(updateApiKeyBody, values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(form, found);
      return;
    }
    const name = updateApiKeyBody.parse(values).name ?? apiKey.name;
    if (name === apiKey.name) {
      setOpen(false);
      return;
    }
    rename.mutate(name, {
      onSuccess: () => {
        setOpen(false);
        toast.success(`API key renamed to ${name}`);
      },
      onError: (failure) => setErrors(keyFieldErrors(failure)),
    });
  }
  const isFieldError = Object.values(errors).some(Boolean);
  return (
    <>
      <Button
        size="sm"
        variant="ghost"
        deniedReason={denied}
        onClick={() => {
          setErrors({});
          rename.reset();
          setOpen(true);
        }}
      >
        <Pencil aria-hidden className="size-3.5" /> Rename<span className="sr-only"> {apiKey.name}</span>
      </Button>
      <Dialog isOpen={isOpen} onClose={() => setOpen(false)} title={`Rename API key ${apiKey.name}`}>
        <form onSubmit={submit} noValidate className="grid gap-3">
          <TextField
            label="New name"
            name="name"
            defaultValue={apiKey.name}
            autoComplete="off"
            autoFocus
            error={errors.name}
          />
          {rename.isError && !isFieldError && <Callout kind="error">{failureText(rename.error)}</Callout>}
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => setOpen(false)}>
              Cancel
            </Button>
            <Button type="submit" isPending={rename.isPending}>
              Rename
            </Button>
          </div>
        </form>
      </Dialog>
    </>
  );
}

function DeleteKey({ apiKey }: { apiKey: ApiKey }) {
  const denied = useKeyDenial(apiKey, "apikey.delete");
  const invalidate = useInvalidateKeys();
  const [isAsking, setAsking] = useState(false);
  const remove = useMutation({
    mutationFn: () => api(keyPath(apiKey.name), { method: "DELETE" }),
    onSuccess: () => {
      setAsking(false);
      toast.success(`API key ${apiKey.name} deleted`);
    },
    onSettled: invalidate,
  });
  return (
    <>
      <Button size="sm" variant="secondary" deniedReason={denied} onClick={() => setAsking(true)}>
        Delete<span className="sr-only"> {apiKey.name}</span>
      </Button>
      <ConfirmDialog
        isOpen={isAsking}
        onClose={() => {
          setAsking(false);
          remove.reset();
        }}
        title={`Delete API key ${apiKey.name}?`}
        description="Scripts that send it are refused from now on. This cannot be undone."
        confirmLabel={`Delete ${apiKey.name}`}
        isPending={remove.isPending}
        failure={remove.isError ? failureText(remove.error) : undefined}
        onConfirm={() => remove.mutate()}
      />
    </>
  );
}

function ExpiryText({ expiresIn }: { expiresIn: number }) {
  const expiry = expiryOf(expiresIn, useNow());
  if (expiry.kind === "never") return <span>Never</span>;
  const date = (
    <time dateTime={expiry.date.toISOString()} title={expiry.date.toLocaleString()}>
      {expiry.date.toLocaleDateString()}
    </time>
  );
  if (expiry.kind === "expired") {
    return (
      <span className="inline-flex flex-wrap items-center gap-1.5">
        {date} <Badge color="red">Expired</Badge>
      </span>
    );
  }
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      {date}
      <span className="text-slate-600 dark:text-slate-400">expires in {expiry.daysLeft} d</span>
      {expiry.kind === "soon" && <Badge color="amber">Expires soon</Badge>}
    </span>
  );
}

function KeyActions({ apiKey }: { apiKey: ApiKey }) {
  return (
    <div className="flex gap-2 sm:justify-end">
      <RenameKey apiKey={apiKey} />
      <DeleteKey apiKey={apiKey} />
    </div>
  );
}

function KeyList({ keys }: { keys: ApiKey[] }) {
  return (
    <ResponsiveTable
      label="API keys, soonest expiry first"
      items={keys}
      keyOf={(apiKey) => apiKey.name}
      columns={[
        { header: "Name", cell: (apiKey) => apiKey.name, className: "font-medium whitespace-nowrap" },
        { header: "Role", cell: (apiKey) => <Badge>{apiKey.role}</Badge> },
        { header: "Expires", cell: (apiKey) => <ExpiryText expiresIn={apiKey.expires_in} /> },
        {
          header: "Created",
          cell: (apiKey) => <RelativeTime value={apiKey.created_at} />,
          className: "whitespace-nowrap",
        },
        { header: null, cell: (apiKey) => <KeyActions apiKey={apiKey} /> },
      ]}
      card={(apiKey) => (
        <>
          <div className="flex items-center justify-between gap-2">
            <span className="truncate font-medium">{apiKey.name}</span>
            <Badge>{apiKey.role}</Badge>
          </div>
          <p className="text-xs">
            <ExpiryText expiresIn={apiKey.expires_in} />
          </p>
          <KeyActions apiKey={apiKey} />
        </>
      )}
    />
  );
}

/** The namespace's API keys: create (shown once), rename, delete; soonest expiry first. */
export function ApiKeysPage() {
  const query = useApiKeys();
  const keys = [...(query.data?.data ?? [])].sort(byExpiry);
  return (
    <div className="grid grid-cols-1 gap-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">API keys</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            API keys let scripts call the API for this namespace without a login.
          </p>
        </div>
        <CreateKey />
      </div>
      <TeamTabs />
      {query.isError ? (
        <LoadFailure
          message={`The API keys could not be loaded. ${failureText(query.error)}`}
          onRetry={() => query.refetch()}
        />
      ) : query.isPending ? (
        <LoadingRows label="Loading API keys" />
      ) : keys.length === 0 ? (
        <EmptyState icon={KeyRound} title="No API keys yet: create one for your scripts." />
      ) : (
        <KeyList keys={keys} />
      )}
    </div>
  );
}
