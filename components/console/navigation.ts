import {
  Container,
  Cpu,
  CreditCard,
  History,
  KeyRound,
  LayoutDashboard,
  ScrollText,
  Settings,
  ShieldCheck,
  Tags,
  Users,
  Webhook,
} from "lucide-react";
import type { Action } from "@/lib/auth/roles";
import type { Stats } from "./stats";

export type NavItem = {
  href: string;
  label: string;
  icon: typeof Cpu;
  needs: Action;
  /** A count shown beside the label, and what it counts. */
  badge?: { count: (stats: Stats) => number; noun: string; tone: "attention" | "live" };
  /** Hidden in the community edition. */
  isCloudOnly?: boolean;
};

/** The sections; a role that may never read one does not see it. */
export const navigation: NavItem[] = [
  { href: "/dashboard", label: "Dashboard", icon: LayoutDashboard, needs: "stats.read" },
  {
    href: "/devices",
    label: "Devices",
    icon: Cpu,
    needs: "device.read",
    badge: { count: (stats) => stats.pending_devices, noun: "pending", tone: "attention" },
  },
  {
    href: "/sessions",
    label: "Sessions",
    icon: History,
    needs: "session.read",
    badge: { count: (stats) => stats.active_sessions, noun: "active", tone: "live" },
  },
  { href: "/containers", label: "Containers", icon: Container, needs: "connector.read", isCloudOnly: true },
  { href: "/keys", label: "Keys", icon: KeyRound, needs: "publickey.read" },
  { href: "/firewall", label: "Firewall", icon: ShieldCheck, needs: "firewall.read" },
  { href: "/tags", label: "Tags", icon: Tags, needs: "tag.read" },
  { href: "/team", label: "Team", icon: Users, needs: "namespace.read" },
  { href: "/activity", label: "Activity", icon: ScrollText, needs: "audit.view" },
  { href: "/settings", label: "Settings", icon: Settings, needs: "namespace.read" },
  // Every member sees who manages webhooks (administrators and the owner) and billing (the owner).
  { href: "/settings/webhooks", label: "Webhooks", icon: Webhook, needs: "namespace.read" },
  { href: "/settings/billing", label: "Billing", icon: CreditCard, needs: "namespace.read", isCloudOnly: true },
];
