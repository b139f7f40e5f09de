import type { Metadata } from "next";
import { Suspense } from "react";
import { SessionDetail } from "@/components/sessions/session-detail";

export const metadata: Metadata = { title: "Session" };

export default async function SessionPage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Suspense>
      <SessionDetail uid={uid} />
    </Suspense>
  );
}
