import type { Device } from "./device-data";

/** Online or offline as a dot and a word: never by colour alone. */
export function OnlineStatus({ device }: { device: Pick<Device, "online" | "status"> }) {
  if (device.status !== "accepted") {
    return <span className="text-sm text-slate-600 capitalize dark:text-slate-400">{device.status}</span>;
  }
  return (
    <span className="inline-flex items-center gap-1.5 text-sm">
      <span
        aria-hidden
        className={`size-2 rounded-full ${device.online ? "bg-emerald-500 ring-4 ring-emerald-500/15" : "bg-slate-400"}`}
      />
      {device.online ? "Online" : "Offline"}
    </span>
  );
}
