import type { Metadata } from "next";
import { BillingPage } from "@/components/billing/billing-page";

export const metadata: Metadata = { title: "Billing" };

export default function Billing() {
  return <BillingPage />;
}
