"use client";

import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { DialogButtons } from "@/components/ui/dialog";
import { firewallRuleBody } from "@/lib/schemas/firewall";
import { fieldErrorsOf } from "../auth/field-errors";
import { api, json } from "../console/api";
import {
  Choices,
  type DeviceFilter,
  FilterEditor,
  PatternField,
  patternErrorsOf,
  UsernameRule,
  useEditorSave,
} from "../keys/rule-editors";
import { type FirewallRule, rulePath, rulesPath, useInvalidateRules } from "./rule-data";

/**
 * Writes a rule (`existing` absent: a new one): priority, action, whether it is on, and the three
 * patterns, each checked live on the server's engine and with the API's schema before sending.
 */
export function RuleEditor({
  existing,
  suggestedPriority,
  onDone,
}: {
  existing?: FirewallRule;
  suggestedPriority: number;
  onDone: () => void;
}) {
  const invalidate = useInvalidateRules();
  const [priority, setPriority] = useState(String(existing?.priority ?? suggestedPriority));
  const [action, setAction] = useState<FirewallRule["action"]>(existing?.action ?? "deny");
  const [active, setActive] = useState(existing?.active ?? true);
  const [sourceIp, setSourceIp] = useState(existing?.source_ip ?? ".*");
  const [username, setUsername] = useState(existing?.username ?? ".*");
  const [filter, setFilter] = useState<DeviceFilter>(existing?.filter ?? { hostname: ".*" });
  const { errors, submit, isPending, failure } = useEditorSave({
    send: (body) =>
      existing
        ? api<FirewallRule>(rulePath(existing.id), { method: "PUT", body: json(body) })
        : api<FirewallRule>(rulesPath, { method: "POST", body: json(body) }),
    onSaved: (saved) => {
      toast.success(existing ? `Rule #${saved.id} saved` : `Rule #${saved.id} created`);
      invalidate();
      onDone();
    },
  });

  function check(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = {
      action,
      active,
      filter,
      priority: priority.trim() === "" ? Number.NaN : Number(priority),
      source_ip: sourceIp,
      username,
    };
    const found = {
      ...fieldErrorsOf(firewallRuleBody, values),
      ...patternErrorsOf(filter, { source_ip: sourceIp, username }),
    };
    submit(event.currentTarget, values, found);
  }

  return (
    <form onSubmit={check} noValidate className="grid gap-5">
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label="Priority"
          name="priority"
          type="number"
          min={0}
          inputMode="numeric"
          value={priority}
          onChange={(event) => setPriority(event.target.value)}
          error={errors.priority}
          hint="Lower numbers are evaluated first; the first rule that matches decides."
        />
        <fieldset className="grid content-start gap-2">
          <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">Action</legend>
          <Choices
            value={action}
            options={[
              ["deny", "Deny"],
              ["allow", "Allow"],
            ]}
            onSelect={setAction}
          />
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={active} onChange={(event) => setActive(event.target.checked)} />
            Active
          </label>
        </fieldset>
      </div>
      <PatternField
        label="Source IP pattern"
        name="source_ip"
        value={sourceIp}
        onChange={setSourceIp}
        error={errors.source_ip}
        hint={"A regular expression searched in the client's address: .* is any address, ^10\\.0\\. a network."}
      />
      <UsernameRule value={username} onChange={setUsername} error={errors.username} />
      <FilterEditor filter={filter} onChange={setFilter} errors={errors} />
      {failure && <Callout kind="error">{failure}</Callout>}
      <DialogButtons onCancel={onDone}>
        <Button type="submit" isPending={isPending}>
          {existing ? "Save rule" : "Create rule"}
        </Button>
      </DialogButtons>
    </form>
  );
}
