"use client";

import { Accessibility, Maximize2, Minimize2, Minus, RotateCw, TerminalSquare, X } from "lucide-react";
import dynamic from "next/dynamic";
import { createContext, type FormEvent, type ReactNode, useCallback, useContext, useEffect, useState } from "react";
import { Button, Callout, TextField } from "@/components/ui/controls";
import { api, failureText, json } from "../console/api";
import { KeyProblem, readPrivateKey } from "./private-key";
import type { TerminalEnd } from "./terminal-view";

// xterm touches `window` when loaded: the view is loaded in the browser only.
/** The screen reader mode is a person's setting: it stays on for every terminal they open. */
const screenReaderKey = "terminal-screen-reader";

const TerminalView = dynamic(() => import("./terminal-view").then((module) => module.TerminalView), { ssr: false });

type DeviceRef = { uid: string; name: string; namespace: string };
type Phase =
  | { kind: "login"; error?: string }
  | { kind: "connecting"; token: string; user: string }
  | { kind: "open"; token: string; user: string }
  | { kind: "ended"; message: string; isRefusal: boolean };
type TerminalTab = { id: string; device: DeviceRef; phase: Phase };

type Terminals = { open: (device: DeviceRef) => void };
const TerminalsContext = createContext<Terminals>({ open: () => {} });
export const useTerminals = () => useContext(TerminalsContext);

const lastUserKey = (uid: string) => `last-login:${uid}`;

/** Plain words for how a terminal ended (a refusal carries the server's reason). */
function endMessage(end: TerminalEnd): { message: string; isRefusal: boolean } {
  if (end.code === 4401)
    return { message: `The login was refused: ${end.reason || "authentication failed"}.`, isRefusal: true };
  if (!end.wasOpen)
    return { message: "The terminal could not be opened: the service refused the connection.", isRefusal: true };
  if (end.reason === "shell ended") return { message: "The shell ended.", isRefusal: false };
  if (end.reason === "session closed") return { message: "The session was closed.", isRefusal: false };
  return { message: "Disconnected.", isRefusal: false };
}

type Method = "password" | "key";

/** The body of `POST /ws/ssh` for the chosen method: a key signs in the browser and never leaves it. */
async function credentialOf(method: Method, form: FormData, user: string) {
  if (method === "password") return { password: String(form.get("password") ?? "") };
  const file = form.get("key-file");
  const pasted = String(form.get("private-key") ?? "");
  const text = file instanceof File && file.size > 0 ? await file.text() : pasted;
  const signer = await readPrivateKey(text);
  return { fingerprint: signer.fingerprint, signature: await signer.sign(user) };
}

function LoginForm({ tab, onToken }: { tab: TerminalTab; onToken: (token: string, user: string) => void }) {
  const [isSending, setSending] = useState(false);
  const error = tab.phase.kind === "login" ? tab.phase.error : undefined;
  const [failure, setFailure] = useState<string>();
  const [user, setUser] = useState("root");
  const [method, setMethod] = useState<Method>("password");
  useEffect(() => setUser(localStorage.getItem(lastUserKey(tab.device.uid)) ?? "root"), [tab.device.uid]);

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setSending(true);
    setFailure(undefined);
    try {
      const credential = await credentialOf(method, form, user);
      const answer = await api<{ token: string }>("/ws/ssh", {
        method: "POST",
        body: json({ device: tab.device.uid, username: user, ...credential }),
      });
      localStorage.setItem(lastUserKey(tab.device.uid), user);
      onToken(answer.data.token, user);
    } catch (caught) {
      setFailure(caught instanceof KeyProblem ? caught.message : failureText(caught));
    } finally {
      setSending(false);
    }
  }

  return (
    <form onSubmit={submit} className="mx-auto grid w-full max-w-md gap-4 p-6">
      <p className="text-sm text-slate-700 dark:text-slate-300">
        Log in to <span className="font-semibold">{tab.device.name}</span> as a user of the device.
      </p>
      {(failure || error) && <Callout kind="error">{failure ?? error}</Callout>}
      <TextField
        label="User on the device"
        name="username"
        value={user}
        onChange={(event) => setUser(event.target.value)}
        autoComplete="off"
        required
      />
      <fieldset className="flex gap-4 text-sm">
        <legend className="sr-only">Log in with</legend>
        {(["password", "key"] as const).map((choice) => (
          <label key={choice} className="flex items-center gap-1.5">
            <input type="radio" name="method" checked={method === choice} onChange={() => setMethod(choice)} />
            {choice === "password" ? "Password" : "Private key"}
          </label>
        ))}
      </fieldset>
      {method === "password" ? (
        <TextField label="Password" name="password" type="password" autoComplete="off" autoFocus required />
      ) : (
        <div className="grid gap-2">
          <label htmlFor={`${tab.id}-key`} className="text-sm font-medium">
            Private key
          </label>
          <textarea
            id={`${tab.id}-key`}
            name="private-key"
            rows={4}
            spellCheck={false}
            placeholder="-----BEGIN OPENSSH PRIVATE KEY-----"
            aria-describedby={`${tab.id}-key-hint`}
            className="rounded-md bg-white px-3 py-2 font-mono text-xs outline-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
          />
          <input type="file" name="key-file" aria-label="Or load the key from a file" className="text-sm" />
          <p id={`${tab.id}-key-hint`} className="text-xs text-slate-600 dark:text-slate-400">
            The key stays in this browser: it signs the login here, and only its fingerprint and the signature are sent.
            The public key must be one of the namespace&apos;s keys.
          </p>
        </div>
      )}
      <Button type="submit" isPending={isSending}>
        Connect
      </Button>
    </form>
  );
}

/**
 * The console's terminals: a dock at the bottom of every page (full screen on a phone) that stays
 * connected while the person moves between pages. Leaving the console with one open asks first.
 */
export function TerminalsProvider({ children }: { children: ReactNode }) {
  const [tabs, setTabs] = useState<TerminalTab[]>([]);
  const [screenReader, setScreenReader] = useState(false);
  useEffect(() => setScreenReader(localStorage.getItem(screenReaderKey) === "on"), []);
  const toggleScreenReader = () => {
    localStorage.setItem(screenReaderKey, screenReader ? "off" : "on");
    setScreenReader(!screenReader);
  };
  const [activeId, setActiveId] = useState<string>();
  const [size, setSize] = useState<"normal" | "max" | "min">("normal");

  const open = useCallback((device: DeviceRef) => {
    const id = `${device.uid.slice(0, 8)}-${Date.now().toString(36)}`;
    setTabs((current) => [...current, { id, device, phase: { kind: "login" } }]);
    setActiveId(id);
    setSize("normal");
  }, []);
  const setPhase = (id: string, phase: Phase) =>
    setTabs((current) => current.map((tab) => (tab.id === id ? { ...tab, phase } : tab)));
  const close = (id: string) => {
    setTabs((current) => {
      const rest = current.filter((tab) => tab.id !== id);
      if (activeId === id) setActiveId(rest.at(-1)?.id);
      return rest;
    });
  };

  const isAnyOpen = tabs.some((tab) => tab.phase.kind === "open" || tab.phase.kind === "connecting");
  useEffect(() => {
    if (!isAnyOpen) return;
    const warn = (event: BeforeUnloadEvent) => event.preventDefault();
    window.addEventListener("beforeunload", warn);
    return () => window.removeEventListener("beforeunload", warn);
  }, [isAnyOpen]);

  const active = tabs.find((tab) => tab.id === activeId);
  const height = size === "max" ? "sm:h-[calc(100vh-4rem)]" : size === "min" ? "sm:h-auto" : "sm:h-[45vh]";

  return (
    <TerminalsContext.Provider value={{ open }}>
      {children}
      {tabs.length > 0 && (
        <section
          data-terminal-dock
          aria-label="Terminals"
          className={`fixed inset-0 z-40 flex flex-col border-t border-slate-300 bg-white shadow-2xl sm:inset-auto sm:right-0 sm:bottom-0 sm:left-0 lg:left-60 dark:border-slate-700 dark:bg-slate-900 ${height}`}
        >
          <div className="flex items-center gap-1 border-b border-slate-200 px-2 py-1 dark:border-slate-700">
            <div role="tablist" aria-label="Open terminals" className="flex min-w-0 flex-1 gap-1 overflow-x-auto">
              {tabs.map((tab) => (
                <button
                  key={tab.id}
                  type="button"
                  role="tab"
                  aria-selected={tab.id === activeId}
                  onClick={() => {
                    setActiveId(tab.id);
                    if (size === "min") setSize("normal");
                  }}
                  className={`inline-flex items-center gap-1.5 rounded-md px-2.5 py-1 text-sm whitespace-nowrap ${
                    tab.id === activeId
                      ? "bg-slate-100 font-medium dark:bg-slate-800"
                      : "text-slate-600 dark:text-slate-400"
                  }`}
                >
                  <TerminalSquare aria-hidden className="size-4" />
                  {"user" in tab.phase ? `${tab.phase.user}@${tab.device.name}` : tab.device.name}
                  {tab.phase.kind === "open" && <span className="sr-only"> (connected)</span>}
                </button>
              ))}
            </div>
            <Button
              variant="ghost"
              size="sm"
              aria-label="Screen reader mode"
              aria-pressed={screenReader}
              title="Screen reader mode: the output is read out"
              onClick={toggleScreenReader}
              className={screenReader ? "bg-indigo-100 dark:bg-indigo-900" : ""}
            >
              <Accessibility aria-hidden className="size-4" />
            </Button>
            <Button
              variant="ghost"
              size="sm"
              aria-label={size === "min" ? "Restore terminals" : "Minimize terminals"}
              onClick={() => setSize(size === "min" ? "normal" : "min")}
            >
              <Minus aria-hidden className="size-4" />
            </Button>
            <Button
              variant="ghost"
              size="sm"
              aria-label={size === "max" ? "Restore size" : "Maximize"}
              onClick={() => setSize(size === "max" ? "normal" : "max")}
            >
              {size === "max" ? (
                <Minimize2 aria-hidden className="size-4" />
              ) : (
                <Maximize2 aria-hidden className="size-4" />
              )}
            </Button>
            {active && (
              <Button
                variant="ghost"
                size="sm"
                aria-label={`Close the terminal of ${active.device.name}`}
                onClick={() => close(active.id)}
              >
                <X aria-hidden className="size-4" />
              </Button>
            )}
          </div>
          {tabs.map((tab) => (
            <div
              key={tab.id}
              role="tabpanel"
              hidden={tab.id !== activeId || size === "min"}
              className="min-h-0 flex-1 overflow-auto"
            >
              {tab.phase.kind === "login" && (
                <LoginForm tab={tab} onToken={(token, user) => setPhase(tab.id, { kind: "connecting", token, user })} />
              )}
              {(tab.phase.kind === "connecting" || tab.phase.kind === "open") && (
                <TerminalView
                  id={tab.id}
                  token={tab.phase.token}
                  screenReader={screenReader}
                  onOpen={() => {
                    const { phase } = tab;
                    if (phase.kind === "connecting") setPhase(tab.id, { ...phase, kind: "open" });
                  }}
                  onEnd={(end) => setPhase(tab.id, { kind: "ended", ...endMessage(end) })}
                />
              )}
              {tab.phase.kind === "ended" && (
                <div className="mx-auto grid max-w-md justify-items-start gap-3 p-6" role="status">
                  <p className="text-sm">{tab.phase.message}</p>
                  <Button variant="secondary" onClick={() => setPhase(tab.id, { kind: "login" })}>
                    <RotateCw aria-hidden className="size-4" /> Reconnect
                  </Button>
                </div>
              )}
            </div>
          ))}
        </section>
      )}
    </TerminalsContext.Provider>
  );
}
