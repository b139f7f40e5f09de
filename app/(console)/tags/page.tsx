import type { Metadata } from "next";
import { TagsPage } from "@/components/tags/tags-page";

export const metadata: Metadata = { title: "Tags" };

export default function TagsRoute() {
  return <TagsPage />;
}
