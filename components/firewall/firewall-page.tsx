"use client";

import { useMutation } from "@tanstack/react-query";
import { ShieldCheck, ShieldOff } from "lucide-react";
import dynamic from "next/dynamic";
import { useState } from "react";
import { toast } from "sonner";
import { Badge, Button } from "@/components/ui/controls";
import { ConfirmDialog, Dialog } from "@/components/ui/dialog";
import { EmptyState, LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { CardField, ResponsiveTable } from "@/components/ui/responsive-table";
import { api, failureText } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { FilterSummary, PatternSummary } from "../keys/rule-summaries";
import { type FirewallRule, rulePath, useActiveToggle, useFirewallRules, useInvalidateRules } from "./rule-data";

// The editor and the tester (and the regular expression engine of their checks) load after the list.
const RuleEditor = dynamic(() => import("./rule-editor").then((module) => module.RuleEditor));
const RuleTester = dynamic(() => import("./rule-tester").then((module) => module.RuleTester));

type Editing = { kind: "add" } | { kind: "edit"; rule: FirewallRule };

function ActiveSwitch({ rule }: { rule: FirewallRule }) {
  const manage = usePermission("firewall.manage");
  const toggle = useActiveToggle();
  return (
    <label className="inline-flex items-center gap-2 text-sm">
      <input
        type="checkbox"
        role="switch"
        aria-checked={rule.active}
        checked={rule.active}
        disabled={!manage.allowed}
        title={manage.reason}
        onChange={(event) => toggle.mutate({ rule, active: event.target.checked })}
        className="size-5 accent-indigo-600"
      />
      <span>
        {rule.active ? "On" : "Off"}
        <span className="sr-only"> (rule #{rule.id} active)</span>
      </span>
    </label>
  );
}

function ActionBadge({ action }: { action: FirewallRule["action"] }) {
  return <Badge color={action === "deny" ? "red" : "green"}>{action === "deny" ? "Deny" : "Allow"}</Badge>;
}

function RuleActions({ rule, onEdit, onDelete }: { rule: FirewallRule; onEdit: () => void; onDelete: () => void }) {
  const manage = usePermission("firewall.manage");
  return (
    <span className="inline-flex gap-2">
      <Button size="sm" variant="secondary" deniedReason={manage.reason} onClick={onEdit}>
        Edit<span className="sr-only"> rule #{rule.id}</span>
      </Button>
      <Button size="sm" variant="ghost" deniedReason={manage.reason} onClick={onDelete}>
        Delete<span className="sr-only"> rule #{rule.id}</span>
      </Button>
    </span>
  );
}

function RuleName({ rule, isFirst }: { rule: FirewallRule; isFirst: boolean }) {
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5">
      <span className="font-medium">#{rule.id}</span>
      {isFirst && <Badge color="indigo">Evaluated first</Badge>}
    </span>
  );
}

function DeleteRule({ rule, onClose }: { rule: FirewallRule | undefined; onClose: () => void }) {
  const invalidate = useInvalidateRules();
  const remove = useMutation({
    mutationFn: (target: FirewallRule) => api(rulePath(target.id), { method: "DELETE" }),
    onSuccess: (_answer, target) => {
      toast.success(`Rule #${target.id} deleted`);
      invalidate();
      onClose();
    },
  });
  return (
    <ConfirmDialog
      isOpen={rule !== undefined}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title={`Delete rule #${rule?.id ?? ""}?`}
      description={`Connections it ${rule?.action === "deny" ? "denied" : "allowed"} are decided by the next matching rule from now on, or allowed when none matches. This cannot be undone.`}
      confirmLabel={`Delete rule #${rule?.id ?? ""}`}
      isPending={remove.isPending}
      failure={remove.isError ? failureText(remove.error) : undefined}
      onConfirm={() => rule && remove.mutate(rule)}
    />
  );
}

/** The firewall: rules in the order the gateway evaluates them, their editor and the tester. */
export function FirewallPage() {
  const { edition } = useConsole();
  const rules = useFirewallRules();
  const manage = usePermission("firewall.manage");
  const [editing, setEditing] = useState<Editing>();
  const [deleting, setDeleting] = useState<FirewallRule>();
  const list = rules.data?.data ?? [];
  const firstActive = list.find((rule) => rule.active)?.id;
  const nextPriority = list.length === 0 ? 10 : Math.max(...list.map((rule) => rule.priority)) + 10;

  const heading = (
    <div>
      <h1 className="text-2xl font-semibold tracking-tight">Firewall rules</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Allow or deny SSH connections by source address, user and device. The first matching rule decides; with none,
        the connection is allowed.
      </p>
    </div>
  );

  if (edition !== "cloud") {
    return (
      <div className="grid gap-5">
        {heading}
        <EmptyState icon={ShieldOff} title="Firewall rules are part of the cloud edition.">
          <p className="max-w-prose text-sm text-slate-600 dark:text-slate-400">
            This service runs the community edition, where every connection that passes the login is allowed. Public
            keys still limit which users and devices a key may reach.
          </p>
        </EmptyState>
      </div>
    );
  }

  const addButton = (
    <Button deniedReason={manage.reason} onClick={() => setEditing({ kind: "add" })}>
      Add rule
    </Button>
  );
  const actions = (rule: FirewallRule) => (
    <RuleActions rule={rule} onEdit={() => setEditing({ kind: "edit", rule })} onDelete={() => setDeleting(rule)} />
  );

  return (
    <div className="grid gap-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        {heading}
        {addButton}
      </div>

      {rules.isError ? (
        <LoadFailure
          message={`The rules could not be loaded. ${failureText(rules.error)}`}
          onRetry={() => rules.refetch()}
        />
      ) : rules.isPending ? (
        <LoadingRows label="Loading firewall rules" />
      ) : list.length === 0 ? (
        <EmptyState icon={ShieldCheck} title="No rules: every connection that passes the login is allowed.">
          {addButton}
        </EmptyState>
      ) : (
        <>
          <ResponsiveTable
            label="Firewall rules in evaluation order"
            items={list}
            keyOf={(rule) => rule.id}
            isOrdered
            rowClassName={(rule) => (rule.active ? "" : "text-slate-600 dark:text-slate-400")}
            columns={[
              {
                header: "Rule",
                cell: (rule) => <RuleName rule={rule} isFirst={rule.id === firstActive} />,
                className: "whitespace-nowrap",
              },
              { header: "Priority", cell: (rule) => rule.priority.toLocaleString(), className: "tabular-nums" },
              { header: "Action", cell: (rule) => <ActionBadge action={rule.action} /> },
              {
                header: "Source IP",
                cell: (rule) => <PatternSummary pattern={rule.source_ip} anyLabel="Any address" />,
                className: "min-w-28",
              },
              { header: "Users", cell: (rule) => <PatternSummary pattern={rule.username} />, className: "min-w-24" },
              { header: "Devices", cell: (rule) => <FilterSummary filter={rule.filter} />, className: "min-w-32" },
              { header: "Active", cell: (rule) => <ActiveSwitch rule={rule} /> },
              { header: null, cell: actions, className: "text-right whitespace-nowrap" },
            ]}
            card={(rule) => (
              <>
                <div className="flex items-center justify-between gap-2">
                  <RuleName rule={rule} isFirst={rule.id === firstActive} />
                  <ActionBadge action={rule.action} />
                </div>
                <p className="text-slate-600 dark:text-slate-400">Priority {rule.priority.toLocaleString()}</p>
                <CardField label="From">
                  <PatternSummary pattern={rule.source_ip} anyLabel="Any address" />
                </CardField>
                <CardField label="Users">
                  <PatternSummary pattern={rule.username} />
                </CardField>
                <CardField label="Devices">
                  <FilterSummary filter={rule.filter} />
                </CardField>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <ActiveSwitch rule={rule} />
                  {actions(rule)}
                </div>
              </>
            )}
          />
          {(rules.data?.total ?? 0) > list.length && (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              The first {list.length} of {(rules.data?.total ?? 0).toLocaleString()} rules are shown.
            </p>
          )}
        </>
      )}

      <RuleTester />

      <Dialog
        isOpen={editing !== undefined}
        onClose={() => setEditing(undefined)}
        title={editing?.kind === "edit" ? `Edit rule #${editing.rule.id}` : "Add a firewall rule"}
        isWide
      >
        {editing && (
          <RuleEditor
            key={editing.kind === "edit" ? editing.rule.id : "new"}
            existing={editing.kind === "edit" ? editing.rule : undefined}
            suggestedPriority={nextPriority}
            onDone={() => setEditing(undefined)}
          />
        )}
      </Dialog>
      <DeleteRule rule={deleting} onClose={() => setDeleting(undefined)} />
    </div>
  );
}
