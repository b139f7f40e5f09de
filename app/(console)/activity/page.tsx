import type { Metadata } from "next";
import { Suspense } from "react";
import { ActivityPage } from "@/components/activity/activity-page";

export const metadata: Metadata = { title: "Activity" };

export default function Activity() {
  return (
    <Suspense>
      <ActivityPage />
    </Suspense>
  );
}
