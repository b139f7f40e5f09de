"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Tags } from "lucide-react";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { Badge, Button, Callout, TextField } from "@/components/ui/controls";
import { ConfirmDialog, Dialog, DialogButtons } from "@/components/ui/dialog";
import { EmptyState, LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { ResponsiveTable } from "@/components/ui/responsive-table";
import { renameTagBody } from "@/lib/schemas/tags";
import { fieldErrorsOf } from "../auth/field-errors";
import { ApiFailure, api, failureText, json } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { queryKeys } from "../console/query-keys";
import { condition, filterParam } from "../devices/device-data";
import { useFirewallRules } from "../firewall/rule-data";
import { usePublicKeys } from "../keys/key-data";

const tagPath = (tag: string) => `/api/tags/${encodeURIComponent(tag)}`;
const plural = (count: number, word: string) => `${count.toLocaleString()} ${word}${count === 1 ? "" : "s"}`;
const tagRule = "3 to 255 characters, without / @ & or :";

type Usage = { tag: string; devices?: number; keys: number; rules: number; keysLeftEmpty: number };

const TagBadge = ({ tag }: { tag: string }) => (
  <span className="min-w-0 [overflow-wrap:anywhere]">
    <Badge color="indigo">{tag}</Badge>
  </span>
);

/** How many accepted devices carry the tag: the total of the devices list filtered by it. */
function useTaggedCount(tag: string) {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.devices.taggedCount(tenant, tag),
    queryFn: async () => {
      const filter = filterParam([condition("tags", "contains", [tag])]);
      return (await api(`/api/devices?status=accepted&per_page=1&filter=${encodeURIComponent(filter)}`)).total ?? 0;
    },
  });
}

/** After a tag changed everywhere: the tags, every device view, keys and rules. */
function useInvalidateTagged() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return () => {
    for (const queryKey of [
      queryKeys.tags(tenant),
      queryKeys.devices.all(tenant),
      queryKeys.publicKeys(tenant),
      queryKeys.firewallRules(tenant),
    ]) {
      void queryClient.invalidateQueries({ queryKey });
    }
  };
}

function RenameTag({ tag, onClose }: { tag: string; onClose: () => void }) {
  const invalidate = useInvalidateTagged();
  const [name, setName] = useState(tag);
  const [error, setError] = useState<string>();
  const rename = useMutation({
    mutationFn: (to: string) => api(tagPath(tag), { method: "PUT", body: json({ tag: to }) }),
    onSuccess: (_answer, to) => {
      toast.success(`Tag ${tag} renamed to ${to} everywhere`);
      invalidate();
      onClose();
    },
    onError: (failure) => {
      if (failure instanceof ApiFailure && [400, 409].includes(failure.status)) setError(failureText(failure));
    },
  });
  function submit(event: FormEvent) {
    event.preventDefault();
    const found = fieldErrorsOf(renameTagBody, { tag: name.trim() }).tag;
    setError(found);
    if (found || name.trim() === tag) {
      if (!found) onClose();
      return;
    }
    rename.mutate(name.trim());
  }
  return (
    <form onSubmit={submit} noValidate className="grid gap-4">
      <TextField
        label="New name"
        name="tag"
        value={name}
        autoFocus
        onChange={(event) => setName(event.target.value)}
        error={error}
        hint={tagRule}
        autoComplete="off"
      />
      {rename.isError && !error && <Callout kind="error">{failureText(rename.error)}</Callout>}
      <DialogButtons onCancel={onClose}>
        <Button type="submit" isPending={rename.isPending}>
          Rename everywhere
        </Button>
      </DialogButtons>
    </form>
  );
}

function DeleteTag({ usage, onClose }: { usage: Usage | undefined; onClose: () => void }) {
  const invalidate = useInvalidateTagged();
  const remove = useMutation({
    mutationFn: (tag: string) => api(tagPath(tag), { method: "DELETE" }),
    onSuccess: (_answer, tag) => {
      toast.success(`Tag ${tag} deleted everywhere`);
      invalidate();
      onClose();
    },
  });
  const users = usage && [
    usage.devices === undefined ? "its devices" : plural(usage.devices, "device"),
    plural(usage.keys, "public key"),
    plural(usage.rules, "firewall rule"),
  ];
  return (
    <ConfirmDialog
      isOpen={usage !== undefined}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title={`Delete tag ${usage?.tag ?? ""} everywhere?`}
      description={
        <>
          <p>
            It is removed from {users?.slice(0, 2).join(", ")} and {users?.[2]}. This cannot be undone.
          </p>
          {usage && usage.keysLeftEmpty > 0 && (
            <p className="mt-2 font-medium text-amber-900 dark:text-amber-200">
              For {plural(usage.keysLeftEmpty, "key or rule")} it is the only tag:{" "}
              {usage.keysLeftEmpty === 1 ? "it" : "they"} will then apply to no device.
            </p>
          )}
        </>
      }
      confirmLabel={`Delete ${usage?.tag ?? "tag"}`}
      isPending={remove.isPending}
      failure={remove.isError ? failureText(remove.error) : undefined}
      onConfirm={() => usage && remove.mutate(usage.tag)}
    />
  );
}

function TaggedDevices({ tag }: { tag: string }) {
  const devices = useTaggedCount(tag).data;
  return (
    <Link
      href={`/devices?tag=${encodeURIComponent(tag)}`}
      className="font-medium text-indigo-700 hover:underline dark:text-indigo-300"
    >
      {devices === undefined ? "Devices" : plural(devices, "device")}
      <span className="sr-only"> tagged {tag}</span>
    </Link>
  );
}

function TagActions({
  tag,
  onRename,
  onDelete,
}: {
  tag: string;
  onRename: () => void;
  onDelete: (devices?: number) => void;
}) {
  const manage = usePermission("tag.manage");
  const devices = useTaggedCount(tag).data;
  return (
    <span className="inline-flex gap-2">
      <Button size="sm" variant="secondary" deniedReason={manage.reason} onClick={onRename}>
        Rename<span className="sr-only"> {tag}</span>
      </Button>
      <Button size="sm" variant="ghost" deniedReason={manage.reason} onClick={() => onDelete(devices)}>
        Delete<span className="sr-only"> {tag}</span>
      </Button>
    </span>
  );
}

/** Every tag of the namespace with where it is used; rename and delete act on devices, keys and rules at once. */
export function TagsPage() {
  const { tenant, edition } = useConsole();
  const tags = useQuery({ queryKey: queryKeys.tags(tenant), queryFn: () => api<string[]>("/api/tags?per_page=100") });
  const keys = usePublicKeys().data?.data ?? [];
  const rules = useFirewallRules().data?.data ?? [];
  const [renaming, setRenaming] = useState<string>();
  const [deleting, setDeleting] = useState<Usage>();
  const list = tags.data?.data ?? [];
  const isCloud = edition === "cloud";

  // Keys and rules are loaded whole (the first 100 of each): counting their tags costs no call.
  const usageOf = (tag: string): Usage => {
    const tagsOf = (item: { filter: (typeof keys)[number]["filter"] }) =>
      "tags" in item.filter ? item.filter.tags : [];
    const using = [...keys, ...rules].map(tagsOf).filter((tags) => tags.includes(tag));
    return {
      tag,
      keys: keys.filter((key) => tagsOf(key).includes(tag)).length,
      rules: rules.filter((rule) => tagsOf(rule).includes(tag)).length,
      keysLeftEmpty: using.filter((tags) => tags.length === 1).length,
    };
  };

  const actions = (usage: Usage) => (
    <TagActions
      tag={usage.tag}
      onRename={() => setRenaming(usage.tag)}
      onDelete={(devices) => setDeleting({ ...usage, devices })}
    />
  );

  return (
    <div className="grid gap-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Tags</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Tags group devices; {isCloud ? "public keys and firewall rules" : "public keys"} can select devices by them.
          Tag names have {tagRule}.
        </p>
      </div>
      {tags.isError ? (
        <LoadFailure
          message={`The tags could not be loaded. ${failureText(tags.error)}`}
          onRetry={() => tags.refetch()}
        />
      ) : tags.isPending ? (
        <LoadingRows label="Loading tags" />
      ) : list.length === 0 ? (
        <EmptyState icon={Tags} title="No tags yet: add them to devices on their page.">
          <Link href="/devices" className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300">
            Go to devices
          </Link>
        </EmptyState>
      ) : (
        <ResponsiveTable
          label="Tags"
          items={list.map(usageOf)}
          keyOf={(usage) => usage.tag}
          columns={[
            { header: "Tag", cell: (usage) => <TagBadge tag={usage.tag} /> },
            { header: "Devices", cell: (usage) => <TaggedDevices tag={usage.tag} /> },
            { header: "Public keys", cell: (usage) => plural(usage.keys, "public key") },
            ...(isCloud
              ? [{ header: "Firewall rules", cell: (usage: Usage) => plural(usage.rules, "firewall rule") }]
              : []),
            { header: null, cell: actions, className: "text-right whitespace-nowrap" },
          ]}
          card={(usage) => (
            <>
              <TagBadge tag={usage.tag} />
              <TaggedDevices tag={usage.tag} />
              <p>
                {plural(usage.keys, "public key")}
                {isCloud && ` · ${plural(usage.rules, "firewall rule")}`}
              </p>
              {actions(usage)}
            </>
          )}
        />
      )}
      {(tags.data?.total ?? 0) > list.length && (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          The first {list.length} of {tags.data?.total?.toLocaleString()} tags, in name order, are shown.
        </p>
      )}
      <Dialog
        isOpen={renaming !== undefined}
        onClose={() => setRenaming(undefined)}
        title={`Rename tag ${renaming ?? ""}`}
      >
        {renaming && <RenameTag key={renaming} tag={renaming} onClose={() => setRenaming(undefined)} />}
      </Dialog>
      <DeleteTag usage={deleting} onClose={() => setDeleting(undefined)} />
    </div>
  );
}
