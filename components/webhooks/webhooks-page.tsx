"use client";

import { Webhook as WebhookIcon } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import { failureText } from "../console/api";
import { usePermission } from "../console/context";
import { BackLink, Button } from "../ui/controls";
import { EmptyState, LoadFailure, LoadingRows } from "../ui/list-states";
import { CardField, ResponsiveTable } from "../ui/responsive-table";
import { useWebhooks, type Webhook, webhookHref } from "./webhook-data";
import { WebhookForm } from "./webhook-form";
import { DeleteWebhook, EnabledSwitch, EventChips, LastDelivery, ManagersOnly, SecretCallout } from "./webhook-parts";

const pageTitle = "Webhooks";

/** The namespace's webhooks for those who manage them; the others are told who does. */
export function WebhooksPage() {
  const manage = usePermission("webhook.manage");
  return manage.allowed ? <WebhookList /> : <ManagersOnly title={pageTitle} />;
}

/** Each webhook's URL, events, switch and last outcome; add, edit, delete; a new one's secret, once. */
function WebhookList() {
  const webhooks = useWebhooks();
  const [editing, setEditing] = useState<Webhook | "new">();
  const [deleting, setDeleting] = useState<Webhook>();
  const [created, setCreated] = useState<Webhook & { secret: string }>();
  const list = webhooks.data?.data ?? [];

  const addButton = <Button onClick={() => setEditing("new")}>Add webhook</Button>;
  const url = (webhook: Webhook) => (
    <Link
      href={webhookHref(webhook.id)}
      className="font-medium break-all text-indigo-700 hover:underline dark:text-indigo-300"
    >
      {webhook.url}
    </Link>
  );
  const actions = (webhook: Webhook) => (
    <span className="inline-flex gap-2">
      <Button size="sm" variant="secondary" onClick={() => setEditing(webhook)}>
        Edit<span className="sr-only"> {webhook.url}</span>
      </Button>
      <Button size="sm" variant="ghost" onClick={() => setDeleting(webhook)}>
        Delete<span className="sr-only"> {webhook.url}</span>
      </Button>
    </span>
  );

  return (
    <div className="grid grid-cols-1 gap-5">
      <BackLink href="/settings" label="Settings" />
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div className="grid gap-1">
          <h1 className="text-2xl font-semibold tracking-tight">{pageTitle}</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            URLs this namespace's events are sent to as they happen, signed, so that other systems can act on them.
          </p>
        </div>
        {list.length > 0 && addButton}
      </div>
      {created && (
        <SecretCallout
          title={`Webhook to ${created.url} added.`}
          secret={created.secret}
          onDone={() => setCreated(undefined)}
        />
      )}
      {webhooks.isError ? (
        <LoadFailure
          message={`The webhooks could not be loaded. ${failureText(webhooks.error)}`}
          onRetry={() => webhooks.refetch()}
        />
      ) : webhooks.isPending ? (
        <LoadingRows label="Loading webhooks" />
      ) : list.length === 0 ? (
        <EmptyState icon={WebhookIcon} title="No webhook yet.">
          <p className="max-w-prose text-sm text-slate-600 dark:text-slate-400">
            A webhook sends an HTTP POST to your URL when something happens here: a device comes online or goes offline,
            a session starts, a login is refused. Use one to post to a chat channel, open a ticket or keep an inventory
            up to date.
          </p>
          {addButton}
        </EmptyState>
      ) : (
        <ResponsiveTable
          label="Webhooks"
          items={list}
          keyOf={(webhook) => webhook.id}
          rowClassName={(webhook) => (webhook.enabled ? "" : "text-slate-500 dark:text-slate-400")}
          columns={[
            { header: "URL", cell: url, className: "max-w-md" },
            { header: "Events", cell: (webhook) => <EventChips events={webhook.events} /> },
            { header: "Enabled", cell: (webhook) => <EnabledSwitch webhook={webhook} /> },
            {
              header: "Last delivery",
              cell: (webhook) => <LastDelivery webhook={webhook} />,
              className: "whitespace-nowrap",
            },
            { header: null, cell: actions, className: "text-right whitespace-nowrap" },
          ]}
          card={(webhook) => (
            <>
              {url(webhook)}
              <EventChips events={webhook.events} />
              <CardField label="Last delivery">
                <LastDelivery webhook={webhook} />
              </CardField>
              <div className="flex flex-wrap items-center justify-between gap-2">
                <EnabledSwitch webhook={webhook} />
                {actions(webhook)}
              </div>
            </>
          )}
        />
      )}
      {editing && (
        <WebhookForm
          webhook={editing === "new" ? undefined : editing}
          onClose={() => setEditing(undefined)}
          onCreated={setCreated}
        />
      )}
      <DeleteWebhook webhook={deleting} onClose={() => setDeleting(undefined)} />
    </div>
  );
}
