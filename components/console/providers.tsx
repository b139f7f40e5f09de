"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useEffect, useState } from "react";
import { Toaster } from "sonner";
import { ApiFailure, onApiEvent } from "./api";
import { ConnectivityContext } from "./connectivity";
import { type ConsoleIdentity, ConsoleIdentityProvider } from "./context";
import { LiveUpdates } from "./live-updates";

function newQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        refetchOnWindowFocus: true,
        // Network failures and server faults are tried twice more; an answer (4xx) never.
        retry: (failures, error) => failures < 2 && (!(error instanceof ApiFailure) || error.isRetryable),
      },
      mutations: { retry: false },
    },
  });
}

/**
 * The console's client state: one query cache (cleared on sign-out and namespace switch), the
 * identity of the layout, the connectivity the API calls report, toasts and the live events.
 */
export function ConsoleProviders({ identity, children }: { identity: ConsoleIdentity; children: ReactNode }) {
  const [queryClient] = useState(newQueryClient);
  const [isReachable, setReachable] = useState(true);
  const [isLive, setLive] = useState(false);

  useEffect(
    () =>
      onApiEvent((event) => {
        if (event.kind === "unauthorized") {
          // A 401 can also be the answer itself (a wrong MFA code): only a session that is gone
          // sends the person to the login page.
          void fetch("/api/auth/user", { cache: "no-store" }).then((check) => {
            if (check.status !== 401) return;
            queryClient.clear();
            const here = `${window.location.pathname}${window.location.search}`;
            window.location.assign(`/login?next=${encodeURIComponent(here)}`);
          });
          return;
        }
        setReachable(event.kind === "reachable");
      }),
    [queryClient],
  );

  // While the service is out of reach, look for it every 5 s; the banner clears on the answer.
  useEffect(() => {
    if (isReachable) return;
    const timer = setInterval(() => {
      fetch("/api/healthcheck", { cache: "no-store" })
        .then((response) => {
          if (response.ok) {
            setReachable(true);
            void queryClient.invalidateQueries();
          }
        })
        .catch(() => {});
    }, 5_000);
    return () => clearInterval(timer);
  }, [isReachable, queryClient]);

  return (
    <QueryClientProvider client={queryClient}>
      <ConsoleIdentityProvider identity={identity}>
        <ConnectivityContext.Provider value={{ isReachable, isLive, setLive }}>
          {identity.tenant && <LiveUpdates tenant={identity.tenant} />}
          {children}
          <Toaster position="bottom-right" closeButton duration={5_000} />
        </ConnectivityContext.Provider>
      </ConsoleIdentityProvider>
    </QueryClientProvider>
  );
}
