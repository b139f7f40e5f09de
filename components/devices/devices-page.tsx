"use client";

import { useQuery } from "@tanstack/react-query";
import { ArrowDown, ArrowUp, X } from "lucide-react";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Badge, Button, SearchField, selectStyle } from "@/components/ui/controls";
import { LoadFailure } from "@/components/ui/list-states";
import { Pagination } from "@/components/ui/pagination";
import { RelativeTime } from "@/components/ui/relative-time";
import { api, failureText } from "../console/api";
import { useConsole, usePermission } from "../console/context";
import { queryKeys } from "../console/query-keys";
import { useStats } from "../console/stats";
import { BulkActions, type Selection } from "./bulk-actions";
import { useStatusChange } from "./device-actions";
import { type Device, type DeviceListParams, sshidOf, useDeviceList } from "./device-data";
import { defaultParams, isFiltered, useListParams } from "./list-params";
import { OnlineStatus } from "./status";

const tabs: { status: DeviceListParams["status"]; label: string }[] = [
  { status: "accepted", label: "Devices" },
  { status: "pending", label: "Pending" },
  { status: "rejected", label: "Rejected" },
];

function useTags() {
  const { tenant } = useConsole();
  return useQuery({ queryKey: queryKeys.tags(tenant), queryFn: () => api<string[]>("/api/tags?per_page=100") });
}

function SearchBox({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  useEffect(() => {
    if (text === value) return;
    const timer = setTimeout(() => onChange(text), 300);
    return () => clearTimeout(timer);
  }, [text, value, onChange]);
  return (
    <SearchField
      label="Search devices by name"
      placeholder="Search by name"
      value={text}
      onChange={(event) => setText(event.target.value)}
      className="min-w-48 flex-1 sm:max-w-xs"
    />
  );
}

function SortHeader({
  label,
  field,
  params,
  update,
}: {
  label: string;
  field: DeviceListParams["sort"];
  params: DeviceListParams;
  update: (change: Partial<DeviceListParams>) => void;
}) {
  const isSorted = params.sort === field;
  const Arrow = params.order === "asc" ? ArrowUp : ArrowDown;
  return (
    <th
      scope="col"
      aria-sort={isSorted ? (params.order === "asc" ? "ascending" : "descending") : "none"}
      className="px-3 py-2.5 text-left font-semibold whitespace-nowrap"
    >
      <button
        type="button"
        className="inline-flex items-center gap-1 hover:text-indigo-700 dark:hover:text-indigo-300"
        onClick={() =>
          update({ sort: field, order: isSorted && params.order === "desc" ? "asc" : isSorted ? "desc" : "asc" })
        }
      >
        {label}
        {isSorted && <Arrow aria-hidden className="size-3.5" />}
      </button>
    </th>
  );
}

function RowActions({ device }: { device: Device }) {
  const status = usePermission("device.status");
  const change = useStatusChange();
  if (device.status === "accepted") {
    // An offline device cannot be reached: its page says why and how to look into it.
    if (!device.online) return <span className="text-sm text-slate-500 dark:text-slate-400">Unreachable</span>;
    return (
      <Link
        href={`/devices/${device.uid}?connect=1`}
        className="text-sm font-medium text-indigo-700 hover:underline dark:text-indigo-300"
      >
        Connect<span className="sr-only"> to {device.name}</span>
      </Link>
    );
  }
  const isBusy = change.isPending && change.variables?.device.uid === device.uid;
  return (
    <span className="inline-flex gap-2">
      <Button
        size="sm"
        deniedReason={status.reason}
        isPending={isBusy && change.variables?.to === "accept"}
        onClick={() => change.mutate({ device, to: "accept" })}
      >
        Accept<span className="sr-only"> {device.name}</span>
      </Button>
      {device.status === "pending" && (
        <Button
          size="sm"
          variant="secondary"
          deniedReason={status.reason}
          isPending={isBusy && change.variables?.to === "reject"}
          onClick={() => change.mutate({ device, to: "reject" })}
        >
          Reject<span className="sr-only"> {device.name}</span>
        </Button>
      )}
    </span>
  );
}

function Tags({ tags }: { tags: string[] }) {
  if (tags.length === 0) return <span className="text-slate-400">—</span>;
  return (
    <span className="flex flex-wrap gap-1">
      {tags.map((tag) => (
        <Badge key={tag} color="indigo">
          {tag}
        </Badge>
      ))}
    </span>
  );
}

const noSelection = (): Selection => ({ uids: new Set(), allMatching: false });

/** The fleet: tabs by status, search and filters in the URL, bulk actions, live status. */
export function DevicesPage() {
  const [params, update] = useListParams();
  const { info } = useConsole();
  const stats = useStats().data?.data;
  const list = useDeviceList(params);
  const tags = useTags().data?.data ?? [];
  const [selection, setSelection] = useState<Selection>(noSelection);
  const devices = list.data?.data ?? [];
  const total = list.data?.total ?? 0;
  const host = info.endpoints.ssh.slice(0, info.endpoints.ssh.lastIndexOf(":"));

  // biome-ignore lint/correctness/useExhaustiveDependencies: a new view starts with nothing selected
  useEffect(() => setSelection(noSelection()), [JSON.stringify(params)]);

  const hasNoDevice = stats !== undefined && stats.registered_devices === 0 && stats.pending_devices === 0;

  const isAllOnPage = devices.length > 0 && devices.every((device) => selection.uids.has(device.uid));
  const toggle = (uid: string) => {
    const uids = new Set(selection.uids);
    if (uids.has(uid)) uids.delete(uid);
    else uids.add(uid);
    setSelection({ uids, allMatching: false });
  };

  return (
    <div className="grid gap-5">
      <div className="flex flex-wrap items-end justify-between gap-3">
        <div>
          <h1 className="text-2xl font-semibold tracking-tight">Devices</h1>
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {stats
              ? `${stats.online_devices.toLocaleString()} of ${stats.registered_devices.toLocaleString()} online`
              : " "}
          </p>
        </div>
        <Link
          href="/devices/add"
          className="rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-semibold text-white hover:bg-indigo-500 dark:bg-indigo-500"
        >
          Add device
        </Link>
      </div>

      <div
        role="tablist"
        aria-label="Device status"
        className="flex gap-1 border-b border-slate-200 dark:border-slate-800"
      >
        {tabs.map((tab) => {
          const count =
            tab.status === "pending"
              ? stats?.pending_devices
              : tab.status === "rejected"
                ? stats?.rejected_devices
                : undefined;
          const isCurrent = params.status === tab.status;
          return (
            <button
              key={tab.status}
              type="button"
              role="tab"
              aria-selected={isCurrent}
              onClick={() => update({ ...defaultParams, status: tab.status })}
              className={`-mb-px border-b-2 px-3 py-2 text-sm font-medium ${
                isCurrent
                  ? "border-indigo-600 text-indigo-700 dark:border-indigo-400 dark:text-indigo-300"
                  : "border-transparent text-slate-600 hover:text-slate-900 dark:text-slate-400 dark:hover:text-white"
              }`}
            >
              {tab.label}
              {count ? (
                <span className="ml-1.5 rounded-full bg-slate-100 px-1.5 text-xs dark:bg-slate-800">{count}</span>
              ) : null}
            </button>
          );
        })}
      </div>

      <div className="flex flex-wrap items-center gap-2">
        <SearchBox value={params.search} onChange={(search) => update({ search }, "replace")} />
        {params.status === "accepted" && (
          <select
            aria-label="Online or offline"
            className={selectStyle}
            value={params.connectivity}
            onChange={(event) => update({ connectivity: event.target.value as DeviceListParams["connectivity"] })}
          >
            <option value="all">Online and offline</option>
            <option value="online">Online</option>
            <option value="offline">Offline</option>
          </select>
        )}
        {tags.length > 0 && (
          <select
            aria-label="Filter by tag"
            className={selectStyle}
            value=""
            onChange={(event) => event.target.value && update({ tags: [...params.tags, event.target.value] })}
          >
            <option value="">Filter by tag…</option>
            {tags
              .filter((tag) => !params.tags.includes(tag))
              .map((tag) => (
                <option key={tag}>{tag}</option>
              ))}
          </select>
        )}
        {params.tags.map((tag) => (
          <button
            key={tag}
            type="button"
            onClick={() => update({ tags: params.tags.filter((other) => other !== tag) })}
            className="inline-flex items-center gap-1 rounded-full bg-indigo-50 py-1 pr-1.5 pl-2.5 text-xs font-medium text-indigo-800 ring-1 ring-indigo-200 hover:bg-indigo-100 dark:bg-indigo-950 dark:text-indigo-200 dark:ring-indigo-800"
          >
            {tag}
            <X aria-hidden className="size-3.5" />
            <span className="sr-only">: remove this tag filter</span>
          </button>
        ))}
        {isFiltered(params) && (
          <Button variant="ghost" size="sm" onClick={() => update({ ...defaultParams, status: params.status })}>
            Clear filters
          </Button>
        )}
      </div>

      <BulkActions
        selection={selection}
        pageDevices={devices}
        params={params}
        total={total}
        onDone={() => setSelection(noSelection())}
      />
      {isAllOnPage && !selection.allMatching && total > devices.length && (
        <p className="text-sm">
          All {devices.length} on this page are selected.{" "}
          <button
            type="button"
            className="font-medium text-indigo-700 underline dark:text-indigo-300"
            onClick={() => setSelection({ uids: selection.uids, allMatching: true })}
          >
            Select all {total.toLocaleString()} matching
          </button>
        </p>
      )}

      {list.isError ? (
        <LoadFailure
          message={`The devices could not be loaded. ${failureText(list.error)}`}
          onRetry={() => list.refetch()}
        />
      ) : list.isPending ? (
        <div className="grid gap-2" role="status" aria-busy="true">
          <span className="sr-only">Loading devices</span>
          {[1, 2, 3, 4].map((row) => (
            <div key={row} className="h-12 animate-pulse rounded-md bg-slate-200/70 dark:bg-slate-800" />
          ))}
        </div>
      ) : devices.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 px-6 py-12 text-center dark:border-slate-700">
          <p className="font-medium">
            {isFiltered(params)
              ? "No devices match these filters."
              : hasNoDevice
                ? "No devices yet: connect your first one with a single command."
                : `No ${params.status} devices.`}
          </p>
          {hasNoDevice && !isFiltered(params) && (
            <Link
              href="/devices/add"
              className="mt-3 inline-block rounded-md bg-indigo-600 px-3.5 py-2 text-sm font-semibold text-white hover:bg-indigo-500 dark:bg-indigo-500"
            >
              Connect a device
            </Link>
          )}
          {isFiltered(params) && (
            <Button
              className="mt-3"
              variant="secondary"
              onClick={() => update({ ...defaultParams, status: params.status })}
            >
              Clear filters
            </Button>
          )}
        </div>
      ) : (
        <>
          <div className="hidden overflow-x-auto rounded-lg border border-slate-200 bg-white sm:block dark:border-slate-800 dark:bg-slate-900">
            <table className="min-w-full text-sm">
              <thead className="border-b border-slate-200 bg-slate-50 text-slate-700 dark:border-slate-800 dark:bg-slate-800/50 dark:text-slate-300">
                <tr>
                  <th scope="col" className="w-10 px-3 py-2.5">
                    <input
                      type="checkbox"
                      aria-label="Select every device on this page"
                      checked={isAllOnPage}
                      onChange={() =>
                        setSelection(
                          isAllOnPage
                            ? noSelection()
                            : { uids: new Set(devices.map((device) => device.uid)), allMatching: false },
                        )
                      }
                    />
                  </th>
                  <SortHeader label="Name" field="name" params={params} update={update} />
                  <SortHeader label="Status" field="online" params={params} update={update} />
                  <th scope="col" className="hidden px-3 py-2.5 text-left font-semibold lg:table-cell">
                    Operating system
                  </th>
                  <th scope="col" className="hidden px-3 py-2.5 text-left font-semibold md:table-cell">
                    <abbr title="The device's SSH address: user@SSHID">SSHID</abbr>
                  </th>
                  <th scope="col" className="px-3 py-2.5 text-left font-semibold">
                    Tags
                  </th>
                  <SortHeader label="Last seen" field="last_seen" params={params} update={update} />
                  <th scope="col" className="px-3 py-2.5 text-right font-semibold">
                    <span className="sr-only">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100 dark:divide-slate-800">
                {devices.map((device) => (
                  <tr
                    key={device.uid}
                    className={`hover:bg-slate-50 dark:hover:bg-slate-800/40 ${
                      device.status === "accepted" && !device.online ? "text-slate-500 dark:text-slate-400" : ""
                    }`}
                  >
                    <td className="px-3 py-2.5">
                      <input
                        type="checkbox"
                        aria-label={`Select ${device.name}`}
                        checked={selection.allMatching || selection.uids.has(device.uid)}
                        onChange={() => toggle(device.uid)}
                      />
                    </td>
                    <td className="px-3 py-2.5 font-medium whitespace-nowrap">
                      <Link
                        href={`/devices/${device.uid}`}
                        className="hover:text-indigo-700 hover:underline dark:hover:text-indigo-300"
                      >
                        {device.name}
                      </Link>
                    </td>
                    <td className="px-3 py-2.5 whitespace-nowrap">
                      <OnlineStatus device={device} />
                    </td>
                    <td className="hidden px-3 py-2.5 lg:table-cell">{device.info.pretty_name || "—"}</td>
                    <td className="hidden px-3 py-2.5 font-mono text-xs whitespace-nowrap md:table-cell">
                      {sshidOf(device, host)}
                    </td>
                    <td className="px-3 py-2.5">
                      <Tags tags={device.tags} />
                    </td>
                    <td className="px-3 py-2.5 whitespace-nowrap">
                      <RelativeTime value={device.last_seen} />
                    </td>
                    <td className="px-3 py-2.5 text-right whitespace-nowrap">
                      <RowActions device={device} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <ul className="grid gap-2 sm:hidden" aria-label="Devices">
            {devices.map((device) => (
              <li
                key={device.uid}
                className="flex items-start gap-3 rounded-lg border border-slate-200 bg-white p-3 dark:border-slate-800 dark:bg-slate-900"
              >
                <input
                  type="checkbox"
                  className="mt-1"
                  aria-label={`Select ${device.name}`}
                  checked={selection.allMatching || selection.uids.has(device.uid)}
                  onChange={() => toggle(device.uid)}
                />
                <div className="grid min-w-0 flex-1 gap-1">
                  <div className="flex items-center justify-between gap-2">
                    <Link href={`/devices/${device.uid}`} className="truncate font-medium">
                      {device.name}
                    </Link>
                    <OnlineStatus device={device} />
                  </div>
                  <p className="truncate text-xs text-slate-600 dark:text-slate-400">
                    {device.info.pretty_name || "Unknown system"} · <RelativeTime value={device.last_seen} />
                  </p>
                  {device.tags.length > 0 && <Tags tags={device.tags} />}
                  <div className="mt-1">
                    <RowActions device={device} />
                  </div>
                </div>
              </li>
            ))}
          </ul>
          <Pagination
            page={params.page}
            perPage={params.perPage}
            total={total}
            onPage={(page) => update({ page })}
            onPerPage={(perPage) => update({ perPage })}
          />
        </>
      )}
    </div>
  );
}
