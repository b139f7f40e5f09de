"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import Link from "next/link";
import { useEffect, useState } from "react";
import type { z } from "zod";
import { Button, Card } from "@/components/ui/controls";
import { Dialog } from "@/components/ui/dialog";
import { LoadFailure } from "@/components/ui/list-states";
import { Pagination } from "@/components/ui/pagination";
import type { announcementObject } from "@/lib/schemas/announcements";
import { api, failureText } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";

type Announcement = z.infer<typeof announcementObject>;

// The Markdown renderer loads only when an announcement is shown.
const Markdown = dynamic(() => import("@/components/ui/markdown").then((module) => module.Markdown), {
  loading: () => <p className="text-sm text-slate-500">Loading…</p>,
});

function useAnnouncements(page: number, perPage: number) {
  return useQuery({
    queryKey: queryKeys.announcements(page, perPage),
    queryFn: () => api<Announcement[]>(`/api/announcements/entries?page=${page}&per_page=${perPage}`),
    placeholderData: keepPreviousData,
  });
}

/** Which announcement this user last saw, per user: another person in the same browser still sees it. */
const seenKey = (userId: string) => `announcement-seen:${userId}`;

const dateText = (date: string) => new Date(date).toLocaleDateString(undefined, { dateStyle: "long" });

/** The newest announcement, once, for each user who has not seen it (cloud edition). */
export function AnnouncementModal() {
  const { user, edition } = useConsole();
  const latest = useAnnouncements(1, 1);
  const newest = edition === "cloud" ? latest.data?.data[0] : undefined;
  const [seen, setSeen] = useState<string | null | undefined>(undefined);
  useEffect(() => setSeen(localStorage.getItem(seenKey(user.id))), [user.id]);
  if (!newest || seen === undefined || seen === newest.uuid) return null;
  const dismiss = () => {
    localStorage.setItem(seenKey(user.id), newest.uuid);
    setSeen(newest.uuid);
  };
  return (
    <Dialog isOpen onClose={dismiss} title={newest.title} description={dateText(newest.date)}>
      <div className="max-h-[60vh] overflow-y-auto">
        <Markdown text={newest.content} />
      </div>
      <div className="flex items-center justify-between gap-2">
        <Link
          href="/announcements"
          onClick={dismiss}
          className="text-sm font-medium text-indigo-700 underline dark:text-indigo-300"
        >
          All announcements
        </Link>
        <Button onClick={dismiss}>Got it</Button>
      </div>
    </Dialog>
  );
}

const perPage = 10;

/** Every announcement, newest first. */
export function AnnouncementsPage() {
  const [page, setPage] = useState(1);
  const list = useAnnouncements(page, perPage);
  const announcements = list.data?.data ?? [];
  return (
    <div className="grid gap-5">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">Announcements</h1>
        <p className="text-sm text-slate-600 dark:text-slate-400">News about the service, newest first.</p>
      </div>
      {list.isError ? (
        <LoadFailure
          message={`The announcements could not be loaded. ${failureText(list.error)}`}
          onRetry={() => list.refetch()}
        />
      ) : list.isPending ? (
        <p role="status">Loading the announcements…</p>
      ) : announcements.length === 0 ? (
        <p className="rounded-lg border border-dashed border-slate-300 px-6 py-10 text-center text-sm dark:border-slate-700">
          No announcements yet.
        </p>
      ) : (
        <>
          {announcements.map((announcement) => (
            <Card key={announcement.uuid} className="grid gap-3 p-5">
              <article aria-labelledby={`announcement-${announcement.uuid}`} className="grid gap-3">
                <header>
                  <h2 id={`announcement-${announcement.uuid}`} className="text-base font-semibold">
                    {announcement.title}
                  </h2>
                  <time dateTime={announcement.date} className="text-xs text-slate-600 dark:text-slate-400">
                    {dateText(announcement.date)}
                  </time>
                </header>
                <Markdown text={announcement.content} />
              </article>
            </Card>
          ))}
          <Pagination page={page} perPage={perPage} total={list.data?.total ?? announcements.length} onPage={setPage} />
        </>
      )}
    </div>
  );
}
