import type { Metadata } from "next";
import { MembersPage } from "@/components/team/members";

export const metadata: Metadata = { title: "Team" };

export default function Team() {
  return <MembersPage />;
}
