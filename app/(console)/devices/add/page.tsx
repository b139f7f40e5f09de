import type { Metadata } from "next";
import { Onboarding } from "@/components/devices/onboarding";

export const metadata: Metadata = { title: "Add a device" };

export default function AddDevicePage() {
  return <Onboarding isFirst={false} />;
}
