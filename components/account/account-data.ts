"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import type { currentUser } from "@/lib/schemas/users";
import { ApiFailure, api } from "../console/api";
import { queryKeys } from "../console/query-keys";

export type CurrentUser = z.infer<typeof currentUser>;

/** The signed-in user as the API sees it now (MFA on or off, the recovery e-mail). */
export function useCurrentUser() {
  return useQuery({ queryKey: queryKeys.currentUser(), queryFn: () => api<CurrentUser>("/api/auth/user") });
}

export function useRefreshCurrentUser() {
  const queryClient = useQueryClient();
  return () => queryClient.invalidateQueries({ queryKey: queryKeys.currentUser() });
}

/**
 * The account routes answer a refused field with its name only (ShellHub's format: an array of
 * names, 400 for a rule, 409 for a value taken); each becomes the message for that field.
 */
export function accountFieldErrors(
  failure: unknown,
  rules: Record<string, string>,
): Record<string, string | undefined> | undefined {
  if (!(failure instanceof ApiFailure) || !Array.isArray(failure.body)) return undefined;
  const errors: Record<string, string | undefined> = {};
  for (const field of failure.body) {
    if (typeof field !== "string") continue;
    errors[field] = failure.status === 409 ? "Already taken by another account." : (rules[field] ?? "Not accepted.");
  }
  return errors;
}
