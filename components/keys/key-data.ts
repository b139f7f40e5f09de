"use client";

import { useQuery, useQueryClient } from "@tanstack/react-query";
import type { z } from "zod";
import type { publicKeyObject } from "@/lib/schemas/public-keys";
import { api } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";

export type PublicKey = z.infer<typeof publicKeyObject>;

export const keysPath = "/api/sshkeys/public-keys";
export const keyPath = (fingerprint: string) => `${keysPath}/${encodeURIComponent(fingerprint)}`;

/** The namespace's keys, newest first (the first 100: more is not a number a namespace keeps). */
export function usePublicKeys() {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.publicKeys(tenant),
    queryFn: () => api<PublicKey[]>(`${keysPath}?per_page=100`),
  });
}

/** The keys, and the tags their filters add to the namespace's, after a change. */
export function useInvalidateKeys() {
  const queryClient = useQueryClient();
  const { tenant } = useConsole();
  return () => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.publicKeys(tenant) });
    void queryClient.invalidateQueries({ queryKey: queryKeys.tags(tenant) });
  };
}
