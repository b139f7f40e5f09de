"use client";

import { useMutation } from "@tanstack/react-query";
import { toast } from "sonner";
import type { WebhookDeliveryStatus } from "@/models/enums";
import { api, failureText } from "../console/api";
import { usePermission } from "../console/context";
import { Badge, Button, Callout, CopyButton, SwitchField } from "../ui/controls";
import { ConfirmDialog } from "../ui/dialog";
import { RelativeTime } from "../ui/relative-time";
import { useEnabledToggle, useInvalidateWebhooks, type Webhook, webhookPath } from "./webhook-data";

/** The event types as compact chips; a long list shows its first few and a count. */
export function EventChips({ events, limit = 3 }: { events: readonly string[]; limit?: number }) {
  const shown = events.slice(0, limit);
  return (
    <span className="inline-flex flex-wrap gap-1" title={events.join(", ")}>
      {shown.map((type) => (
        <Badge key={type}>
          <code>{type}</code>
        </Badge>
      ))}
      {events.length > shown.length && <Badge color="indigo">+{events.length - shown.length} more</Badge>}
    </span>
  );
}

const statusColor = { delivered: "green", failed: "red", pending: "amber" } as const;
const statusLabel = { delivered: "Delivered", failed: "Failed", pending: "Pending" };

/** A delivery's outcome as a badge with the receiver's status code: "Failed · 500". */
export function DeliveryStatus({
  status,
  responseStatus,
}: {
  status: WebhookDeliveryStatus;
  responseStatus: number | null;
}) {
  return (
    <Badge color={statusColor[status]}>
      {responseStatus === null ? statusLabel[status] : `${statusLabel[status]} · ${responseStatus}`}
    </Badge>
  );
}

/** The newest delivery's outcome and when, or that none was sent yet. */
export function LastDelivery({ webhook }: { webhook: Webhook }) {
  const last = webhook.last_delivery;
  if (!last) return <span className="text-sm text-slate-600 dark:text-slate-400">None yet</span>;
  return (
    <span className="inline-flex flex-wrap items-center gap-1.5 text-sm">
      <DeliveryStatus status={last.status} responseStatus={last.response_status} />
      <span className="text-xs text-slate-600 dark:text-slate-400">
        <RelativeTime value={last.at} />
      </span>
    </span>
  );
}

/** The webhook's switch: optimistic, flipped back with a message if the server refuses. */
export function EnabledSwitch({ webhook }: { webhook: Webhook }) {
  const manage = usePermission("webhook.manage");
  const toggle = useEnabledToggle();
  return (
    <SwitchField
      isOn={webhook.enabled}
      disabled={!manage.allowed}
      title={manage.reason}
      onChange={(enabled) => toggle.mutate({ webhook, enabled })}
    >
      <span>
        {webhook.enabled ? "On" : "Off"}
        <span className="sr-only"> ({webhook.url} enabled)</span>
      </span>
    </SwitchField>
  );
}

const verifySnippet = `import { Webhook } from "standardwebhooks";

const hook = new Webhook(process.env.WEBHOOK_SECRET);
// body: the raw request body as text; headers: the
// request's (webhook-id, -timestamp, -signature).
// Throws when forged or older than 5 minutes.
const event = hook.verify(body, headers);`;

/** A new signing secret, shown this once, with how a receiver checks what it gets. */
export function SecretCallout({ title, secret, onDone }: { title: string; secret: string; onDone: () => void }) {
  return (
    <Callout kind="success">
      <div className="grid grid-cols-1 gap-3">
        <p>
          <strong>{title}</strong> Copy its signing secret now: it is not shown again.
        </p>
        <div className="flex items-center gap-2 rounded-md bg-white py-1 pr-1 pl-3 text-slate-900 ring-1 ring-emerald-200 dark:bg-slate-900 dark:text-slate-100 dark:ring-emerald-900">
          <code data-testid="webhook-secret" className="min-w-0 flex-1 font-mono text-sm break-all">
            {secret}
          </code>
          <CopyButton text={secret} label="Copy the secret" />
        </div>
        <div className="grid grid-cols-1 gap-1">
          <p className="text-xs font-medium">How to verify a delivery (Node, Standard Webhooks):</p>
          <div className="flex items-start gap-2 rounded-md bg-slate-900 py-1.5 pr-1.5 pl-3 text-slate-100 dark:bg-black/60 [&_button]:text-slate-300 [&_button:hover]:bg-slate-700 [&_button:hover]:text-white">
            <pre className="min-w-0 flex-1 overflow-x-auto py-1 font-mono text-xs leading-5">{verifySnippet}</pre>
            <CopyButton text={verifySnippet} label="Copy the example" />
          </div>
          <p className="text-xs">
            Keep the <code>webhook-id</code> of each delivery you handled and drop a request whose id you have seen: a
            replayed request, or a redelivery, carries the same id.
          </p>
        </div>
        <div>
          <Button size="sm" variant="secondary" onClick={onDone}>
            I copied it
          </Button>
        </div>
      </div>
    </Callout>
  );
}

/** Asks before deleting a webhook, naming its URL; its pending deliveries are not sent. */
export function DeleteWebhook({
  webhook,
  onClose,
  onDeleted,
}: {
  webhook: Webhook | undefined;
  onClose: () => void;
  onDeleted?: () => void;
}) {
  const invalidate = useInvalidateWebhooks();
  const remove = useMutation({
    mutationFn: (target: Webhook) => api(webhookPath(target.id), { method: "DELETE" }),
    onSuccess: (_answer, target) => {
      toast.success(`Webhook to ${target.url} deleted`);
      void invalidate();
      onClose();
      onDeleted?.();
    },
  });
  return (
    <ConfirmDialog
      isOpen={webhook !== undefined}
      onClose={() => {
        remove.reset();
        onClose();
      }}
      title="Delete webhook?"
      description={
        <>
          Events stop going to <strong className="break-all">{webhook?.url}</strong>, and its deliveries are deleted
          with it (pending ones are not sent). This cannot be undone.
        </>
      }
      confirmLabel="Delete webhook"
      isPending={remove.isPending}
      failure={remove.isError ? failureText(remove.error) : undefined}
      onConfirm={() => webhook && remove.mutate(webhook)}
    />
  );
}

/** The page as others than administrators and the owner see it: who manages webhooks. */
export function ManagersOnly({ title }: { title: string }) {
  const manage = usePermission("webhook.manage");
  return (
    <div className="grid gap-2">
      <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
      <Callout kind="info">
        Webhooks are managed by the namespace's administrators and its owner. {manage.reason}.
      </Callout>
    </div>
  );
}
