import type { Metadata } from "next";
import { Suspense } from "react";
import { SessionsPage } from "@/components/sessions/sessions-page";

export const metadata: Metadata = { title: "Sessions" };

export default function Sessions() {
  return (
    <Suspense>
      <SessionsPage />
    </Suspense>
  );
}
