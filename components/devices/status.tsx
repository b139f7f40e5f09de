import { StateDot } from "@/components/ui/controls";
import type { Device } from "./device-data";

/** Online or offline as a dot and a word: never by colour alone. */
export function OnlineStatus({ device }: { device: Pick<Device, "online" | "status"> }) {
  if (device.status !== "accepted") {
    return <span className="text-sm text-slate-600 capitalize dark:text-slate-400">{device.status}</span>;
  }
  return <StateDot isOn={device.online} label={device.online ? "Online" : "Offline"} />;
}
