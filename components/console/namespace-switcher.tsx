"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Check, ChevronsUpDown, Plus } from "lucide-react";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { type FormEvent, useEffect, useMemo, useState, useTransition } from "react";
import { toast } from "sonner";
import type { z } from "zod";
import { Badge, Button, TextField } from "@/components/ui/controls";
import { Popover } from "@/components/ui/popover";
import type { MemberRole } from "@/lib/auth/roles";
import { leaveSessionNamespace, switchNamespace } from "@/lib/console/namespace-switch";
import type { namespaceBillingObject } from "@/lib/schemas/billing";
import { createNamespaceBody } from "@/lib/schemas/namespaces";
import { api, failureText, json } from "./api";
import { useConsole } from "./context";
import { queryKeys } from "./query-keys";

export type NamespaceBilling = z.infer<typeof namespaceBillingObject>;

export type Member = {
  id: string;
  role: MemberRole;
  status: "accepted" | "pending";
  username: string;
  email: string;
  added_at: string;
};

export type Namespace = {
  name: string;
  tenant_id: string;
  owner: string;
  members: Member[];
  max_devices: number;
  device_count: number;
  settings: { session_record: boolean; connection_announcement: string };
  billing: NamespaceBilling | null;
};

/** The namespaces the user belongs to (the switcher's list; up to 100). */
export function useNamespaces() {
  return useQuery({
    queryKey: queryKeys.namespaces(),
    queryFn: () => api<Namespace[]>("/api/namespaces?per_page=100"),
  });
}

/** The session's namespace: name, members, settings, devices and their limit. */
export function useNamespace() {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.namespace(tenant),
    queryFn: () => api<Namespace>(`/api/namespaces/${encodeURIComponent(tenant)}`),
  });
}

/**
 * After the session's namespace is gone for the user (left, or deleted): the session moves to
 * another of their namespaces, or to none (the page that asks for a first one).
 */
export function useMoveOutOfNamespace() {
  const queryClient = useQueryClient();
  const router = useRouter();
  return async () => {
    const result = await leaveSessionNamespace();
    if (result.message) toast.error(result.message);
    queryClient.clear();
    router.replace("/dashboard");
    router.refresh();
  };
}

/** After a switch the same section opens, without the previous namespace's item in the path. */
const sectionOf = (pathname: string) => `/${pathname.split("/")[1] || "dashboard"}`;

/** Switches the session's namespace: a new token in the cookie, an empty cache, a fresh render. */
export function useSwitchNamespace() {
  const queryClient = useQueryClient();
  const router = useRouter();
  const pathname = usePathname();
  const [isSwitching, startTransition] = useTransition();
  const switchTo = (tenant: string) =>
    startTransition(async () => {
      const result = await switchNamespace(tenant);
      if (result.message) {
        toast.error(result.message);
        return;
      }
      queryClient.clear();
      router.replace(sectionOf(pathname));
      router.refresh();
    });
  return { switchTo, isSwitching };
}

export function CreateNamespaceForm({ onCreated }: { onCreated: (tenant: string) => void }) {
  const queryClient = useQueryClient();
  const [error, setError] = useState<string>();
  const create = useMutation({
    mutationFn: (name: string) => api<Namespace>("/api/namespaces", { method: "POST", body: json({ name }) }),
    onSuccess: (answer) => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.namespaces() });
      onCreated(answer.data.tenant_id);
    },
    onError: (failure) => setError(failureText(failure)),
  });
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const parsed = createNamespaceBody.safeParse({ name: new FormData(event.currentTarget).get("name") });
    if (!parsed.success) {
      setError(`Name: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
      return;
    }
    setError(undefined);
    create.mutate(parsed.data.name);
  }
  return (
    <form onSubmit={submit} noValidate className="grid gap-2 border-t border-slate-200 p-2 dark:border-slate-700">
      <TextField
        label="New namespace"
        name="name"
        placeholder="e.g. production"
        error={error}
        hint="Lower-case letters, digits and -; it becomes part of SSH addresses."
      />
      <Button type="submit" size="sm" variant="secondary" isPending={create.isPending}>
        <Plus aria-hidden className="size-4" /> Create namespace
      </Button>
    </form>
  );
}

/** The header's namespace picker: search, role per namespace, create. */
export function NamespaceSwitcher() {
  const { tenant, user, role } = useConsole();
  const namespaces = useNamespaces();
  const { switchTo, isSwitching } = useSwitchNamespace();
  const [search, setSearch] = useState("");
  const list = namespaces.data?.data ?? [];
  const current = list.find((namespace) => namespace.tenant_id === tenant);
  const shown = useMemo(
    () => list.filter((namespace) => namespace.name.includes(search.trim().toLowerCase())),
    [list, search],
  );
  const roleIn = (namespace: Namespace) => namespace.members.find((member) => member.id === user.id)?.role;

  return (
    <Popover
      label={`Namespace: ${current?.name ?? "none"}. Switch namespace`}
      button={
        <>
          <span className="max-w-40 truncate font-semibold sm:max-w-60">
            {isSwitching ? "Switching…" : (current?.name ?? (tenant ? "…" : "No namespace"))}
          </span>
          {role && <Badge>{role}</Badge>}
          <ChevronsUpDown aria-hidden className="size-4 text-slate-500" />
        </>
      }
    >
      {(close) => (
        <div className="grid gap-1">
          {list.length > 5 && (
            <input
              type="search"
              aria-label="Search namespaces"
              placeholder="Search namespaces"
              value={search}
              onChange={(event) => setSearch(event.target.value)}
              className="m-1 rounded-md bg-white px-2.5 py-1.5 text-sm outline-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
            />
          )}
          <ul className="max-h-72 overflow-y-auto">
            {shown.map((namespace) => (
              <li key={namespace.tenant_id}>
                <button
                  type="button"
                  onClick={() => {
                    close();
                    if (namespace.tenant_id !== tenant) switchTo(namespace.tenant_id);
                  }}
                  aria-current={namespace.tenant_id === tenant ? "true" : undefined}
                  className="flex w-full items-center gap-2 rounded-md px-2.5 py-2 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
                >
                  <Check
                    aria-hidden
                    className={`size-4 ${namespace.tenant_id === tenant ? "text-indigo-600" : "invisible"}`}
                  />
                  <span className="flex-1 truncate">{namespace.name}</span>
                  <Badge>{roleIn(namespace) ?? "member"}</Badge>
                </button>
              </li>
            ))}
            {shown.length === 0 && (
              <li className="px-2.5 py-2 text-sm text-slate-600 dark:text-slate-400">No namespace matches.</li>
            )}
          </ul>
          <CreateNamespaceForm
            onCreated={(created) => {
              close();
              switchTo(created);
            }}
          />
        </div>
      )}
    </Popover>
  );
}

/**
 * A shared link's `?ns=<tenant>` opens that namespace: the session switches when the user is a
 * member, and says so when not; the parameter then leaves the address.
 */
export function NamespaceFromLink() {
  const { tenant } = useConsole();
  const search = useSearchParams();
  const router = useRouter();
  const pathname = usePathname();
  const queryClient = useQueryClient();
  const [handled, setHandled] = useState<string>();
  const wanted = search.get("ns");
  useEffect(() => {
    if (!wanted || wanted === handled) return;
    setHandled(wanted);
    const rest = new URLSearchParams(search.toString());
    rest.delete("ns");
    const here = `${pathname}${rest.size > 0 ? `?${rest}` : ""}`;
    if (wanted === tenant) {
      router.replace(here);
      return;
    }
    void switchNamespace(wanted).then((result) => {
      if (result.message) toast.error(result.message);
      else queryClient.clear();
      router.replace(here);
      router.refresh();
    });
  }, [wanted, handled, tenant, search, pathname, router, queryClient]);
  return null;
}
