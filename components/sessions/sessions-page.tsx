"use client";

import { X } from "lucide-react";
import Link from "next/link";
import { Button, Card, selectStyle, TextFilter } from "@/components/ui/controls";
import { LoadFailure, LoadingRows } from "@/components/ui/list-states";
import { Pagination } from "@/components/ui/pagination";
import { failureText } from "../console/api";
import { useDevice } from "../devices/device-data";
import {
  defaultSessionParams,
  isSessionFilterSet,
  type SessionListParams,
  useSessionList,
  useSessionListParams,
} from "./session-data";
import { SessionTable } from "./session-table";

function LoadState({ query, what }: { query: ReturnType<typeof useSessionList>; what: string }) {
  if (query.isError)
    return (
      <LoadFailure
        message={`The ${what} could not be loaded. ${failureText(query.error)}`}
        onRetry={() => query.refetch()}
      />
    );
  return <LoadingRows label={`Loading ${what}`} />;
}

/** Who is connected right now, live: the sessions that have not ended. */
function ActiveSessions() {
  const active = useSessionList({ ...defaultSessionParams, perPage: 100, active: true });
  const sessions = active.data?.data ?? [];
  return (
    <section aria-labelledby="active-sessions" className="grid gap-3">
      <h2 id="active-sessions" className="text-base font-semibold">
        Active now{active.data ? ` (${(active.data.total ?? sessions.length).toLocaleString()})` : ""}
      </h2>
      {active.isPending || active.isError ? (
        <LoadState query={active} what="active sessions" />
      ) : sessions.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-600 dark:border-slate-700 dark:text-slate-400">
          No one is connected right now.
        </p>
      ) : (
        <SessionTable sessions={sessions} label="Active sessions" />
      )}
    </section>
  );
}

function DeviceChip({ uid, onClear }: { uid: string; onClear: () => void }) {
  const device = useDevice(uid);
  return (
    <button
      type="button"
      onClick={onClear}
      className="inline-flex items-center gap-1 rounded-full bg-indigo-50 py-1 pr-1.5 pl-2.5 text-xs font-medium text-indigo-800 ring-1 ring-indigo-200 hover:bg-indigo-100 dark:bg-indigo-950 dark:text-indigo-200 dark:ring-indigo-800"
    >
      Device: {device.data?.data.name ?? `${uid.slice(0, 8)}…`}
      <X aria-hidden className="size-3.5" />
      <span className="sr-only">: remove this filter</span>
    </button>
  );
}

/** Every session, newest first, with its filters and page in the URL. */
function SessionHistory() {
  const [params, update] = useSessionListParams();
  const history = useSessionList(params);
  const sessions = history.data?.data ?? [];
  const isFiltered = isSessionFilterSet(params);
  const clear = () => update({ ...defaultSessionParams, perPage: params.perPage });
  return (
    <section aria-labelledby="session-history" className="grid gap-3">
      <h2 id="session-history" className="text-base font-semibold">
        All sessions
      </h2>
      <div className="flex flex-wrap items-center gap-2">
        <TextFilter
          label="Filter by login"
          placeholder="Login, e.g. root"
          value={params.login}
          onChange={(login) => update({ login })}
          className="w-44"
        />
        <select
          aria-label="Filter by authentication"
          className={selectStyle}
          value={params.authenticated}
          onChange={(event) => update({ authenticated: event.target.value as SessionListParams["authenticated"] })}
        >
          <option value="any">Any login outcome</option>
          <option value="yes">Logged in</option>
          <option value="no">Failed logins</option>
        </select>
        <select
          aria-label="Filter by recording"
          className={selectStyle}
          value={params.recorded}
          onChange={(event) => update({ recorded: event.target.value as SessionListParams["recorded"] })}
        >
          <option value="any">Recorded or not</option>
          <option value="yes">Recorded</option>
        </select>
        {params.device && <DeviceChip uid={params.device} onClear={() => update({ device: "" })} />}
        {isFiltered && (
          <Button variant="ghost" size="sm" onClick={clear}>
            Clear filters
          </Button>
        )}
      </div>
      {history.isPending || history.isError ? (
        <LoadState query={history} what="sessions" />
      ) : sessions.length === 0 ? (
        <div className="rounded-lg border border-dashed border-slate-300 px-6 py-10 text-center dark:border-slate-700">
          <p className="font-medium">{isFiltered ? "No sessions match these filters." : "No sessions yet."}</p>
          {isFiltered ? (
            <Button className="mt-3" variant="secondary" onClick={clear}>
              Clear filters
            </Button>
          ) : (
            <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">
              Every SSH connection to a device of this namespace appears here.{" "}
              <Link href="/devices" className="font-medium text-indigo-700 underline dark:text-indigo-300">
                Connect to a device
              </Link>
            </p>
          )}
        </div>
      ) : (
        <>
          <SessionTable sessions={sessions} label="Sessions" />
          <Pagination
            page={params.page}
            perPage={params.perPage}
            total={history.data?.total ?? sessions.length}
            onPage={(page) => update({ page })}
            onPerPage={(perPage) => update({ perPage })}
          />
        </>
      )}
    </section>
  );
}

export function SessionsPage() {
  return (
    <div className="grid gap-6">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Sessions</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">
          SSH connections to the namespace's devices, live ones first.
        </p>
      </div>
      <Card className="p-4">
        <ActiveSessions />
      </Card>
      <SessionHistory />
    </div>
  );
}
