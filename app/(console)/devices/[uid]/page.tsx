import type { Metadata } from "next";
import { Suspense } from "react";
import { DeviceDetail } from "@/components/devices/device-detail";

export const metadata: Metadata = { title: "Device" };

export default async function DevicePage({ params }: { params: Promise<{ uid: string }> }) {
  const { uid } = await params;
  return (
    <Suspense>
      <DeviceDetail uid={uid} />
    </Suspense>
  );
}
