"use client";

import { useState } from "react";
import { toast } from "sonner";
import { Button, Callout } from "@/components/ui/controls";
import { Dialog, DialogButtons } from "@/components/ui/dialog";
import { LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { failureText } from "../console/api";
import { useConsole } from "../console/context";
import { billingCalls, useBillingMutation, useMostUsedDevices } from "./billing-data";

/**
 * Over the free plan: the owner keeps at most its number of devices, the most used preselected;
 * the others become removed (kept with their data, no sessions) until a subscription is active.
 */
export function DeviceChoiceDialog({ isOpen, onClose }: { isOpen: boolean; onClose: () => void }) {
  const { freePlanDevices: limit } = useConsole();
  const devices = useMostUsedDevices(isOpen);
  const [picked, setPicked] = useState<string[]>();
  const choose = useBillingMutation(billingCalls.chooseDevices);
  const list = devices.data ?? [];
  const chosen = picked ?? list.slice(0, limit).map((device) => device.uid);
  const others = list.length - chosen.length;
  const toggle = (uid: string) =>
    setPicked(chosen.includes(uid) ? chosen.filter((item) => item !== uid) : [...chosen, uid]);
  const close = () => {
    setPicked(undefined);
    onClose();
  };
  return (
    <Dialog
      isOpen={isOpen}
      onClose={close}
      isWide
      title="Choose the devices to keep"
      description={
        <p>
          The free plan keeps {limit} devices. The others become <strong>removed</strong>: they keep their data and
          settings but refuse SSH sessions until a subscription is active again, when they come back by themselves. The
          most used devices of the last 30 days are selected.
        </p>
      }
    >
      {devices.isError ? (
        <LoadFailure
          message={`The devices could not be loaded. ${failureText(devices.error)}`}
          onRetry={() => devices.refetch()}
        />
      ) : devices.isPending ? (
        <LoadingRows label="Loading the devices" />
      ) : (
        <fieldset className="grid gap-2">
          <legend className="mb-1 text-sm font-medium" aria-live="polite">
            {chosen.length} of {limit} selected
          </legend>
          <ul className="grid max-h-72 gap-1 overflow-y-auto">
            {list.map((device) => {
              const isChosen = chosen.includes(device.uid);
              return (
                <li key={device.uid}>
                  <label className="flex items-center gap-3 rounded-md px-2 py-1.5 text-sm hover:bg-slate-50 dark:hover:bg-slate-800">
                    <input
                      type="checkbox"
                      className="size-4 accent-indigo-600"
                      checked={isChosen}
                      disabled={!isChosen && chosen.length >= limit}
                      onChange={() => toggle(device.uid)}
                    />
                    <span className="min-w-0 flex-1 truncate font-medium">{device.name}</span>
                  </label>
                </li>
              );
            })}
          </ul>
        </fieldset>
      )}
      {others > 0 && (
        <Callout kind="warning">
          {others} {others === 1 ? "device" : "devices"} will be removed.
        </Callout>
      )}
      {choose.isError && <Callout kind="error">{failureText(choose.error)}</Callout>}
      <DialogButtons onCancel={close}>
        <Button
          isPending={choose.isPending}
          disabled={devices.isPending || chosen.length === 0}
          onClick={() =>
            choose.mutate(chosen, {
              onSuccess: () => {
                toast.success(`Kept ${chosen.length} ${chosen.length === 1 ? "device" : "devices"}`);
                close();
              },
            })
          }
        >
          Keep {chosen.length} {chosen.length === 1 ? "device" : "devices"}
        </Button>
      </DialogButtons>
    </Dialog>
  );
}
