"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useId, useState } from "react";
import type { z } from "zod";
import { Button, Callout, Card, TextField } from "@/components/ui/controls";
import { type firewallTestObject, testFirewallBody } from "@/lib/schemas/firewall";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid, serverFieldErrors } from "../auth/field-errors";
import { ApiFailure, api, failureText, json } from "../console/api";
import { usePreviewDevices } from "../keys/rule-editors";
import { rulesPath } from "./rule-data";

type Verdict = z.infer<typeof firewallTestObject>;

/** The verdict in words: which rule decided, or that none did. */
function verdictText({ action, rule }: Verdict) {
  if (!rule) return "Allowed: no rule matched, so the connection is allowed.";
  return `${action === "deny" ? "Denied" : "Allowed"} by rule #${rule.id} (priority ${rule.priority}).`;
}

/**
 * "Would user U from address A reach device D?", answered by the server with the gateway's own
 * evaluation of the active rules (`POST /api/firewall/rules/evaluate`).
 */
export function RuleTester() {
  const devices = usePreviewDevices();
  const deviceId = useId();
  const [username, setUsername] = useState("root");
  const [sourceIp, setSourceIp] = useState("");
  const [deviceUid, setDeviceUid] = useState("");
  const [errors, setErrors] = useState<FieldErrors>({});
  const test = useMutation({
    mutationFn: (body: Record<string, string>) =>
      api<Verdict>(`${rulesPath}/evaluate`, { method: "POST", body: json(body) }),
    onError: (failure) => {
      if (failure instanceof ApiFailure && failure.fields.length > 0) setErrors(serverFieldErrors(failure.fields));
    },
  });
  const list = devices.data?.data ?? [];
  const chosen = deviceUid || list[0]?.uid || "";

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const values = { username, source_ip: sourceIp.trim(), device_uid: chosen };
    const found = fieldErrorsOf(testFirewallBody, values);
    if (!chosen) found.device_uid = "Accept a device first: the test needs one.";
    setErrors(found);
    if (Object.values(found).some(Boolean)) {
      focusFirstInvalid(event.currentTarget, found);
      return;
    }
    test.mutate(values);
  }

  const verdict = test.data?.data;
  return (
    <Card className="grid gap-4 p-4">
      <div>
        <h2 className="font-semibold">Test the rules</h2>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          Would this user, from this address, get through to this device? The server answers as the gateway would.
        </p>
      </div>
      <form onSubmit={submit} noValidate className="grid items-start gap-3 sm:grid-cols-[1fr_1fr_1fr_auto]">
        <TextField
          label="User on the device"
          name="username"
          value={username}
          onChange={(event) => setUsername(event.target.value)}
          error={errors.username}
          autoComplete="off"
        />
        <TextField
          label="Source IP"
          name="source_ip"
          value={sourceIp}
          placeholder="203.0.113.7"
          onChange={(event) => setSourceIp(event.target.value)}
          error={errors.source_ip}
          autoComplete="off"
        />
        <div className="grid gap-1.5">
          <label htmlFor={deviceId} className="text-sm font-medium text-slate-800 dark:text-slate-200">
            Device
          </label>
          <select
            id={deviceId}
            name="device_uid"
            value={chosen}
            onChange={(event) => setDeviceUid(event.target.value)}
            aria-invalid={errors.device_uid ? true : undefined}
            aria-describedby={errors.device_uid ? `${deviceId}-error` : undefined}
            className="rounded-md bg-white py-2 pr-8 pl-2.5 text-sm outline-1 -outline-offset-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
          >
            {list.length === 0 && <option value="">No accepted device</option>}
            {list.map((device) => (
              <option key={device.uid} value={device.uid}>
                {device.name}
              </option>
            ))}
          </select>
          {errors.device_uid && (
            <p id={`${deviceId}-error`} className="text-xs font-medium text-red-700 dark:text-red-400">
              {errors.device_uid}
            </p>
          )}
        </div>
        <Button type="submit" isPending={test.isPending} className="sm:mt-[1.625rem]">
          Test
        </Button>
      </form>
      {test.isError && !(test.error instanceof ApiFailure && test.error.fields.length > 0) && (
        <Callout kind="error">The test could not run. {failureText(test.error)}</Callout>
      )}
      {verdict && !test.isPending && (
        <Callout kind={verdict.action === "deny" ? "warning" : "success"}>
          <span data-testid="firewall-verdict">{verdictText(verdict)}</span>
        </Callout>
      )}
    </Card>
  );
}
