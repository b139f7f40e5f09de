"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import type { z } from "zod";
import { pageSizes } from "@/components/ui/pagination";
import type { auditEntry } from "@/lib/schemas/audit";
import { api } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";
import { useUrlState } from "../console/url-state";

export type AuditEntry = z.infer<typeof auditEntry>;

/** The kinds of action the filter offers: an API `action` prefix each. */
export const actionGroups = [
  ["ssh.", "SSH logins"],
  ["device.", "Devices"],
  ["access.", "Refused operations"],
  ["api_key.", "API keys"],
  ["session.", "Sessions"],
  ["public_key.", "Public keys"],
  ["firewall_rule.", "Firewall rules"],
  ["tag.", "Tags"],
  ["member.", "Members and roles"],
  ["namespace.", "Namespace settings"],
  ["connector.", "Connectors"],
  ["billing.", "Billing"],
  ["audit.", "Retention purges"],
] as const;

/** The page's filters and page, all in the URL (dates as the day, YYYY-MM-DD). */
export type ActivityParams = {
  actor: string;
  action: string;
  outcome: "" | "success" | "failure";
  from: string;
  to: string;
  page: number;
  perPage: number;
};

export const defaultActivityParams: ActivityParams = {
  actor: "",
  action: "",
  outcome: "",
  from: "",
  to: "",
  page: 1,
  perPage: 25,
};

const dayPattern = /^\d{4}-\d\d-\d\d$/;
const knownActions = new Set<string>(actionGroups.map(([prefix]) => prefix));

function parse(query: URLSearchParams): ActivityParams {
  const perPage = Number(query.get("per_page"));
  const outcome = query.get("outcome");
  const day = (name: string) => {
    const value = query.get(name) ?? "";
    return dayPattern.test(value) ? value : "";
  };
  return {
    actor: query.get("actor") ?? "",
    action: knownActions.has(query.get("action") ?? "") ? (query.get("action") ?? "") : "",
    outcome: outcome === "success" || outcome === "failure" ? outcome : "",
    from: day("from"),
    to: day("to"),
    page: Math.max(1, Math.floor(Number(query.get("page"))) || 1),
    perPage: (pageSizes as readonly number[]).includes(perPage) ? perPage : defaultActivityParams.perPage,
  };
}

function serialize(params: ActivityParams): string {
  const query = new URLSearchParams();
  for (const name of ["actor", "action", "outcome", "from", "to"] as const) {
    if (params[name]) query.set(name, params[name]);
  }
  if (params.page !== 1) query.set("page", String(params.page));
  if (params.perPage !== defaultActivityParams.perPage) query.set("per_page", String(params.perPage));
  const text = query.toString();
  return text ? `?${text}` : "";
}

export const isActivityFilterSet = (params: ActivityParams) =>
  params.actor !== "" || params.action !== "" || params.outcome !== "" || params.from !== "" || params.to !== "";

/** The filters and page in the URL. */
export const useActivityParams = () => useUrlState<ActivityParams>(parse, serialize);

/** The API's filters for the page's: days become the local day's first and last instant. */
export function auditFilterQuery(params: ActivityParams): URLSearchParams {
  const query = new URLSearchParams();
  if (params.actor) query.set("actor", params.actor);
  if (params.action) query.set("action", params.action);
  if (params.outcome) query.set("outcome", params.outcome);
  if (params.from) query.set("from", new Date(`${params.from}T00:00:00`).toISOString());
  if (params.to) query.set("to", new Date(`${params.to}T23:59:59.999`).toISOString());
  return query;
}

export function useActivity(params: ActivityParams) {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.audit(tenant, params),
    queryFn: () => {
      const query = auditFilterQuery(params);
      query.set("page", String(params.page));
      query.set("per_page", String(params.perPage));
      return api<AuditEntry[]>(`/api/audit?${query}`);
    },
    placeholderData: keepPreviousData,
  });
}
