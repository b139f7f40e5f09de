"use client";

import { useSyncExternalStore } from "react";

// One clock for every relative time on the page, ticking every 30 s (not one timer per row).
let now = Date.now();
const subscribers = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(callback: () => void) {
  subscribers.add(callback);
  timer ??= setInterval(() => {
    now = Date.now();
    for (const subscriber of subscribers) subscriber();
  }, 30_000);
  return () => {
    subscribers.delete(callback);
    if (subscribers.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

export const useNow = () =>
  useSyncExternalStore(
    subscribe,
    () => now,
    () => now,
  );

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ["year", 365 * 86_400],
  ["month", 30 * 86_400],
  ["day", 86_400],
  ["hour", 3_600],
  ["minute", 60],
];
const format = new Intl.RelativeTimeFormat("en", { numeric: "auto", style: "short" });

export function relativeTime(date: Date, reference: number): string {
  const seconds = Math.round((date.getTime() - reference) / 1000);
  if (Math.abs(seconds) < 60) return "just now";
  for (const [unit, size] of units) {
    if (Math.abs(seconds) >= size) return format.format(Math.trunc(seconds / size), unit);
  }
  return "just now";
}

/** "3 min ago", with the exact local time on hover and in `dateTime`. */
export function RelativeTime({ value, prefix = "" }: { value: string | Date; prefix?: string }) {
  const reference = useNow();
  const date = typeof value === "string" ? new Date(value) : value;
  if (Number.isNaN(date.getTime()) || date.getTime() <= 0) return <span>never</span>;
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {prefix}
      {relativeTime(date, reference)}
    </time>
  );
}
