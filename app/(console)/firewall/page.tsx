import type { Metadata } from "next";
import { FirewallPage } from "@/components/firewall/firewall-page";

export const metadata: Metadata = { title: "Firewall rules" };

export default function Firewall() {
  return <FirewallPage />;
}
