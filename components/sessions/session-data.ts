"use client";

import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { toast } from "sonner";
import type { z } from "zod";
import { pageSizes } from "@/components/ui/pagination";
import type { sessionObject } from "@/lib/schemas/sessions";
import { api, failureText, json } from "../console/api";
import { useConnectivity } from "../console/connectivity";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";
import { useUrlState } from "../console/url-state";

export type Session = z.infer<typeof sessionObject>;

/** The history's filters and page, all in the URL. */
export type SessionListParams = {
  device: string;
  login: string;
  authenticated: "any" | "yes" | "no";
  recorded: "any" | "yes";
  page: number;
  perPage: number;
};

export const defaultSessionParams: SessionListParams = {
  device: "",
  login: "",
  authenticated: "any",
  recorded: "any",
  page: 1,
  perPage: 25,
};

function parse(query: URLSearchParams): SessionListParams {
  const perPage = Number(query.get("per_page"));
  const authenticated = query.get("authenticated");
  return {
    device: query.get("device") ?? "",
    login: query.get("login") ?? "",
    authenticated: authenticated === "yes" || authenticated === "no" ? authenticated : "any",
    recorded: query.get("recorded") === "yes" ? "yes" : "any",
    page: Math.max(1, Math.floor(Number(query.get("page"))) || 1),
    perPage: (pageSizes as readonly number[]).includes(perPage) ? perPage : defaultSessionParams.perPage,
  };
}

function serialize(params: SessionListParams): string {
  const query = new URLSearchParams();
  if (params.device) query.set("device", params.device);
  if (params.login) query.set("login", params.login);
  if (params.authenticated !== "any") query.set("authenticated", params.authenticated);
  if (params.recorded !== "any") query.set("recorded", params.recorded);
  if (params.page !== 1) query.set("page", String(params.page));
  if (params.perPage !== defaultSessionParams.perPage) query.set("per_page", String(params.perPage));
  const text = query.toString();
  return text ? `?${text}` : "";
}

export const isSessionFilterSet = (params: SessionListParams) =>
  params.device !== "" || params.login !== "" || params.authenticated !== "any" || params.recorded !== "any";

/** The filters and page in the URL. */
export const useSessionListParams = () => useUrlState<SessionListParams>(parse, serialize);

/** The API's query for a view: the console's words become `GET /api/sessions`'s filters. */
export function sessionListPath(params: SessionListParams & { active?: boolean }): string {
  const query = new URLSearchParams({ page: String(params.page), per_page: String(params.perPage) });
  if (params.active !== undefined) query.set("active", String(params.active));
  if (params.device) query.set("device_uid", params.device);
  if (params.login) query.set("username", params.login);
  if (params.authenticated !== "any") query.set("authenticated", String(params.authenticated === "yes"));
  if (params.recorded === "yes") query.set("recorded", "true");
  return `/api/sessions?${query}`;
}

/** A page of sessions; the event stream refreshes it when one starts or ends, polling while it is down. */
export function useSessionList(params: SessionListParams & { active?: boolean }) {
  const { tenant } = useConsole();
  const { isLive } = useConnectivity();
  return useQuery({
    queryKey: queryKeys.sessions.list(tenant, params),
    queryFn: () => api<Session[]>(sessionListPath(params)),
    placeholderData: keepPreviousData,
    refetchInterval: isLive ? false : 15_000,
  });
}

export function useSession(uid: string) {
  const { tenant } = useConsole();
  const { isLive } = useConnectivity();
  return useQuery({
    queryKey: queryKeys.sessions.detail(tenant, uid),
    queryFn: () => api<Session>(`/api/sessions/${encodeURIComponent(uid)}`),
    refetchInterval: isLive ? false : 15_000,
  });
}

/** Closes a live session (its connection is dropped); pessimistic, named in the toast. */
export function useCloseSession() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return useMutation({
    mutationFn: (session: Pick<Session, "uid" | "device_uid">) =>
      api(`/api/sessions/${encodeURIComponent(session.uid)}/close`, {
        method: "POST",
        body: json({ device: session.device_uid }),
      }),
    onSuccess: () => toast.success("Session closed"),
    onError: (failure) => toast.error(`The session was not closed: ${failureText(failure)}`),
    onSettled: () => {
      void queryClient.invalidateQueries({ queryKey: queryKeys.sessions.all(tenant) });
      void queryClient.invalidateQueries({ queryKey: queryKeys.stats(tenant) });
    },
  });
}

/** `1 h 04 min`, `3 min 05 s`, `12 s`. */
export function duration(seconds: number): string {
  const whole = Math.max(0, Math.round(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, "0")} min`;
  if (minutes > 0) return `${minutes} min ${String(whole % 60).padStart(2, "0")} s`;
  return `${whole} s`;
}

/** How long a session lasted, or has lasted so far when it is live. */
export const sessionSeconds = (session: Pick<Session, "started_at" | "last_seen" | "active">, now: number) =>
  ((session.active ? now : new Date(session.last_seen).getTime()) - new Date(session.started_at).getTime()) / 1000;
