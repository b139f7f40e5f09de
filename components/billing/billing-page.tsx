"use client";

import { CreditCard } from "lucide-react";
import { useSearchParams } from "next/navigation";
import { type ReactNode, useEffect, useState } from "react";
import { toast } from "sonner";
import { BackLink, Badge, Button, Callout, Card } from "@/components/ui/controls";
import { ConfirmDialog } from "@/components/ui/dialog";
import { EmptyState, LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { CardField, ResponsiveTable } from "@/components/ui/responsive-table";
import { UsageBar } from "@/components/ui/usage-bar";
import { failureText } from "../console/api";
import { useConsole } from "../console/context";
import type { Namespace } from "../console/namespace-switcher";
import {
  billingCalls,
  type Customer,
  type Subscription,
  useBillingAccess,
  useBillingMutation,
  useCustomer,
  usePlan,
  useSubscription,
} from "./billing-data";
import { DeviceChoiceDialog } from "./device-choice-dialog";

type PaymentMethod = Customer["payment_methods"][number];
type Invoice = Subscription["invoices"][number];

function Section({ title, children, action }: { title: string; children: ReactNode; action?: ReactNode }) {
  return (
    <Card className="grid gap-4 p-4 sm:p-5">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 className="font-semibold">{title}</h2>
        {action}
      </div>
      {children}
    </Card>
  );
}

const dateOf = (seconds: number) =>
  new Date(seconds * 1000).toLocaleDateString("en", { year: "numeric", month: "long", day: "numeric" });

/** Where the owner is, in one sentence, and the one thing to do next. */
function stateSentence(status: string, endAt: number, freePlanDevices: number) {
  switch (status) {
    case "active":
    case "trialing":
      return `Your subscription is active; the current period ends on ${dateOf(endAt)}.`;
    case "past_due":
      return "The last payment failed and is being retried: add or change the default card to keep the subscription.";
    case "none":
      return `You are on the free plan: up to ${freePlanDevices} accepted devices. Subscribe to add more.`;
    case "incomplete":
      return "The subscription could not be paid: add a card and subscribe again.";
    default:
      return `Your subscription has ended (${status.replace("_", " ")}): the free plan's ${freePlanDevices} devices apply. Subscribe again to bring the others back.`;
  }
}

function Plan({ namespace, onChoose }: { namespace: Namespace; onChoose: () => void }) {
  const { freePlanDevices } = useConsole();
  const plan = usePlan();
  const subscription = useSubscription();
  const customer = useCustomer();
  const subscribe = useBillingMutation(async () => {
    if (!customer.data) await billingCalls.createCustomer();
    return billingCalls.subscribe();
  });
  const addCard = useBillingMutation(async () => {
    if (!customer.data) await billingCalls.createCustomer();
    window.location.assign(await billingCalls.cardPage());
  });
  if (!plan) return null;
  const hasCard = (customer.data?.payment_methods.length ?? 0) > 0;
  const sentence = stateSentence(plan.status, subscription.data?.end_at ?? 0, freePlanDevices);
  const subscribeButton = (variant: "primary" | "secondary") => (
    <Button
      variant={variant}
      isPending={subscribe.isPending}
      onClick={() => subscribe.mutate(undefined, { onSuccess: () => toast.success("Subscribed") })}
    >
      {plan.status === "none" ? "Subscribe" : "Subscribe again"}
    </Button>
  );
  const action = plan.isChoicePending ? (
    <div className="flex flex-wrap gap-2">
      <Button onClick={onChoose}>Choose devices</Button>
      {hasCard && subscribeButton("secondary")}
    </div>
  ) : plan.status === "past_due" ? (
    <Button isPending={addCard.isPending} onClick={() => addCard.mutate(undefined)}>
      Add a card
    </Button>
  ) : plan.isPaying ? null : hasCard ? (
    subscribeButton("primary")
  ) : (
    <Button isPending={addCard.isPending} onClick={() => addCard.mutate(undefined)}>
      Add a card to subscribe
    </Button>
  );
  const failure = subscribe.error ?? addCard.error;
  return (
    <Section
      title={plan.isPaying ? "Paid plan" : "Free plan"}
      action={
        <Badge color={plan.isPaying ? "indigo" : "gray"}>
          {plan.status === "none" ? "free" : plan.status.replace("_", " ")}
        </Badge>
      }
    >
      <div className="grid gap-2">
        <UsageBar used={namespace.device_count} limit={plan.limit} />
      </div>
      <p className="text-sm">{sentence}</p>
      {plan.isChoicePending && (
        <Callout kind="warning">
          The namespace holds more devices than the free plan keeps. Until you choose, new sessions go only to the{" "}
          {freePlanDevices} most used devices.
        </Callout>
      )}
      {failure && <Callout kind="error">{failureText(failure)}</Callout>}
      {action && <div>{action}</div>}
    </Section>
  );
}

function PaymentMethods() {
  const customer = useCustomer();
  const [removing, setRemoving] = useState<PaymentMethod>();
  const makeDefault = useBillingMutation((id: string) => billingCalls.paymentMethod("default", id));
  const detach = useBillingMutation((id: string) => billingCalls.paymentMethod("detach", id));
  const addCard = useBillingMutation(async () => {
    if (!customer.data) await billingCalls.createCustomer();
    window.location.assign(await billingCalls.cardPage());
  });
  const methods = customer.data?.payment_methods ?? [];
  const expiry = (method: PaymentMethod) => `${String(method.exp_month).padStart(2, "0")}/${method.exp_year}`;
  const name = (method: PaymentMethod) => `${method.brand} ${method.number.slice(-4)}`;
  const actions = (method: PaymentMethod) => (
    <div className="flex flex-wrap justify-end gap-2">
      {!method.default && (
        <Button
          size="sm"
          variant="secondary"
          isPending={makeDefault.isPending && makeDefault.variables === method.id}
          onClick={() =>
            makeDefault.mutate(method.id, { onSuccess: () => toast.success(`${name(method)} is the default`) })
          }
        >
          Make default
        </Button>
      )}
      <Button size="sm" variant="ghost" onClick={() => setRemoving(method)} aria-label={`Remove ${name(method)}`}>
        Remove
      </Button>
    </div>
  );
  return (
    <Section
      title="Payment methods"
      action={
        <Button size="sm" variant="secondary" isPending={addCard.isPending} onClick={() => addCard.mutate(undefined)}>
          Add a card
        </Button>
      }
    >
      <p className="text-sm text-slate-600 dark:text-slate-400">
        Cards are entered on the payment processor's own page; this service never sees their numbers.
      </p>
      {(addCard.error ?? makeDefault.error) && (
        <Callout kind="error">{failureText(addCard.error ?? makeDefault.error)}</Callout>
      )}
      {customer.isError ? (
        <LoadFailure
          message={`The cards could not be loaded. ${failureText(customer.error)}`}
          onRetry={() => customer.refetch()}
        />
      ) : customer.isPending ? (
        <LoadingRows label="Loading the cards" />
      ) : methods.length === 0 ? (
        <EmptyState icon={CreditCard} title="No card yet" />
      ) : (
        <ResponsiveTable
          label="Payment methods"
          items={methods}
          keyOf={(method) => method.id}
          columns={[
            {
              header: "Card",
              cell: (method) => (
                <span className="inline-flex items-center gap-2">
                  <span className="font-medium capitalize">{method.brand}</span>
                  <span className="font-mono">{method.number}</span>
                  {method.default && <Badge color="indigo">default</Badge>}
                </span>
              ),
            },
            { header: "Expires", cell: expiry },
            { header: null, cell: actions, className: "text-right" },
          ]}
          card={(method) => (
            <>
              <div className="flex items-center gap-2">
                <span className="font-medium capitalize">{method.brand}</span>
                <span className="font-mono">{method.number.slice(-9)}</span>
                {method.default && <Badge color="indigo">default</Badge>}
              </div>
              <CardField label="Expires">{expiry(method)}</CardField>
              {actions(method)}
            </>
          )}
        />
      )}
      <ConfirmDialog
        isOpen={removing !== undefined}
        onClose={() => {
          setRemoving(undefined);
          detach.reset();
        }}
        title={`Remove ${removing ? name(removing) : "the card"}?`}
        description={
          removing?.default
            ? "It is the default card: payments then need another card."
            : "The payment processor forgets it; add it again to use it."
        }
        confirmLabel="Remove card"
        isPending={detach.isPending}
        failure={detach.isError ? failureText(detach.error) : undefined}
        onConfirm={() =>
          removing &&
          detach.mutate(removing.id, {
            onSuccess: () => {
              toast.success(`${name(removing)} removed`);
              setRemoving(undefined);
            },
          })
        }
      />
    </Section>
  );
}

function Invoices() {
  const subscription = useSubscription();
  const invoices = subscription.data?.invoices ?? [];
  const amount = (invoice: Invoice) =>
    new Intl.NumberFormat("en", { style: "currency", currency: invoice.currency.toUpperCase() }).format(
      invoice.amount / 100,
    );
  if (subscription.isError) {
    return (
      <Section title="Invoices">
        <LoadFailure
          message={`The invoices could not be loaded. ${failureText(subscription.error)}`}
          onRetry={() => subscription.refetch()}
        />
      </Section>
    );
  }
  return (
    <Section title="Invoices">
      {subscription.isPending ? (
        <LoadingRows label="Loading the invoices" />
      ) : invoices.length === 0 ? (
        <p className="text-sm text-slate-600 dark:text-slate-400">No invoices yet.</p>
      ) : (
        <ResponsiveTable
          label="Invoices"
          items={invoices}
          keyOf={(invoice) => invoice.id}
          columns={[
            { header: "Invoice", cell: (invoice) => <span className="font-mono text-xs">{invoice.id}</span> },
            {
              header: "Status",
              cell: (invoice) => <Badge color={invoice.status === "paid" ? "green" : "amber"}>{invoice.status}</Badge>,
            },
            { header: "Amount", cell: amount, className: "text-right" },
          ]}
          card={(invoice) => (
            <>
              <span className="font-mono text-xs">{invoice.id}</span>
              <CardField label="Status">{invoice.status}</CardField>
              <CardField label="Amount">{amount(invoice)}</CardField>
            </>
          )}
        />
      )}
    </Section>
  );
}

function Frame({ children }: { children: ReactNode }) {
  return (
    <div className="grid max-w-3xl grid-cols-1 gap-6">
      <BackLink href="/settings" label="Settings" />
      <div className="grid gap-1">
        <h1 className="text-2xl font-semibold tracking-tight">Billing</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">The namespace's plan, cards and invoices.</p>
      </div>
      {children}
    </div>
  );
}

/** `/settings/billing`: the owner's plan, cards, invoices and the device choice (docs/billing.md). */
export function BillingPage() {
  const access = useBillingAccess();
  const plan = usePlan();
  const asked = useSearchParams();
  const [isChoosing, setChoosing] = useState(false);
  useEffect(() => {
    if (asked.get("choose") === "1" && access.canRead) setChoosing(true);
    if (asked.get("setup") === "done") toast.success("Card saved");
  }, [asked, access.canRead]);
  if (!access.isOn) {
    return (
      <Frame>
        <Callout kind="info">
          Billing is not configured on this server: namespaces have no plan, only their device limit.
        </Callout>
      </Frame>
    );
  }
  if (!plan) {
    return (
      <Frame>
        <LoadingRows label="Loading the plan" />
      </Frame>
    );
  }
  if (!access.isOwner) {
    const owner = plan.namespace.members.find((member) => member.id === plan.namespace.owner);
    return (
      <Frame>
        <Callout kind="info">Billing is managed by the owner ({owner?.username ?? "the namespace's owner"}).</Callout>
      </Frame>
    );
  }
  return (
    <Frame>
      <Plan namespace={plan.namespace} onChoose={() => setChoosing(true)} />
      <PaymentMethods />
      <Invoices />
      <DeviceChoiceDialog isOpen={isChoosing} onClose={() => setChoosing(false)} />
    </Frame>
  );
}
