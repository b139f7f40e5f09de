"use client";

import { Download, ScrollText } from "lucide-react";
import { useState } from "react";
import { Badge, Button, Callout, selectStyle, TextFilter } from "@/components/ui/controls";
import { Dialog } from "@/components/ui/dialog";
import { Facts } from "@/components/ui/facts";
import { EmptyState, LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { Pagination } from "@/components/ui/pagination";
import { RelativeTime } from "@/components/ui/relative-time";
import { ResponsiveTable } from "@/components/ui/responsive-table";
import { failureText } from "../console/api";
import { usePermission } from "../console/context";
import {
  type ActivityParams,
  type AuditEntry,
  actionGroups,
  auditFilterQuery,
  defaultActivityParams,
  isActivityFilterSet,
  useActivity,
  useActivityParams,
} from "./activity-data";

const actorKinds: Record<string, string> = {
  user: "User",
  api_key: "API key",
  ssh: "SSH login",
  device: "Device",
  system: "System",
  anonymous: "Unknown",
};

const nouns: Record<string, string> = {
  access: "Access",
  api_key: "API key",
  audit: "Audit trail",
  billing: "Billing:",
  device: "Device",
  connector: "Connector",
  firewall_rule: "Firewall rule",
  member: "Member",
  namespace: "Namespace",
  public_key: "Public key",
  session: "Session",
  ssh: "SSH",
  tag: "Tag",
  user: "Account",
};

const verbs: Record<string, string> = {
  accept: "accepted",
  add: "added",
  close: "closed",
  create: "created",
  customer_create: "customer created",
  device_choice: "devices kept on the free plan chosen",
  delete: "deleted",
  denied: "denied",
  invite: "invited",
  login: "login",
  mfa: "MFA code",
  mfa_recover: "MFA recovery code",
  payment_method_attach: "card added",
  payment_method_default: "default card set",
  payment_method_detach: "card removed",
  pending: "set pending",
  purge: "purged by retention",
  reject: "rejected",
  remove: "removed",
  rename: "renamed",
  subscribe: "subscribed",
  subscription_status: "subscription status changed",
  tags: "tags changed",
  unused: "marked unused",
  update: "updated",
  use: "refused",
};

/** "firewall_rule.update" → "Firewall rule updated": what a row did, in words. */
function actionWords(action: string): string {
  const [noun = "", verb = ""] = action.split(".");
  return `${nouns[noun] ?? noun} ${verbs[verb] ?? verb.replaceAll("_", " ")}`;
}

const shortId = (id: string) => (id.length > 24 ? `${id.slice(0, 12)}…` : id);
const detail = (entry: AuditEntry, name: string) =>
  typeof entry.details[name] === "string" ? (entry.details[name] as string) : undefined;

/** What a row acted on, by the name a person knows it by where the row has one. */
function targetWords(entry: AuditEntry): string {
  const { type, id } = entry.target;
  if (type === "firewall_rule") return `Rule #${id}`;
  if (type === "connector") return `${detail(entry, "address") ?? shortId(id)}:${entry.details.port ?? ""}`;
  if (type === "namespace") return detail(entry, "name") ?? "This namespace";
  if (type === "operation") return `${detail(entry, "method") ?? ""} ${detail(entry, "path") ?? id}`.trim();
  const name = detail(entry, "username") ?? detail(entry, "device") ?? detail(entry, "name");
  return name ?? (id ? shortId(id) : "—");
}

function Outcome({ entry }: { entry: AuditEntry }) {
  return entry.outcome === "success" ? <Badge color="green">Success</Badge> : <Badge color="red">Refused</Badge>;
}

function Actor({ entry }: { entry: AuditEntry }) {
  return (
    <span className="grid">
      <span className="font-medium break-all">{entry.actor.name || entry.actor.id || "—"}</span>
      <span className="text-xs text-slate-600 dark:text-slate-400">
        {actorKinds[entry.actor.type] ?? entry.actor.type}
      </span>
    </span>
  );
}

function Target({ entry }: { entry: AuditEntry }) {
  return (
    <span className="break-all" title={`${entry.target.type} ${entry.target.id}`}>
      {targetWords(entry)}
    </span>
  );
}

/** One row in full: every field, the details as JSON, the chained hash. */
function EntryDrawer({ entry, onClose }: { entry: AuditEntry | undefined; onClose: () => void }) {
  return (
    <Dialog isOpen={entry !== undefined} onClose={onClose} title={entry ? actionWords(entry.action) : ""} isDrawer>
      {entry && (
        <>
          <Facts
            rows={[
              ["Time", new Date(entry.time).toLocaleString()],
              ["Actor", `${entry.actor.name || "—"} (${actorKinds[entry.actor.type] ?? entry.actor.type})`],
              ["Actor id", entry.actor.id],
              ["Source", entry.source],
              ["Action", <code key="action">{entry.action}</code>],
              ["Target", `${entry.target.type} ${entry.target.id}`],
              ["Outcome", <Outcome key="outcome" entry={entry} />],
            ]}
          />
          <div className="grid gap-1">
            <h3 className="text-sm font-semibold">Details</h3>
            <pre className="max-h-80 overflow-auto rounded-md bg-slate-100 p-3 text-xs dark:bg-slate-800">
              {JSON.stringify(entry.details, null, 2)}
            </pre>
          </div>
          <p className="text-xs break-all text-slate-600 dark:text-slate-400">
            Row {entry.id}, hash <code>{entry.hash}</code>: chained to the row before it, so a changed or removed row is
            found by <code>npm run cli -- audit verify</code>.
          </p>
          <div className="flex justify-end">
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
          </div>
        </>
      )}
    </Dialog>
  );
}

function Filters({ params, update }: { params: ActivityParams; update: (change: Partial<ActivityParams>) => void }) {
  const dateStyle = `${selectStyle} w-40`;
  return (
    <div className="flex flex-wrap items-end gap-2">
      <TextFilter
        label="Filter by actor"
        placeholder="Actor: user or key name"
        value={params.actor}
        onChange={(actor) => update({ actor })}
        className="w-52"
      />
      <select
        aria-label="Filter by action"
        className={selectStyle}
        value={params.action}
        onChange={(event) => update({ action: event.target.value })}
      >
        <option value="">Every action</option>
        {actionGroups.map(([prefix, label]) => (
          <option key={prefix} value={prefix}>
            {label}
          </option>
        ))}
      </select>
      <select
        aria-label="Filter by outcome"
        className={selectStyle}
        value={params.outcome}
        onChange={(event) => update({ outcome: event.target.value as ActivityParams["outcome"] })}
      >
        <option value="">Any outcome</option>
        <option value="success">Succeeded</option>
        <option value="failure">Refused</option>
      </select>
      <label className="grid gap-0.5 text-xs text-slate-600 dark:text-slate-400">
        From
        <input
          type="date"
          className={dateStyle}
          value={params.from}
          max={params.to || undefined}
          onChange={(event) => update({ from: event.target.value })}
        />
      </label>
      <label className="grid gap-0.5 text-xs text-slate-600 dark:text-slate-400">
        To
        <input
          type="date"
          className={dateStyle}
          value={params.to}
          min={params.from || undefined}
          onChange={(event) => update({ to: event.target.value })}
        />
      </label>
      {isActivityFilterSet(params) && (
        <Button variant="ghost" size="sm" onClick={() => update({ ...defaultActivityParams, perPage: params.perPage })}>
          Clear filters
        </Button>
      )}
    </div>
  );
}

/** The namespace's audit trail, for the roles that may read it; the others are told who can. */
export function ActivityPage() {
  const permission = usePermission("audit.view");
  if (!permission.allowed)
    return (
      <div className="grid gap-2">
        <h1 className="text-2xl font-semibold tracking-tight">Activity</h1>
        <Callout kind="info">
          The namespace's activity is for administrators and its owner. {permission.reason}.
        </Callout>
      </div>
    );
  return <ActivityTrail />;
}

/** Who did what, from where, with its filters in the URL. */
function ActivityTrail() {
  const [params, update] = useActivityParams();
  const activity = useActivity(params);
  const [opened, setOpened] = useState<AuditEntry>();
  const entries = activity.data?.data ?? [];
  const exportHref = `/api/audit/export?${auditFilterQuery(params)}`;
  return (
    <div className="grid gap-6">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Activity</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            Every change and every login decision in this namespace, newest first.
          </p>
        </div>
        <a
          href={exportHref}
          download
          className="inline-flex items-center gap-1.5 rounded-md px-3 py-2 text-sm font-medium text-slate-800 ring-1 ring-slate-300 hover:bg-slate-50 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-800"
        >
          <Download aria-hidden className="size-4" /> Export JSON lines
        </a>
      </div>
      <Filters params={params} update={update} />
      {activity.isError ? (
        <LoadFailure
          message={`The activity could not be loaded. ${failureText(activity.error)}`}
          onRetry={() => activity.refetch()}
        />
      ) : activity.isPending ? (
        <LoadingRows label="Loading activity" />
      ) : entries.length === 0 ? (
        <EmptyState
          icon={ScrollText}
          title={isActivityFilterSet(params) ? "Nothing matches these filters." : "No activity yet."}
        >
          Changes to devices, keys, rules, members and settings, and every SSH login, appear here.
        </EmptyState>
      ) : (
        <>
          <ResponsiveTable
            label="Activity"
            items={entries}
            keyOf={(entry) => String(entry.id)}
            columns={[
              { header: "Time", cell: (entry) => <RelativeTime value={entry.time} />, className: "whitespace-nowrap" },
              { header: "Actor", cell: (entry) => <Actor entry={entry} /> },
              { header: "Action", cell: (entry) => actionWords(entry.action) },
              { header: "Target", cell: (entry) => <Target entry={entry} />, className: "hidden md:table-cell" },
              { header: "Source", cell: (entry) => entry.source || "—", className: "hidden lg:table-cell" },
              { header: "Outcome", cell: (entry) => <Outcome entry={entry} /> },
              {
                header: null,
                cell: (entry) => (
                  <Button variant="ghost" size="sm" onClick={() => setOpened(entry)}>
                    Details<span className="sr-only"> of row {entry.id}</span>
                  </Button>
                ),
                className: "text-right",
              },
            ]}
            card={(entry) => (
              <button type="button" onClick={() => setOpened(entry)} className="grid w-full gap-1 text-left">
                <span className="flex items-center justify-between gap-2">
                  <span className="font-medium">{actionWords(entry.action)}</span>
                  <Outcome entry={entry} />
                </span>
                <span className="text-sm break-all">{targetWords(entry)}</span>
                <span className="text-sm text-slate-600 dark:text-slate-400">
                  {entry.actor.name || "—"} · <RelativeTime value={entry.time} />
                  {entry.source ? ` · ${entry.source}` : ""}
                </span>
              </button>
            )}
          />
          <Pagination
            page={params.page}
            perPage={params.perPage}
            total={activity.data?.total ?? entries.length}
            onPage={(page) => update({ page })}
            onPerPage={(perPage) => update({ perPage })}
          />
        </>
      )}
      <EntryDrawer entry={opened} onClose={() => setOpened(undefined)} />
    </div>
  );
}
