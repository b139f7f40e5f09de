import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AnnouncementsPage } from "@/components/announcements/announcements";
import { getConfig } from "@/lib/config";

export const metadata: Metadata = { title: "Announcements" };

export default function Announcements() {
  // Announcements are part of the cloud edition.
  if (getConfig().EDITION !== "cloud") notFound();
  return <AnnouncementsPage />;
}
