"use client";

import { useMutation } from "@tanstack/react-query";
import { Send } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { toast } from "sonner";
import { webhookDeliveryStatuses } from "@/models/enums";
import { ApiFailure, api, failureText } from "../console/api";
import { usePermission } from "../console/context";
import { BackLink, Button, Callout, Card, NotFoundNotice, selectStyle } from "../ui/controls";
import { ConfirmDialog, Dialog } from "../ui/dialog";
import { Facts } from "../ui/facts";
import { EmptyState, LoadFailure, LoadingRows } from "../ui/list-states";
import { Pagination } from "../ui/pagination";
import { RelativeTime } from "../ui/relative-time";
import { CardField, ResponsiveTable } from "../ui/responsive-table";
import {
  type DeliveryParams,
  useDeliveries,
  useDeliveryParams,
  useInvalidateWebhooks,
  useWebhook,
  type Webhook,
  type WebhookDelivery,
  webhookPath,
} from "./webhook-data";
import { WebhookForm } from "./webhook-form";
import { DeleteWebhook, DeliveryStatus, EnabledSwitch, EventChips, ManagersOnly, SecretCallout } from "./webhook-parts";

const durationText = (ms: number | null) =>
  ms === null ? "—" : ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;

/** When a pending delivery is tried next; seconds count here (the first retries come quickly). */
function NextAttempt({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.status !== "pending" || !delivery.next_attempt_at) return <span>—</span>;
  const seconds = Math.ceil((new Date(delivery.next_attempt_at).getTime() - Date.now()) / 1000);
  if (seconds <= 0) return <span>due now</span>;
  if (seconds < 60) return <span className="tabular-nums">in {seconds} s</span>;
  return <RelativeTime value={delivery.next_attempt_at} />;
}

const statusWords = { pending: "Pending", delivered: "Delivered", failed: "Failed" };

/** One delivery in full: what was sent, what came back, and Redeliver. */
function DeliveryDrawer({
  webhook,
  delivery,
  onClose,
}: {
  webhook: Webhook;
  delivery: WebhookDelivery | undefined;
  onClose: () => void;
}) {
  const invalidate = useInvalidateWebhooks();
  const redeliver = useMutation({
    mutationFn: (target: WebhookDelivery) =>
      api<WebhookDelivery>(`${webhookPath(webhook.id)}/deliveries/${encodeURIComponent(target.id)}/redeliver`, {
        method: "POST",
      }),
    onSuccess: () => {
      toast.success("Sending it again now");
      void invalidate();
    },
  });
  return (
    <Dialog
      isOpen={delivery !== undefined}
      onClose={() => {
        redeliver.reset();
        onClose();
      }}
      title={delivery ? `Delivery of ${delivery.type}` : ""}
      isDrawer
    >
      {delivery && (
        <>
          <Facts
            rows={[
              [
                "Status",
                <DeliveryStatus key="status" status={delivery.status} responseStatus={delivery.response_status} />,
              ],
              ["Created", new Date(delivery.created_at).toLocaleString()],
              ["Attempts", String(delivery.attempts)],
              ["Last attempt", delivery.last_attempt_at ? new Date(delivery.last_attempt_at).toLocaleString() : ""],
              ["Duration", durationText(delivery.duration_ms)],
              ["Next attempt", <NextAttempt key="next" delivery={delivery} />],
              [
                "webhook-id",
                <code key="id" className="text-xs">
                  {delivery.id}
                </code>,
              ],
            ]}
          />
          <div className="grid gap-1">
            <h3 className="text-sm font-semibold">Body data</h3>
            <pre className="max-h-80 overflow-auto rounded-md bg-slate-100 p-3 text-xs dark:bg-slate-800">
              {JSON.stringify(delivery.data, null, 2)}
            </pre>
          </div>
          <div className="grid gap-1">
            <h3 className="text-sm font-semibold">The receiver's answer</h3>
            {delivery.error && <Callout kind="error">{delivery.error}</Callout>}
            {delivery.response_body !== null ? (
              <pre className="max-h-60 overflow-auto rounded-md bg-slate-100 p-3 text-xs break-all whitespace-pre-wrap dark:bg-slate-800">
                {delivery.response_body || "(empty body)"}
              </pre>
            ) : (
              !delivery.error && <p className="text-sm text-slate-600 dark:text-slate-400">Not tried yet.</p>
            )}
          </div>
          {redeliver.isError && <Callout kind="error">{failureText(redeliver.error)}</Callout>}
          <div className="flex flex-wrap justify-end gap-2">
            <Button variant="secondary" onClick={onClose}>
              Close
            </Button>
            <Button isPending={redeliver.isPending} onClick={() => redeliver.mutate(delivery)}>
              Redeliver
            </Button>
          </div>
        </>
      )}
    </Dialog>
  );
}

/** The deliveries table with its status filter and page in the URL, and the row drawer. */
function Deliveries({ webhook }: { webhook: Webhook }) {
  const [params, update] = useDeliveryParams();
  const deliveries = useDeliveries(webhook.id, params);
  const [opened, setOpened] = useState<WebhookDelivery>();
  const list = deliveries.data?.data ?? [];
  // The drawer follows the row as the list is read again (a retry, a redelivery).
  const shown = opened && (list.find((delivery) => delivery.id === opened.id) ?? opened);
  const details = (delivery: WebhookDelivery) => (
    <Button variant="ghost" size="sm" onClick={() => setOpened(delivery)}>
      Details<span className="sr-only"> of the {delivery.type} delivery</span>
    </Button>
  );
  return (
    <Card className="grid gap-3 p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="text-base font-semibold">Deliveries</h2>
        <select
          aria-label="Filter by status"
          className={selectStyle}
          value={params.status}
          onChange={(event) => update({ status: event.target.value as DeliveryParams["status"] })}
        >
          <option value="">Every status</option>
          {webhookDeliveryStatuses.map((status) => (
            <option key={status} value={status}>
              {statusWords[status]}
            </option>
          ))}
        </select>
      </div>
      {deliveries.isError ? (
        <LoadFailure
          message={`The deliveries could not be loaded. ${failureText(deliveries.error)}`}
          onRetry={() => deliveries.refetch()}
        />
      ) : deliveries.isPending ? (
        <LoadingRows label="Loading deliveries" />
      ) : list.length === 0 ? (
        <EmptyState icon={Send} title={params.status ? "No delivery with this status." : "Nothing sent yet."}>
          {params.status ? (
            <Button variant="ghost" size="sm" onClick={() => update({ status: "" })}>
              Clear filter
            </Button>
          ) : (
            <p className="text-sm text-slate-600 dark:text-slate-400">
              Send a test event to see what your receiver gets.
            </p>
          )}
        </EmptyState>
      ) : (
        <>
          <ResponsiveTable
            label="Deliveries"
            items={list}
            keyOf={(delivery) => delivery.id}
            columns={[
              {
                header: "Time",
                cell: (delivery) => <RelativeTime value={delivery.created_at} />,
                className: "whitespace-nowrap",
              },
              { header: "Event", cell: (delivery) => <code className="text-xs">{delivery.type}</code> },
              {
                header: "Status",
                cell: (delivery) => (
                  <DeliveryStatus status={delivery.status} responseStatus={delivery.response_status} />
                ),
              },
              { header: "Attempts", cell: (delivery) => delivery.attempts, className: "tabular-nums" },
              {
                header: "Duration",
                cell: (delivery) => durationText(delivery.duration_ms),
                className: "hidden tabular-nums md:table-cell",
              },
              {
                header: "Next attempt",
                cell: (delivery) => <NextAttempt delivery={delivery} />,
                className: "whitespace-nowrap",
              },
              { header: null, cell: details, className: "text-right" },
            ]}
            card={(delivery) => (
              <>
                <div className="flex flex-wrap items-center justify-between gap-2">
                  <code className="text-xs font-semibold">{delivery.type}</code>
                  <DeliveryStatus status={delivery.status} responseStatus={delivery.response_status} />
                </div>
                <span className="text-slate-600 dark:text-slate-400">
                  <RelativeTime value={delivery.created_at} /> · {delivery.attempts} attempt
                  {delivery.attempts === 1 ? "" : "s"} · {durationText(delivery.duration_ms)}
                </span>
                {delivery.status === "pending" && (
                  <CardField label="Next attempt">
                    <NextAttempt delivery={delivery} />
                  </CardField>
                )}
                <div className="flex justify-end">{details(delivery)}</div>
              </>
            )}
          />
          <Pagination
            page={params.page}
            perPage={params.perPage}
            total={deliveries.data?.total ?? list.length}
            onPage={(page) => update({ page })}
            onPerPage={(perPage) => update({ perPage })}
          />
        </>
      )}
      <DeliveryDrawer webhook={webhook} delivery={shown} onClose={() => setOpened(undefined)} />
    </Card>
  );
}

/** One webhook: its settings, a test event, a new secret, its deliveries; for those who manage webhooks. */
export function WebhookDetail({ id }: { id: string }) {
  const manage = usePermission("webhook.manage");
  return manage.allowed ? <WebhookSettings id={id} /> : <ManagersOnly title="Webhook" />;
}

function WebhookSettings({ id }: { id: string }) {
  const webhook = useWebhook(id);
  const invalidate = useInvalidateWebhooks();
  const router = useRouter();
  const [isEditing, setIsEditing] = useState(false);
  const [isDeleting, setIsDeleting] = useState(false);
  const [isRotating, setIsRotating] = useState(false);
  const [secret, setSecret] = useState<string>();
  const sendTest = useMutation({
    mutationFn: () => api<WebhookDelivery>(`${webhookPath(id)}/test`, { method: "POST" }),
    onSuccess: () => {
      toast.success("Test event queued");
      void invalidate();
    },
    onError: (failure) => toast.error(`The test event was not queued: ${failureText(failure)}`),
  });
  const rotate = useMutation({
    mutationFn: () => api<Webhook & { secret: string }>(`${webhookPath(id)}/secret`, { method: "POST" }),
    onSuccess: (answer) => {
      setSecret(answer.data.secret);
      setIsRotating(false);
    },
  });

  if (webhook.isError && webhook.error instanceof ApiFailure && webhook.error.status === 404) {
    return (
      <NotFoundNotice title="Webhook not found" back={{ href: "/settings/webhooks", label: "Webhooks" }}>
        No webhook of this namespace has this ID: it was deleted, or belongs to another namespace.
      </NotFoundNotice>
    );
  }
  const item = webhook.data?.data;
  return (
    <div className="grid grid-cols-1 gap-5">
      <BackLink href="/settings/webhooks" label="Webhooks" />
      {webhook.isError ? (
        <LoadFailure message={failureText(webhook.error)} onRetry={() => webhook.refetch()} />
      ) : !item ? (
        <LoadingRows label="Loading the webhook" />
      ) : (
        <>
          <div className="flex flex-wrap items-end justify-between gap-3">
            <div className="grid min-w-0 gap-1">
              <h1 className="text-2xl font-semibold tracking-tight break-all">{item.url}</h1>
              <p className="text-sm text-slate-600 dark:text-slate-400">
                Added <RelativeTime value={item.created_at} />
              </p>
            </div>
            <span className="flex flex-wrap gap-2">
              <Button isPending={sendTest.isPending} onClick={() => sendTest.mutate()}>
                Send test event
              </Button>
              <Button variant="secondary" onClick={() => setIsEditing(true)}>
                Edit
              </Button>
              <Button variant="secondary" onClick={() => setIsRotating(true)}>
                Rotate secret
              </Button>
              <Button variant="danger" onClick={() => setIsDeleting(true)}>
                Delete
              </Button>
            </span>
          </div>
          {secret && <SecretCallout title="New secret made." secret={secret} onDone={() => setSecret(undefined)} />}
          <Card className="p-4">
            <Facts
              rows={[
                ["Enabled", <EnabledSwitch key="enabled" webhook={item} />],
                ["Events", <EventChips key="events" events={item.events} limit={Infinity} />],
                [
                  "Webhook ID",
                  <span key="id" className="font-mono text-xs">
                    {item.id}
                  </span>,
                ],
              ]}
            />
          </Card>
          <Deliveries webhook={item} />
          {isEditing && <WebhookForm webhook={item} onClose={() => setIsEditing(false)} />}
          <ConfirmDialog
            isOpen={isRotating}
            onClose={() => {
              rotate.reset();
              setIsRotating(false);
            }}
            title="Rotate the signing secret?"
            description="The old secret stops working at once: every delivery from now on is signed with the new one, so update your receiver right after."
            confirmLabel="Rotate secret"
            isPending={rotate.isPending}
            failure={rotate.isError ? failureText(rotate.error) : undefined}
            onConfirm={() => rotate.mutate()}
          />
          <DeleteWebhook
            webhook={isDeleting ? item : undefined}
            onClose={() => setIsDeleting(false)}
            onDeleted={() => router.push("/settings/webhooks")}
          />
        </>
      )}
    </div>
  );
}
