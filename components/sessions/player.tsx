"use client";

import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { Download, Pause, Play } from "lucide-react";
import { useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useRef, useState } from "react";
import { Button, Callout, CopyButton, SearchField, Spinner, selectStyle } from "@/components/ui/controls";
import { darkTheme, exposeTerminalText } from "../terminal/terminal-view";
import { advance, type CastEvent, CastReader, clock, idleGaps, isOutput, TextIndex, type TextLine } from "./recording";

const speeds = [0.5, 1, 2, 4, 8] as const;
/** With "skip idle" on, a silence lasts at most this many seconds of the recording. */
const idleLimit = 2;
/** How often the clock and the timeline follow the play head while it moves. */
const displayEveryMs = 100;

type Loading = { state: "loading" | "complete"; until: number; events: number } | { state: "failed"; message: string };

/**
 * The recording, streamed from `GET /api/sessions/{uid}/cast` and playing as soon as its first
 * lines arrive. Space plays and pauses, ← and → move 5 s, `/` searches the whole recording.
 * `?t=SECONDS` opens it paused at that moment.
 */
export function Player({ uid }: { uid: string }) {
  const startAt = Number(useSearchParams().get("t") ?? Number.NaN);
  const host = useRef<HTMLDivElement>(null);
  const search = useRef<HTMLInputElement>(null);
  const terminal = useRef<Terminal | null>(null);
  const recording = useRef({
    events: [] as CastEvent[],
    index: new TextIndex(),
    size: { cols: 80, rows: 24 },
    applied: 0,
    position: 0,
  });
  const [loading, setLoading] = useState<Loading>({ state: "loading", until: 0, events: 0 });
  const [position, setPosition] = useState(0);
  const [isPlaying, setPlaying] = useState(false);
  const [speed, setSpeed] = useState<(typeof speeds)[number]>(1);
  const [skipsIdle, setSkipsIdle] = useState(true);
  const [query, setQuery] = useState("");
  const [hits, setHits] = useState<TextLine[]>([]);

  const duration = loading.state === "failed" ? 0 : loading.until;
  const isComplete = loading.state === "complete";

  /** Writes every event up to `target` seconds that is not on the screen yet. */
  const applyUntil = useCallback((target: number) => {
    const screen = terminal.current;
    const held = recording.current;
    if (!screen) return;
    let output = "";
    while (held.applied < held.events.length) {
      const event = held.events[held.applied] as CastEvent;
      if (event.time > target) break;
      if (isOutput(event)) output += event.text;
      else {
        if (output) screen.write(output);
        output = "";
        screen.resize(event.cols, event.rows);
      }
      held.applied += 1;
    }
    if (output) screen.write(output);
    held.position = target;
  }, []);

  /** Moves the play head; going back redraws the screen from the start. */
  const seek = useCallback(
    (target: number) => {
      const held = recording.current;
      const screen = terminal.current;
      const bounded = Math.max(0, target);
      if (screen && bounded < held.position) {
        screen.reset();
        screen.resize(held.size.cols, held.size.rows);
        held.applied = 0;
      }
      applyUntil(bounded);
      setPosition(bounded);
    },
    [applyUntil],
  );

  // The terminal, read-only, at the recording's size.
  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const screen = new Terminal({
      cols: 80,
      rows: 24,
      disableStdin: true,
      cursorBlink: false,
      fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
      fontSize: 13,
      theme: darkTheme,
      scrollback: 2000,
    });
    screen.open(element);
    screen.textarea?.setAttribute("aria-label", "Recorded terminal");
    terminal.current = screen;
    const hideText = exposeTerminalText("player", screen);
    return () => {
      hideText();
      terminal.current = null;
      screen.dispose();
    };
  }, []);

  // The recording streams in; playback starts with its first lines.
  useEffect(() => {
    const aborted = new AbortController();
    const held = recording.current;
    const reader = new CastReader();
    const decoder = new TextDecoder();
    let startsPlaying = Number.isNaN(startAt);
    (async () => {
      const response = await fetch(`/api/sessions/${encodeURIComponent(uid)}/cast`, {
        signal: aborted.signal,
        credentials: "same-origin",
      });
      if (!response.ok || !response.body) {
        const body = await response.json().catch(() => undefined);
        setLoading({
          state: "failed",
          message:
            response.status === 404
              ? "Session recording not found."
              : (body?.message ?? `The service answered ${response.status}.`),
        });
        return;
      }
      const stream = response.body.getReader();
      for (;;) {
        const { value, done } = await stream.read();
        const events = reader.push(done ? "\n" : decoder.decode(value, { stream: true }));
        if (reader.header && held.events.length === 0) {
          held.size = { cols: reader.header.width, rows: reader.header.height };
          terminal.current?.resize(held.size.cols, held.size.rows);
        }
        for (const event of events) {
          held.events.push(event);
          if (isOutput(event)) held.index.add(event.time, event.text);
        }
        const until = held.events.at(-1)?.time ?? 0;
        setLoading({ state: done ? "complete" : "loading", until, events: held.events.length });
        if (startsPlaying && held.events.length > 0) {
          startsPlaying = false;
          setPlaying(true);
        }
        if (done) return;
      }
    })().catch((error: unknown) => {
      if (!aborted.signal.aborted)
        setLoading({ state: "failed", message: `The recording could not be loaded: ${String(error)}` });
    });
    return () => aborted.abort();
  }, [uid, startAt]);

  // A deep link's moment, once the recording reaches it.
  const hasSoughtStart = useRef(false);
  useEffect(() => {
    if (hasSoughtStart.current || Number.isNaN(startAt) || loading.state === "failed") return;
    if (loading.until >= startAt || loading.state === "complete") {
      hasSoughtStart.current = true;
      seek(Math.min(startAt, loading.until));
    }
  }, [loading, startAt, seek]);

  // Playback: the play head follows the wall clock at the chosen speed.
  useEffect(() => {
    if (!isPlaying) return;
    const held = recording.current;
    let last = performance.now();
    let shown = last;
    let frame = requestAnimationFrame(function tick(now) {
      const next = held.events[held.applied]?.time;
      let target = advance(held.position, (now - last) / 1000, speed, next, skipsIdle ? idleLimit : undefined);
      last = now;
      const end = held.events.at(-1)?.time ?? 0;
      if (target >= end) target = end;
      applyUntil(target);
      if (now - shown >= displayEveryMs || target >= end) {
        shown = now;
        setPosition(target);
      }
      if (target >= end && isComplete) {
        setPlaying(false);
        return;
      }
      frame = requestAnimationFrame(tick);
    });
    return () => cancelAnimationFrame(frame);
  }, [isPlaying, speed, skipsIdle, isComplete, applyUntil]);

  const togglePlay = useCallback(() => {
    const held = recording.current;
    const end = held.events.at(-1)?.time ?? 0;
    if (!isPlaying && isComplete && held.position >= end) seek(0);
    setPlaying(!isPlaying);
  }, [isPlaying, isComplete, seek]);

  // Keys, except while typing in a field.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const target = event.target as HTMLElement | null;
      if (target?.closest("input, textarea, select, button, [contenteditable]")) return;
      if (event.key === " ") {
        event.preventDefault();
        togglePlay();
      } else if (event.key === "ArrowRight" || event.key === "ArrowLeft") {
        event.preventDefault();
        seek(recording.current.position + (event.key === "ArrowRight" ? 5 : -5));
      } else if (event.key === "/") {
        event.preventDefault();
        search.current?.focus();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [togglePlay, seek]);

  // Hits are looked up again as more of the recording arrives.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the index grows with loading.events
  useEffect(
    () => setHits(recording.current.index.search(query)),
    [query, loading.state === "failed" ? 0 : loading.events],
  );

  // biome-ignore lint/correctness/useExhaustiveDependencies: the events grow with loading.events
  const gaps = useMemo(
    () => idleGaps(recording.current.events, idleLimit),
    [loading.state === "failed" ? 0 : loading.events],
  );

  if (loading.state === "failed") return <Callout kind="error">{loading.message}</Callout>;

  const share =
    typeof window === "undefined" ? "" : `${window.location.origin}/sessions/${uid}?t=${Math.floor(position)}`;
  const percent = (seconds: number) => (duration > 0 ? (seconds / duration) * 100 : 0);

  return (
    <div className="grid gap-3">
      <div className="overflow-x-auto rounded-lg bg-[#0b1020] p-2">
        <div ref={host} className="w-max" />
      </div>
      <div className="grid gap-1">
        <div className="relative h-2" aria-hidden>
          {gaps.map((gap) => (
            <span
              key={gap.from}
              title={`Idle ${clock(gap.to - gap.from)}`}
              className="absolute top-0 h-2 rounded-sm bg-slate-300 dark:bg-slate-700"
              style={{ left: `${percent(gap.from)}%`, width: `${percent(gap.to - gap.from)}%` }}
            />
          ))}
          {hits.map((hit, order) => (
            <span
              // biome-ignore lint/suspicious/noArrayIndexKey: hits are only ever replaced whole
              key={order}
              className="absolute top-0 h-2 w-0.5 bg-amber-500"
              style={{ left: `${percent(hit.time)}%` }}
            />
          ))}
        </div>
        <input
          type="range"
          aria-label="Playback position"
          aria-valuetext={`${clock(position)} of ${clock(duration)}`}
          min={0}
          max={Math.max(duration, 0.1)}
          step={0.1}
          value={Math.min(position, duration)}
          onChange={(event) => seek(Number(event.target.value))}
          className="w-full accent-indigo-600"
        />
      </div>
      <div className="flex flex-wrap items-center gap-2">
        <Button onClick={togglePlay} aria-label={isPlaying ? "Pause" : "Play"}>
          {isPlaying ? <Pause aria-hidden className="size-4" /> : <Play aria-hidden className="size-4" />}
          {isPlaying ? "Pause" : "Play"}
        </Button>
        <span className="font-mono text-sm tabular-nums" aria-live="off">
          {clock(position)} / {clock(duration)}
        </span>
        {!isComplete && <Spinner label="Loading the recording" />}
        <label className="ml-auto flex items-center gap-2 text-sm">
          Speed
          <select
            className={selectStyle}
            value={speed}
            onChange={(event) => setSpeed(Number(event.target.value) as (typeof speeds)[number])}
          >
            {speeds.map((choice) => (
              <option key={choice} value={choice}>
                {choice}×
              </option>
            ))}
          </select>
        </label>
        <label className="flex items-center gap-2 text-sm">
          <input type="checkbox" checked={skipsIdle} onChange={(event) => setSkipsIdle(event.target.checked)} />
          Skip idle time
        </label>
      </div>
      <div className="flex flex-wrap items-center gap-2 text-sm">
        <a
          href={`/api/sessions/${encodeURIComponent(uid)}/cast`}
          download
          className="inline-flex items-center gap-1.5 rounded-md px-2.5 py-1.5 font-medium text-indigo-700 ring-1 ring-slate-300 ring-inset hover:bg-slate-50 dark:text-indigo-300 dark:ring-slate-600 dark:hover:bg-slate-800"
        >
          <Download aria-hidden className="size-4" /> Download .cast
        </a>
        <span className="inline-flex items-center gap-1 text-slate-600 dark:text-slate-400">
          Link at {clock(position)}
          <CopyButton text={share} label="Copy a link to this moment" />
        </span>
      </div>
      <div className="grid gap-2">
        <SearchField
          ref={search}
          label="Search the recording"
          placeholder="Search the whole recording ( / )"
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          className="max-w-md"
        />
        {query.trim() && (
          <p className="text-sm text-slate-600 dark:text-slate-400" aria-live="polite">
            {hits.length === 0 ? "No matches" : `${hits.length}${hits.length >= 200 ? "+" : ""} matches`}
            {isComplete ? "" : " so far"}
          </p>
        )}
        {hits.length > 0 && (
          <ol aria-label="Matches" className="grid max-h-56 gap-0.5 overflow-y-auto">
            {hits.map((hit, order) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: hits are only ever replaced whole
              <li key={order}>
                <button
                  type="button"
                  onClick={() => {
                    setPlaying(false);
                    seek(hit.time);
                  }}
                  className="flex w-full gap-3 rounded px-2 py-1 text-left text-sm hover:bg-slate-100 dark:hover:bg-slate-800"
                >
                  <span className="font-mono text-xs tabular-nums text-slate-600 dark:text-slate-400">
                    {clock(hit.time)}
                  </span>
                  <span className="truncate font-mono text-xs">{hit.text}</span>
                </button>
              </li>
            ))}
          </ol>
        )}
      </div>
    </div>
  );
}
