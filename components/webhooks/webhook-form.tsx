"use client";

import { useMutation } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { toast } from "sonner";
import { type FieldErrors, fieldErrorsOf, focusFirstInvalid, serverFieldErrors } from "@/components/auth/field-errors";
import { createWebhookBody, updateWebhookBody } from "@/lib/schemas/webhooks";
import type { WebhookEventType } from "@/models/enums";
import { ApiFailure, api, failureText, json } from "../console/api";
import { Button, Callout, SwitchField, TextField } from "../ui/controls";
import { Dialog, DialogButtons } from "../ui/dialog";
import { eventGroups, useInvalidateWebhooks, type Webhook, webhookPath, webhooksPath } from "./webhook-data";

type Draft = { url: string; events: WebhookEventType[]; enabled: boolean };

/** The event types as checkboxes in their groups, each with the sentence of what sends it. */
function EventChoice({
  chosen,
  error,
  onChange,
}: {
  chosen: WebhookEventType[];
  error?: string;
  onChange: (events: WebhookEventType[]) => void;
}) {
  const toggle = (type: WebhookEventType, isOn: boolean) =>
    onChange(isOn ? [...chosen, type] : chosen.filter((other) => other !== type));
  return (
    // Named "events" so that a refusal moves the focus here, as to any other field.
    <fieldset
      name="events"
      tabIndex={-1}
      className="grid min-w-0 gap-3 outline-none"
      aria-describedby={error ? "webhook-events-error" : undefined}
    >
      <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">Events to send</legend>
      <div className="grid gap-3 sm:grid-cols-2">
        {eventGroups.map((group) => (
          <fieldset key={group.title} className="grid content-start gap-1.5">
            <legend className="mb-1 text-xs font-semibold tracking-wide text-slate-600 uppercase dark:text-slate-400">
              {group.title}
            </legend>
            {group.types.map(({ type, sentence }) => (
              <label key={type} className="flex items-start gap-2 text-sm">
                <input
                  type="checkbox"
                  value={type}
                  checked={chosen.includes(type)}
                  onChange={(event) => toggle(type, event.target.checked)}
                  className="mt-0.5 size-4 shrink-0 accent-indigo-600"
                />
                <span className="grid">
                  <code className="text-xs font-semibold">{type}</code>
                  <span className="text-xs text-slate-600 dark:text-slate-400">{sentence}</span>
                </span>
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      {error && (
        <p id="webhook-events-error" className="text-xs font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/** Adds a webhook (then shows its secret, through `onCreated`) or changes one: URL, event types, switch. */
export function WebhookForm({
  webhook,
  onClose,
  onCreated,
}: {
  webhook?: Webhook;
  onClose: () => void;
  onCreated?: (created: Webhook & { secret: string }) => void;
}) {
  const invalidate = useInvalidateWebhooks();
  const [draft, setDraft] = useState<Draft>({
    url: webhook?.url ?? "",
    events: webhook?.events ?? [],
    enabled: webhook?.enabled ?? true,
  });
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: (body: Draft) =>
      webhook
        ? api<Webhook>(webhookPath(webhook.id), { method: "PATCH", body: json(body) })
        : api<Webhook & { secret: string }>(webhooksPath, { method: "POST", body: json(body) }),
    onSuccess: (answer) => {
      toast.success(webhook ? "Webhook saved" : "Webhook added");
      void invalidate();
      if (!webhook) onCreated?.(answer.data as Webhook & { secret: string });
      onClose();
    },
    onError: (failure) => {
      if (failure instanceof ApiFailure && failure.fields.length > 0) setErrors(serverFieldErrors(failure.fields));
    },
  });

  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found = fieldErrorsOf(webhook ? updateWebhookBody : createWebhookBody, draft);
    setErrors(found);
    if (Object.keys(found).length > 0) focusFirstInvalid(event.currentTarget, found);
    else save.mutate(draft);
  };
  const isFieldFailure = save.error instanceof ApiFailure && save.error.fields.length > 0;

  return (
    <Dialog isOpen onClose={onClose} title={webhook ? "Edit webhook" : "Add webhook"} isWide>
      <form onSubmit={submit} noValidate className="grid gap-4">
        <p className="text-sm text-slate-600 dark:text-slate-400">
          The service POSTs each chosen event to this URL as JSON, signed with the webhook's secret, and tries again
          with growing pauses until the receiver answers 2xx.
        </p>
        <TextField
          label="URL"
          name="url"
          type="url"
          placeholder="https://hooks.example.org/device-access"
          value={draft.url}
          error={errors.url}
          onChange={(event) => setDraft({ ...draft, url: event.target.value })}
          autoComplete="off"
          autoFocus
          required
        />
        <EventChoice
          chosen={draft.events}
          error={errors.events ?? errors["events.0"]}
          onChange={(events) => setDraft({ ...draft, events })}
        />
        <SwitchField isOn={draft.enabled} onChange={(enabled) => setDraft({ ...draft, enabled })}>
          Enabled: send events as they happen
        </SwitchField>
        {save.isError && !isFieldFailure && <Callout kind="error">{failureText(save.error)}</Callout>}
        <DialogButtons onCancel={onClose}>
          <Button type="submit" isPending={save.isPending}>
            {webhook ? "Save webhook" : "Add webhook"}
          </Button>
        </DialogButtons>
      </form>
    </Dialog>
  );
}
