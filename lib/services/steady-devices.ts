import { maxCachedDevices, processSingleton, setInCache } from "../process-state";

/**
 * A device this process's heartbeat writer last saw online with these values in its row: written
 * by a heartbeat that proved its key, or found so by a stamp since (lib/services/heartbeats.ts).
 * A heartbeat that repeats them is steady: it is answered from here and stamped a moment later.
 */
export type SteadyDevice = {
  readonly uid: string;
  readonly tenantId: string;
  readonly remoteAddr: string;
  readonly info: Record<string, string>;
  /** Its name when the database last showed it; a stamp sets both in place (no new object to collect). */
  name: string;
  /** When the database last showed the device online with these values (ms since the epoch). */
  confirmedAt: number;
};

const steadyDevices = processSingleton("steady devices", () => new Map<string, SteadyDevice>());

export const steadyDevice = (uid: string): SteadyDevice | undefined => steadyDevices.get(uid);

export function setSteadyDevice(device: SteadyDevice): void {
  setInCache(steadyDevices, device.uid, device, maxCachedDevices);
}

/**
 * Devices whose next heartbeat must go through the database: changed through this process (its
 * events, lib/services/events.ts), or found offline, deleted or at another address by a stamp. A
 * steady heartbeat never brings a device back online.
 */
export function forgetSteadyDevices(uids: Iterable<string>): void {
  for (const uid of uids) steadyDevices.delete(uid);
}

export function forgetAllSteadyDevices(): void {
  steadyDevices.clear();
}
