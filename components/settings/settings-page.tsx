"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, type ReactNode, useState } from "react";
import { toast } from "sonner";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid } from "@/components/auth/field-errors";
import { Button, Callout, Card, CopyButton, TextField } from "@/components/ui/controls";
import { ConfirmDialog } from "@/components/ui/dialog";
import { LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { UsageBar } from "@/components/ui/usage-bar";
import { editNamespaceBody, namespaceSettings } from "@/lib/schemas/namespaces";
import { type Answer, ApiFailure, api, failureText, json } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { type Namespace, useMoveOutOfNamespace, useNamespace } from "../console/namespace-switcher";
import { queryKeys } from "../console/query-keys";
import { connectCommands } from "../devices/connect-commands";

const namespacePath = (tenant: string) => `/api/namespaces/${encodeURIComponent(tenant)}`;

/** An edit of the namespace: its answer replaces the cached namespace; a new name reaches the switcher and the devices. */
function useEditNamespace() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return useMutation({
    mutationFn: (body: { name?: string; settings?: { connection_announcement?: string } }) =>
      api<Namespace>(namespacePath(tenant), { method: "PUT", body: json(body) }),
    onSuccess: (answer, body) => {
      queryClient.setQueryData(queryKeys.namespace(tenant), answer);
      void queryClient.invalidateQueries({ queryKey: queryKeys.namespaces() });
      // Devices carry the namespace's name in their SSH addresses.
      if (body.name) void queryClient.invalidateQueries({ queryKey: queryKeys.devices.all(tenant) });
    },
  });
}

function Section({ title, description, children }: { title: string; description?: string; children: ReactNode }) {
  return (
    <Card className="grid gap-4 p-4 sm:p-5">
      <div className="grid gap-1">
        <h2 className="font-semibold">{title}</h2>
        {description && <p className="text-sm text-slate-600 dark:text-slate-400">{description}</p>}
      </div>
      {children}
    </Card>
  );
}

function RenameForm({ namespace }: { namespace: Namespace }) {
  const permission = usePermission("namespace.update");
  const edit = useEditNamespace();
  const [errors, setErrors] = useState<FieldErrors>({});
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = event.currentTarget;
    const values = { name: String(new FormData(form).get("name") ?? "").trim() };
    const found = fieldErrorsOf(editNamespaceBody, values);
    setErrors(found);
    if (Object.keys(found).length > 0) {
      focusFirstInvalid(form, found);
      return;
    }
    if (values.name === namespace.name) return;
    edit.mutate(values, {
      onSuccess: () => toast.success(`Namespace renamed to ${values.name}`),
      onError: (failure) => {
        const taken = failure instanceof ApiFailure && failure.status === 409;
        setErrors({ name: taken ? "A namespace with this name exists already." : failureText(failure) });
        focusFirstInvalid(form, { name: "refused" });
      },
    });
  }
  return (
    <form onSubmit={submit} noValidate className="grid gap-2 sm:grid-cols-[1fr_auto] sm:items-start">
      <TextField
        key={namespace.name}
        label="Name"
        name="name"
        defaultValue={namespace.name}
        autoComplete="off"
        disabled={!permission.allowed}
        error={errors.name}
        hint="Part of every SSH address (user@namespace.device@host): renaming changes them all."
      />
      <Button type="submit" className="sm:mt-7" isPending={edit.isPending} deniedReason={permission.reason}>
        Rename
      </Button>
    </form>
  );
}

function TenantId({ tenant }: { tenant: string }) {
  return (
    <div className="grid gap-1.5">
      <p className="text-sm font-medium text-slate-800 dark:text-slate-200">Tenant ID</p>
      <div className="flex items-center gap-2 rounded-md bg-slate-100 py-1 pr-1 pl-3 dark:bg-slate-800">
        <code className="min-w-0 flex-1 font-mono text-sm break-all">{tenant}</code>
        <CopyButton text={tenant} label="Copy the tenant ID" />
      </div>
      <p className="text-xs text-slate-600 dark:text-slate-400">Agents join this namespace with it.</p>
    </div>
  );
}

function RecordingSwitch({ namespace }: { namespace: Namespace }) {
  const { tenant } = useConsole();
  const queryClient = useQueryClient();
  const permission = usePermission("session-record.update");
  const saved = namespace.settings.session_record;
  // While the change is on its way the switch shows where it goes; a refusal puts it back.
  const [intended, setIntended] = useState<boolean>();
  const toggle = useMutation({
    mutationFn: (value: boolean) =>
      api<boolean>(`/api/users/security/${encodeURIComponent(tenant)}`, {
        method: "PUT",
        body: json({ session_record: value }),
      }),
    onSuccess: (answer) => {
      queryClient.setQueryData<Answer<Namespace>>(
        queryKeys.namespace(tenant),
        (cached) =>
          cached && {
            ...cached,
            data: { ...cached.data, settings: { ...cached.data.settings, session_record: answer.data } },
          },
      );
      toast.success(`Session recording turned ${answer.data ? "on" : "off"}`);
    },
    onSettled: () => setIntended(undefined),
  });
  const isOn = intended ?? saved;
  return (
    <div className="grid gap-1">
      <label className="flex items-center justify-between gap-4 text-sm">
        <span>
          <span className="font-medium">Record sessions</span>
          <span className="block text-xs text-slate-600 dark:text-slate-400">
            What SSH sessions show is kept, so administrators can replay it.
          </span>
        </span>
        <input
          type="checkbox"
          role="switch"
          aria-checked={isOn}
          checked={isOn}
          disabled={!permission.allowed || toggle.isPending}
          title={permission.reason}
          onChange={(event) => {
            setIntended(event.target.checked);
            toggle.mutate(event.target.checked);
          }}
          className="size-5 shrink-0 accent-indigo-600"
        />
      </label>
      {permission.reason && <p className="text-xs text-slate-600 dark:text-slate-400">{permission.reason}.</p>}
      {toggle.isError && (
        <p role="alert" className="text-xs font-medium text-red-700 dark:text-red-400">
          Recording was not turned {saved ? "off" : "on"}: {failureText(toggle.error)}
        </p>
      )}
    </div>
  );
}

/** The announcement as the gateway writes it: the API's own schema strips what a terminal would act on. */
const announcementSchema = namespaceSettings.shape.connection_announcement;

function AnnouncementEditor({ namespace }: { namespace: Namespace }) {
  const { info } = useConsole();
  const permission = usePermission("namespace.update");
  const edit = useEditNamespace();
  const saved = namespace.settings.connection_announcement;
  const [draft, setDraft] = useState(saved);
  const parsed = announcementSchema.safeParse(draft);
  const error = parsed.success ? undefined : `${parsed.error.issues[0]?.message ?? "invalid"}.`;
  const shown = parsed.success ? (parsed.data ?? "") : draft;
  const sshLine = connectCommands(info, { namespace: namespace.name, name: "web-1" }).ssh;

  function submit(event: FormEvent) {
    event.preventDefault();
    if (!parsed.success) return;
    edit.mutate(
      { settings: { connection_announcement: parsed.data ?? "" } },
      {
        onSuccess: () => toast.success(draft ? "Connection announcement saved" : "Connection announcement removed"),
      },
    );
  }
  return (
    <form onSubmit={submit} className="grid gap-3">
      <div className="grid gap-1.5">
        <label htmlFor="announcement" className="text-sm font-medium text-slate-800 dark:text-slate-200">
          Connection announcement
        </label>
        <textarea
          id="announcement"
          name="connection_announcement"
          rows={4}
          value={draft}
          disabled={!permission.allowed}
          aria-invalid={error ? true : undefined}
          aria-describedby="announcement-hint"
          onChange={(event) => setDraft(event.target.value)}
          className="block w-full rounded-md bg-white px-3 py-2 font-mono text-sm text-slate-900 outline-1 -outline-offset-1 outline-slate-300 focus:outline-2 focus:-outline-offset-2 focus:outline-indigo-600 disabled:opacity-60 dark:bg-slate-900 dark:text-slate-100 dark:outline-slate-600"
        />
        <p
          id="announcement-hint"
          className={`text-xs ${error ? "font-medium text-red-700 dark:text-red-400" : "text-slate-600 dark:text-slate-400"}`}
        >
          {error ??
            "Shown to everyone who opens a shell on a device of this namespace, before the device's own output."}
        </p>
      </div>
      <div className="grid gap-1">
        <p className="text-xs font-medium text-slate-600 dark:text-slate-400">Preview: what ssh prints</p>
        <pre
          data-testid="announcement-preview"
          className="overflow-x-auto rounded-md bg-slate-900 px-3 py-2 font-mono text-xs leading-5 whitespace-pre-wrap text-slate-100 dark:bg-black/60"
        >
          <span className="text-slate-400">$ {sshLine}</span>
          {"\n"}
          {shown ? `${shown}\n` : ""}
          <span className="text-slate-400">root@web-1:~$</span>
        </pre>
      </div>
      {edit.isError && <Callout kind="error">The announcement was not saved. {failureText(edit.error)}</Callout>}
      <div className="flex gap-2">
        <Button
          type="submit"
          isPending={edit.isPending}
          deniedReason={permission.reason}
          disabled={draft === saved || error !== undefined}
        >
          Save announcement
        </Button>
        {draft !== saved && permission.allowed && (
          <Button variant="secondary" onClick={() => setDraft(saved)}>
            Discard
          </Button>
        )}
      </div>
    </form>
  );
}

function DeviceLimit({ namespace }: { namespace: Namespace }) {
  const used = namespace.device_count;
  const limit = namespace.max_devices;
  return (
    <div className="grid gap-2">
      <UsageBar used={used} limit={limit} />
      {limit >= 0 && used >= limit && (
        <p className="text-xs text-slate-600 dark:text-slate-400">
          The limit is reached: accepting another device is refused until one is removed.
        </p>
      )}
    </div>
  );
}

function DeleteNamespace({ namespace }: { namespace: Namespace }) {
  const { tenant } = useConsole();
  const permission = usePermission("namespace.delete");
  const moveOut = useMoveOutOfNamespace();
  const [isAsking, setAsking] = useState(false);
  const [typed, setTyped] = useState("");
  const remove = useMutation({
    mutationFn: () => api(namespacePath(tenant), { method: "DELETE" }),
    onSuccess: async () => {
      toast.success(`Namespace ${namespace.name} deleted`);
      await moveOut();
    },
  });
  const close = () => {
    setAsking(false);
    setTyped("");
    remove.reset();
  };
  return (
    <div className="grid gap-3">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Deleting the namespace deletes everything in it, for every member. This cannot be undone.
      </p>
      <div>
        <Button variant="danger" deniedReason={permission.reason} onClick={() => setAsking(true)}>
          Delete namespace
        </Button>
      </div>
      <ConfirmDialog
        isOpen={isAsking}
        onClose={close}
        title={`Delete namespace ${namespace.name}?`}
        description={
          <>
            <p>These go with it, for good:</p>
            <ul className="mt-1 list-disc pl-5">
              <li>its {namespace.device_count.toLocaleString()} accepted devices, and the pending and rejected ones</li>
              <li>
                the memberships of its {namespace.members.length.toLocaleString()}{" "}
                {namespace.members.length === 1 ? "member" : "members"}, and their API keys
              </li>
              <li>its public keys, firewall rules and tags</li>
              <li>its session history and recordings</li>
            </ul>
          </>
        }
        confirmLabel={`Delete ${namespace.name}`}
        canConfirm={typed === namespace.name}
        isPending={remove.isPending}
        failure={remove.isError ? failureText(remove.error) : undefined}
        onConfirm={() => remove.mutate()}
      >
        <form
          onSubmit={(event) => {
            event.preventDefault();
            if (typed === namespace.name) remove.mutate();
          }}
        >
          <TextField
            label={`Type ${namespace.name} to confirm`}
            name="confirm-name"
            value={typed}
            autoComplete="off"
            autoFocus
            onChange={(event) => setTyped(event.target.value)}
          />
        </form>
      </ConfirmDialog>
    </div>
  );
}

/** The namespace's settings: General, SSH, Limits and the danger zone. */
export function SettingsPage() {
  const { tenant, edition } = useConsole();
  const query = useNamespace();
  const namespace = query.data?.data;
  return (
    <div className="grid max-w-3xl grid-cols-1 gap-6">
      <div className="grid gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Settings</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          How {namespace ? <strong>{namespace.name}</strong> : "this namespace"} is named, recorded and limited.
        </p>
      </div>
      {query.isError ? (
        <LoadFailure
          message={`The settings could not be loaded. ${failureText(query.error)}`}
          onRetry={() => query.refetch()}
        />
      ) : !namespace ? (
        <LoadingRows label="Loading the settings" />
      ) : (
        <>
          <Section title="General">
            <RenameForm namespace={namespace} />
            <TenantId tenant={tenant} />
          </Section>
          <Section title="SSH" description="What happens when someone opens a session on a device of this namespace.">
            <RecordingSwitch namespace={namespace} />
            <AnnouncementEditor key={namespace.settings.connection_announcement} namespace={namespace} />
          </Section>
          <Section title="Limits">
            <DeviceLimit namespace={namespace} />
            {edition === "cloud" && (
              <Link
                href="/settings/billing"
                className="text-sm font-semibold text-indigo-700 underline dark:text-indigo-300"
              >
                Plan and billing
              </Link>
            )}
          </Section>
          <Section title="Integrations">
            <Link
              href="/settings/webhooks"
              className="text-sm font-semibold text-indigo-700 underline dark:text-indigo-300"
            >
              Webhooks: send this namespace's events to other systems
            </Link>
          </Section>
          <Section title="Danger zone">
            <DeleteNamespace namespace={namespace} />
          </Section>
        </>
      )}
    </div>
  );
}
