"use client";

import { type QueryClient, type QueryKey, useQueryClient } from "@tanstack/react-query";
import { useEffect } from "react";
import type { z } from "zod";
import { eventTypes, type liveEventData } from "@/lib/schemas/events";
import type { Answer } from "./api";
import { useConnectivity } from "./connectivity";
import { queryKeys } from "./query-keys";

/** One event of `GET /api/events`: what changed, on which device or session, and the new fields. */
type LiveEvent = z.infer<typeof liveEventData>;

type Row = { uid: string } & Record<string, unknown>;

const throttleMs = 2_000;

/**
 * Invalidations of one key at most every 2 s: a burst of events costs one refetch at once and
 * one at the end of the window, so the last event of a burst is never lost. A fetch in flight is
 * cancelled first: its answer may predate the event, and react-query would otherwise keep it
 * (it joins a query's first fetch rather than fetching again).
 */
export function throttledInvalidator(queryClient: QueryClient) {
  const windows = new Map<string, { trailing: boolean }>();
  const invalidate = (key: QueryKey) => {
    const id = JSON.stringify(key);
    const open = windows.get(id);
    if (open) {
      open.trailing = true;
      return;
    }
    void queryClient.cancelQueries({ queryKey: key }).then(() => queryClient.invalidateQueries({ queryKey: key }));
    const window = { trailing: false };
    windows.set(id, window);
    setTimeout(() => {
      windows.delete(id);
      if (window.trailing) invalidate(key);
    }, throttleMs);
  };
  return invalidate;
}

function patchRows(queryClient: QueryClient, tenant: string, uid: string, patch: Record<string, unknown>) {
  queryClient.setQueriesData<Answer<Row[]>>({ queryKey: queryKeys.devices.lists(tenant) }, (page) =>
    page ? { ...page, data: page.data.map((row) => (row.uid === uid ? { ...row, ...patch } : row)) } : page,
  );
  queryClient.setQueryData<Answer<Row>>(queryKeys.devices.detail(tenant, uid), (detail) =>
    detail ? { ...detail, data: { ...detail.data, ...patch } } : detail,
  );
}

/**
 * The namespace's event stream: patches cached devices in place, replaces the counters, and
 * refetches what an event changes the shape of (a new device, a session). The browser's
 * EventSource reconnects by itself and sends `Last-Event-ID`; while it is down, lists poll, and
 * once it is open they are fetched again.
 */
export function LiveUpdates({ tenant }: { tenant: string }) {
  const queryClient = useQueryClient();
  const { setLive } = useConnectivity();

  useEffect(() => {
    const invalidate = throttledInvalidator(queryClient);
    const source = new EventSource("/api/events");
    const handle = (message: MessageEvent<string>) => {
      const event = JSON.parse(message.data) as LiveEvent;
      if (event.type === "stats" && event.patch) {
        queryClient.setQueryData(queryKeys.stats(tenant), (old: Answer<unknown> | undefined) => ({
          headers: old?.headers ?? new Headers(),
          data: event.patch,
        }));
        return;
      }
      if (event.type === "reset") {
        void queryClient.invalidateQueries();
        return;
      }
      if (event.type.startsWith("session.")) {
        invalidate(queryKeys.sessions.all(tenant));
        invalidate(queryKeys.stats(tenant));
        return;
      }
      if (!event.uid) return;
      if (event.patch) patchRows(queryClient, tenant, event.uid, event.patch);
      // Membership of the lists (a status filter, the order by last seen) may change with it.
      invalidate(queryKeys.devices.lists(tenant));
      invalidate(queryKeys.stats(tenant));
      if (event.type === "device.removed")
        queryClient.removeQueries({ queryKey: queryKeys.devices.detail(tenant, event.uid) });
    };
    for (const type of [...eventTypes, "stats", "reset"]) source.addEventListener(type, handle);
    // What the page fetched before the stream opened may miss an event of that gap (a first
    // connection has no Last-Event-ID to replay from): what the stream keeps fresh is fetched again.
    source.onopen = () => {
      setLive(true);
      invalidate(queryKeys.devices.all(tenant));
      invalidate(queryKeys.sessions.all(tenant));
      invalidate(queryKeys.stats(tenant));
    };
    source.onerror = () => setLive(false);
    return () => {
      source.close();
      setLive(false);
    };
  }, [queryClient, tenant, setLive]);

  return null;
}
