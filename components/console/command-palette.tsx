"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { ArrowRight, Cpu, Search, TerminalSquare } from "lucide-react";
import { useRouter } from "next/navigation";
import { type KeyboardEvent, useEffect, useId, useState } from "react";
import { Dialog } from "@/components/ui/dialog";
import { can } from "@/lib/auth/roles";
import { condition, type Device, filterParam } from "../devices/device-data";
import { api } from "./api";
import { useConsole } from "./context";
import { navigation } from "./navigation";

type Entry = { id: string; label: string; hint: string; icon: typeof Cpu; href: string };

/** Devices whose name holds `text`, online first; the palette's own key, never a list's. */
function useDeviceMatches(text: string) {
  const { tenant } = useConsole();
  const query = new URLSearchParams({ status: "accepted", sort_by: "online", order_by: "desc", per_page: "6" });
  if (text) query.set("filter", filterParam([condition("name", "contains", text)]));
  return useQuery({
    queryKey: ["palette", tenant, text],
    queryFn: () => api<Device[]>(`/api/devices?${query}`),
    placeholderData: keepPreviousData,
    staleTime: 10_000,
  });
}

/** Whether a key press came from inside a terminal, which keeps every key for the shell. */
const isInTerminal = (target: EventTarget | null) => target instanceof Element && target.closest(".xterm") !== null;

/**
 * Ctrl+K (⌘K): jump to a section or a device, or connect to a device, by typing. Arrow keys move
 * through the results, Enter opens one, Escape closes.
 */
export function CommandPalette() {
  const router = useRouter();
  const { role, edition } = useConsole();
  const [isOpen, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const listId = useId();
  const devices = useDeviceMatches(isOpen ? text.trim() : "");
  const canConnect = role !== undefined && can(role, "device.connect");

  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k" && !isInTerminal(event.target)) {
        event.preventDefault();
        setOpen(true);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);

  const needle = text.trim().toLowerCase();
  const sections: Entry[] = navigation
    .filter((item) => role !== undefined && can(role, item.needs) && (!item.isCloudOnly || edition === "cloud"))
    .filter((item) => item.label.toLowerCase().includes(needle))
    .map((item) => ({ id: item.href, label: item.label, hint: "Go to", icon: item.icon, href: item.href }));
  const deviceEntries: Entry[] = (devices.data?.data ?? []).flatMap((device) => [
    {
      id: device.uid,
      label: device.name,
      hint: device.online ? "Device · online" : "Device · offline",
      icon: Cpu,
      href: `/devices/${device.uid}`,
    },
    ...(device.online && canConnect
      ? [
          {
            id: `${device.uid}-connect`,
            label: `Connect to ${device.name}`,
            hint: "Terminal",
            icon: TerminalSquare,
            href: `/devices/${device.uid}?connect=1`,
          },
        ]
      : []),
  ]);
  const entries = [...sections, ...deviceEntries];
  const selected = Math.min(active, Math.max(0, entries.length - 1));

  const close = () => {
    setOpen(false);
    setText("");
    setActive(0);
  };
  const run = (entry: Entry | undefined) => {
    if (!entry) return;
    close();
    router.push(entry.href);
  };
  const onKeyDown = (event: KeyboardEvent<HTMLInputElement>) => {
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      const step = event.key === "ArrowDown" ? 1 : -1;
      setActive((selected + step + entries.length) % Math.max(1, entries.length));
    } else if (event.key === "Enter") {
      event.preventDefault();
      run(entries[selected]);
    }
  };

  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-label="Search and jump (Ctrl+K)"
        className="inline-flex items-center gap-2 rounded-md px-2 py-1.5 text-sm text-slate-600 ring-1 ring-slate-200 hover:bg-slate-100 dark:text-slate-300 dark:ring-slate-700 dark:hover:bg-slate-800"
      >
        <Search aria-hidden className="size-4" />
        <span className="hidden md:inline">Search</span>
        <kbd className="hidden rounded bg-slate-100 px-1.5 font-sans text-xs md:inline dark:bg-slate-800">Ctrl K</kbd>
      </button>
      <Dialog isOpen={isOpen} onClose={close} title="Command palette">
        <input
          type="text"
          role="combobox"
          aria-expanded={entries.length > 0}
          aria-controls={listId}
          aria-activedescendant={entries[selected] ? `${listId}-${selected}` : undefined}
          aria-label="Go to a section or a device"
          placeholder="Type a section or a device name"
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
          className="w-full rounded-md bg-white px-3 py-2 text-sm outline-1 -outline-offset-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
        />
        <div id={listId} role="listbox" aria-label="Results" className="grid max-h-80 gap-0.5 overflow-y-auto">
          {entries.map((entry, index) => (
            // The input keeps the focus; the arrow keys move the active option (aria-activedescendant).
            // biome-ignore lint/a11y/useKeyWithClickEvents: the input handles the keys of the list
            <div
              key={entry.id}
              id={`${listId}-${index}`}
              role="option"
              tabIndex={-1}
              aria-selected={index === selected}
              onClick={() => run(entry)}
              onMouseEnter={() => setActive(index)}
              className={`flex cursor-pointer items-center gap-3 rounded-md px-2.5 py-2 text-sm ${
                index === selected ? "bg-indigo-50 text-indigo-900 dark:bg-indigo-950 dark:text-indigo-100" : ""
              }`}
            >
              <entry.icon aria-hidden className="size-4 shrink-0" />
              <span className="flex-1 truncate">{entry.label}</span>
              <span className="text-xs text-slate-600 dark:text-slate-400">{entry.hint}</span>
              {index === selected && <ArrowRight aria-hidden className="size-4" />}
            </div>
          ))}
        </div>
        {entries.length === 0 && (
          <p className="px-2.5 py-2 text-sm text-slate-600 dark:text-slate-400">Nothing matches “{text}”.</p>
        )}
      </Dialog>
    </>
  );
}
