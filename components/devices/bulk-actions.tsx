"use client";

import { useState } from "react";
import { toast } from "sonner";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { Dialog } from "@/components/ui/dialog";
import { tagName } from "@/lib/schemas/devices";
import { api, failureText } from "../console/api";
import { usePermission } from "../console/context";
import { deviceCalls, useInvalidateDevices } from "./device-actions";
import { type Device, type DeviceListParams, deviceListPath } from "./device-data";

export type Selection = { uids: Set<string>; allMatching: boolean };

type BulkKind = "accept" | "reject" | "remove" | "addTag" | "removeTag";
const verbs: Record<BulkKind, [string, string]> = {
  accept: ["Accept", "accepted"],
  reject: ["Reject", "rejected"],
  remove: ["Remove", "removed"],
  addTag: ["Add tag", "tagged"],
  removeTag: ["Remove tag", "untagged"],
};

type Failure = { name: string; message: string };
type Run = { kind: BulkKind; done: number; total: number; failures: Failure[]; finished: boolean };

/** Every device the filters match, page by page (the "select all N matching" case). */
async function allMatching(params: DeviceListParams): Promise<Pick<Device, "uid" | "name">[]> {
  const devices: Pick<Device, "uid" | "name">[] = [];
  for (let page = 1; ; page += 1) {
    const answer = await api<Device[]>(deviceListPath({ ...params, page, perPage: 100 }));
    devices.push(...answer.data.map(({ uid, name }) => ({ uid, name })));
    if (answer.data.length < 100 || devices.length >= (answer.total ?? 0)) return devices;
  }
}

const removeConfirmAt = 10;

/**
 * The bar above the table while devices are selected: actions that run one device after
 * another with a progress bar, then a summary that names what failed and why.
 */
export function BulkActions({
  selection,
  pageDevices,
  params,
  total,
  onDone,
}: {
  selection: Selection;
  pageDevices: Device[];
  params: DeviceListParams;
  total: number;
  onDone: () => void;
}) {
  const invalidate = useInvalidateDevices();
  const status = usePermission("device.status");
  const tagging = usePermission("device.tag");
  const removal = usePermission("device.delete");
  const [run, setRun] = useState<Run>();
  const [asking, setAsking] = useState<BulkKind>();
  const [tag, setTag] = useState("");
  const [typedCount, setTypedCount] = useState("");
  const [tagError, setTagError] = useState<string>();
  const count = selection.allMatching ? total : selection.uids.size;

  async function start(kind: BulkKind, tagValue?: string) {
    setAsking(undefined);
    const targets = selection.allMatching
      ? await allMatching(params)
      : pageDevices.filter((device) => selection.uids.has(device.uid));
    const failures: Failure[] = [];
    setRun({ kind, done: 0, total: targets.length, failures, finished: false });
    for (const [index, device] of targets.entries()) {
      try {
        if (kind === "addTag" || kind === "removeTag") await deviceCalls[kind](device.uid, tagValue ?? "");
        else await deviceCalls[kind](device.uid);
      } catch (failure) {
        failures.push({ name: device.name, message: failureText(failure) });
      }
      setRun({ kind, done: index + 1, total: targets.length, failures: [...failures], finished: false });
    }
    // A run that failed somewhere stays on screen with its failures; a clean one goes.
    setRun(
      failures.length ? { kind, done: targets.length, total: targets.length, failures, finished: true } : undefined,
    );
    const succeeded = targets.length - failures.length;
    const summary = `${succeeded} ${verbs[kind][1]}${failures.length ? ` · ${failures.length} failed` : ""}`;
    if (failures.length) toast.warning(summary);
    else toast.success(summary);
    invalidate();
    onDone();
  }

  function askTag(kind: "addTag" | "removeTag") {
    setTag("");
    setTagError(undefined);
    setAsking(kind);
  }

  const actions: { kind: BulkKind; permission: { allowed: boolean; reason?: string }; shown: boolean }[] = [
    { kind: "accept", permission: status, shown: params.status !== "accepted" },
    { kind: "reject", permission: status, shown: params.status === "pending" },
    { kind: "addTag", permission: tagging, shown: params.status === "accepted" },
    { kind: "removeTag", permission: tagging, shown: params.status === "accepted" },
    { kind: "remove", permission: removal, shown: true },
  ];

  if (count === 0 && !run) return null;
  return (
    <div className="grid gap-2">
      {count > 0 && (
        <div className="flex flex-wrap items-center gap-2 rounded-lg border border-indigo-200 bg-indigo-50 px-3 py-2 dark:border-indigo-900 dark:bg-indigo-950/50">
          <span className="mr-2 text-sm font-medium">{count.toLocaleString()} selected</span>
          {actions
            .filter((action) => action.shown)
            .map((action) => (
              <Button
                key={action.kind}
                size="sm"
                variant={action.kind === "remove" ? "danger" : "secondary"}
                deniedReason={action.permission.reason}
                disabled={run !== undefined && !run.finished}
                onClick={() =>
                  action.kind === "addTag" || action.kind === "removeTag"
                    ? askTag(action.kind)
                    : action.kind === "remove"
                      ? setAsking("remove")
                      : start(action.kind)
                }
              >
                {verbs[action.kind][0]}
              </Button>
            ))}
        </div>
      )}
      {run && (
        <div className="grid gap-1.5">
          <div
            role="progressbar"
            aria-label={`${verbs[run.kind][0]}: progress`}
            aria-valuemin={0}
            aria-valuemax={run.total}
            aria-valuenow={run.done}
            className="h-1.5 overflow-hidden rounded-full bg-slate-200 dark:bg-slate-800"
          >
            <div
              className="h-full bg-indigo-600 transition-all"
              style={{ width: `${(run.done / Math.max(1, run.total)) * 100}%` }}
            />
          </div>
          {run.finished && run.failures.length > 0 && (
            <Callout
              kind="warning"
              action={
                <Button size="sm" variant="ghost" onClick={() => setRun(undefined)}>
                  Dismiss
                </Button>
              }
            >
              <p className="font-medium">
                {run.total - run.failures.length} {verbs[run.kind][1]} · {run.failures.length} failed
              </p>
              <ul className="mt-1 list-disc pl-5">
                {run.failures.map((failure) => (
                  <li key={failure.name}>
                    <span className="font-medium">{failure.name}</span>: {failure.message}
                  </li>
                ))}
              </ul>
            </Callout>
          )}
        </div>
      )}
      <Dialog
        isOpen={asking === "addTag" || asking === "removeTag"}
        onClose={() => setAsking(undefined)}
        title={asking === "addTag" ? `Add a tag to ${count} devices` : `Remove a tag from ${count} devices`}
      >
        <form
          className="grid gap-4"
          onSubmit={(event) => {
            event.preventDefault();
            const parsed = tagName.safeParse(tag);
            if (!parsed.success) {
              setTagError(`${parsed.error.issues[0]?.message ?? "invalid"}.`);
              return;
            }
            void start(asking as "addTag" | "removeTag", parsed.data);
          }}
        >
          <TextField
            label="Tag"
            value={tag}
            onChange={(event) => setTag(event.target.value)}
            error={tagError}
            hint="3 to 255 characters, none of / @ & :"
            autoFocus
          />
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => setAsking(undefined)}>
              Cancel
            </Button>
            <Button type="submit">{asking === "addTag" ? "Add tag" : "Remove tag"}</Button>
          </div>
        </form>
      </Dialog>
      <Dialog
        isOpen={asking === "remove"}
        onClose={() => setAsking(undefined)}
        title={`Remove ${count} devices?`}
        description="Their sessions stay in the history. An agent that calls in again comes back as a new pending device. This cannot be undone."
      >
        <form
          className="grid gap-4"
          onSubmit={(event) => {
            event.preventDefault();
            void start("remove");
          }}
        >
          {count >= removeConfirmAt && (
            <TextField
              label={`Type ${count} to confirm`}
              value={typedCount}
              onChange={(event) => setTypedCount(event.target.value)}
              inputMode="numeric"
              autoFocus
            />
          )}
          <div className="flex justify-end gap-2">
            <Button variant="secondary" onClick={() => setAsking(undefined)}>
              Cancel
            </Button>
            <Button type="submit" variant="danger" disabled={count >= removeConfirmAt && typedCount !== String(count)}>
              Remove {count} devices
            </Button>
          </div>
        </form>
      </Dialog>
    </div>
  );
}
