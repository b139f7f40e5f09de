import { redirect } from "next/navigation";

/** The pending queue is the devices page's "Pending" tab. */
export default function PendingDevices() {
  redirect("/devices?status=pending");
}
