"use client";

import Link from "next/link";
import { useConsole } from "../console/context";
import { usePlan } from "./billing-data";

/**
 * The plan's problems, on every page until resolved: a subscription that ended with more devices
 * than the free plan keeps (choose or subscribe), or a payment the processor is retrying.
 */
export function BillingBanner() {
  const plan = usePlan();
  const { role } = useConsole();
  if (!plan || (!plan.isChoicePending && plan.status !== "past_due")) return null;
  const text = plan.isChoicePending
    ? "The subscription ended and this namespace holds more devices than the free plan keeps."
    : "The last payment failed and is being retried.";
  return (
    <div
      role="status"
      className="flex flex-wrap items-center gap-2 bg-amber-100 px-4 py-2 text-sm text-amber-950 dark:bg-amber-900 dark:text-amber-50"
    >
      {text}
      {role !== "owner" ? (
        "The namespace's owner can resolve it."
      ) : (
        <Link
          href={plan.isChoicePending ? "/settings/billing?choose=1" : "/settings/billing"}
          className="font-semibold underline"
        >
          {plan.isChoicePending ? "Choose devices or subscribe" : "Review billing"}
        </Link>
      )}
    </div>
  );
}
