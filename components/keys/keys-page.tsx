"use client";

import { useMutation } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
import dynamic from "next/dynamic";
import { Fragment, useState } from "react";
import { toast } from "sonner";
import { Button, CopyButton } from "@/components/ui/controls";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { EmptyState, LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { RelativeTime } from "@/components/ui/relative-time";
import { CardField, ResponsiveTable } from "@/components/ui/responsive-table";
import { api, failureText } from "../console/api";
import { usePermission } from "../console/context";
import { keyPath, type PublicKey, useInvalidateKeys, usePublicKeys } from "./key-data";

// The editor (and the regular expression engine of its previews) loads when it opens.
const KeyEditor = dynamic(() => import("./key-editor").then((module) => module.KeyEditor));

import { FilterSummary, PatternSummary } from "./rule-summaries";

type Editing = { kind: "add" } | { kind: "edit"; key: PublicKey };

function DeleteKey({ keyItem, onClose }: { keyItem: PublicKey | undefined; onClose: () => void }) {
  const invalidate = useInvalidateKeys();
  const remove = useMutation({
    mutationFn: (key: PublicKey) => api(keyPath(key.fingerprint), { method: "DELETE" }),
    onSuccess: (_answer, key) => {
      toast.success(`Public key ${key.name} deleted`);
      invalidate();
      onClose();
    },
  });
  return (
    <ConfirmDialog
      isOpen={keyItem !== undefined}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title={`Delete public key ${keyItem?.name ?? ""}?`}
      description="Logins with this key stop working at once, on every device it was admitted to. This cannot be undone."
      confirmLabel={`Delete ${keyItem?.name ?? "key"}`}
      isPending={remove.isPending}
      failure={remove.isError ? failureText(remove.error) : undefined}
      onConfirm={() => keyItem && remove.mutate(keyItem)}
    />
  );
}

function KeyActions({ keyItem, onEdit, onDelete }: { keyItem: PublicKey; onEdit: () => void; onDelete: () => void }) {
  const manage = usePermission("publickey.manage");
  return (
    <span className="inline-flex gap-2">
      <Button size="sm" variant="secondary" deniedReason={manage.reason} onClick={onEdit}>
        Edit<span className="sr-only"> {keyItem.name}</span>
      </Button>
      <Button size="sm" variant="ghost" deniedReason={manage.reason} onClick={onDelete}>
        Delete<span className="sr-only"> {keyItem.name}</span>
      </Button>
    </span>
  );
}

/** The MD5 fingerprint, breaking only between its pairs, with its copy button. */
function Fingerprint({ value }: { value: string }) {
  return (
    <span className="inline-flex items-center gap-1">
      <code className="font-mono text-xs">
        {value.split(":").map((pair, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: the pairs of one fingerprint never move
          <Fragment key={index}>
            {index > 0 && ":"}
            <wbr />
            {pair}
          </Fragment>
        ))}
      </code>
      <CopyButton text={value} label="Copy fingerprint" />
    </span>
  );
}

/** The namespace's public keys: who may log in with which key, as which users, on which devices. */
export function KeysPage() {
  const keys = usePublicKeys();
  const manage = usePermission("publickey.manage");
  const [editing, setEditing] = useState<Editing>();
  const [deleting, setDeleting] = useState<PublicKey>();
  const list = keys.data?.data ?? [];
  const total = keys.data?.total ?? 0;

  const actions = (key: PublicKey) => (
    <KeyActions keyItem={key} onEdit={() => setEditing({ kind: "edit", key })} onDelete={() => setDeleting(key)} />
  );
  const addButton = (
    <Button deniedReason={manage.reason} onClick={() => setEditing({ kind: "add" })}>
      Add public key
    </Button>
  );

  return (
    <div className="grid gap-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Public keys</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Keys people log in with through the gateway, each limited to some users and devices.
          </p>
        </div>
        {addButton}
      </div>

      {keys.isError ? (
        <LoadFailure
          message={`The public keys could not be loaded. ${failureText(keys.error)}`}
          onRetry={() => keys.refetch()}
        />
      ) : keys.isPending ? (
        <LoadingRows label="Loading public keys" />
      ) : list.length === 0 ? (
        <EmptyState icon={KeyRound} title="No public keys yet: add one to log in to devices without a password.">
          {addButton}
        </EmptyState>
      ) : (
        <>
          <ResponsiveTable
            label="Public keys"
            items={list}
            keyOf={(key) => key.fingerprint}
            columns={[
              {
                header: "Name",
                cell: (key) => <span className="font-medium [overflow-wrap:anywhere]">{key.name}</span>,
                className: "min-w-40",
              },
              {
                header: "Fingerprint (MD5)",
                cell: (key) => <Fingerprint value={key.fingerprint} />,
                className: "max-w-56",
              },
              { header: "Users", cell: (key) => <PatternSummary pattern={key.username} />, className: "min-w-32" },
              { header: "Devices", cell: (key) => <FilterSummary filter={key.filter} />, className: "min-w-36" },
              {
                header: "Added",
                cell: (key) => <RelativeTime value={key.created_at} />,
                className: "hidden whitespace-nowrap lg:table-cell",
              },
              { header: null, cell: actions, className: "text-right whitespace-nowrap" },
            ]}
            card={(key) => (
              <>
                <p className="font-medium [overflow-wrap:anywhere]">{key.name}</p>
                <Fingerprint value={key.fingerprint} />
                <CardField label="Users">
                  <PatternSummary pattern={key.username} />
                </CardField>
                <CardField label="Devices">
                  <FilterSummary filter={key.filter} />
                </CardField>
                <p className="text-xs text-slate-600 dark:text-slate-400">
                  Added <RelativeTime value={key.created_at} />
                </p>
                {actions(key)}
              </>
            )}
          />
          {total > list.length && (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              The newest {list.length} of {total.toLocaleString()} keys are shown.
            </p>
          )}
        </>
      )}

      <Dialog
        isOpen={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title={editing?.kind === "edit" ? `Edit public key ${editing.key.name}` : "Add a public key"}
        isWide
      >
        {editing && (
          <KeyEditor
            key={editing.kind === "edit" ? editing.key.fingerprint : "new"}
            existing={editing.kind === "edit" ? editing.key : undefined}
            onDone={() => setEditing(undefined)}
          />
        )}
      </Dialog>
      <DeleteKey keyItem={deleting} onClose={() => setDeleting(undefined)} />
    </div>
  );
}
