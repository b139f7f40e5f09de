"use client";

import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { useEffect, useRef } from "react";

export type TerminalEnd = { code: number; reason: string; wasOpen: boolean };

declare global {
  interface Window {
    /** The open terminals' text, for the browser tests: xterm draws on a canvas. */
    __terminals?: Record<string, () => string>;
  }
}

/** Lets the browser tests read `terminal`'s text under `id`; returns the function that stops it. */
export function exposeTerminalText(id: string, terminal: Terminal) {
  window.__terminals ??= {};
  window.__terminals[id] = () => {
    const buffer = terminal.buffer.active;
    const lines: string[] = [];
    for (let index = 0; index < buffer.length; index += 1)
      lines.push(buffer.getLine(index)?.translateToString(true) ?? "");
    return lines.join("\n");
  };
  return () => {
    delete window.__terminals?.[id];
  };
}

export const darkTheme = {
  background: "#0b1020",
  foreground: "#e2e8f0",
  cursor: "#a5b4fc",
  selectionBackground: "#334155",
};

/**
 * One xterm on one WebSocket of `/ws/ssh` (the binary subprotocol): bytes both ways, a resize
 * message whenever the element changes size. Ctrl+Shift+C / V copy and paste; Tab stays in the
 * terminal, Escape twice quickly moves focus out of it (no keyboard trap).
 */
export function TerminalView({
  id,
  token,
  onOpen,
  onEnd,
}: {
  id: string;
  token: string;
  onOpen: () => void;
  onEnd: (end: TerminalEnd) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const callbacks = useRef({ onOpen, onEnd });
  callbacks.current = { onOpen, onEnd };

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const terminal = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
      fontSize: 14,
      theme: darkTheme,
      screenReaderMode: false,
    });
    const fit = new FitAddon();
    terminal.loadAddon(fit);
    terminal.open(element);
    fit.fit();
    terminal.textarea?.setAttribute("aria-label", "Terminal input");

    const url = new URL("/ws/ssh", window.location.href);
    url.protocol = url.protocol === "https:" ? "wss:" : "ws:";
    url.search = new URLSearchParams({ token, cols: String(terminal.cols), rows: String(terminal.rows) }).toString();
    const socket = new WebSocket(url, ["binary"]);
    socket.binaryType = "arraybuffer";
    let wasOpen = false;
    const encoder = new TextEncoder();
    socket.onopen = () => {
      wasOpen = true;
      terminal.focus();
      callbacks.current.onOpen();
    };
    socket.onmessage = (message) =>
      terminal.write(typeof message.data === "string" ? message.data : new Uint8Array(message.data));
    socket.onclose = (event) => callbacks.current.onEnd({ code: event.code, reason: event.reason, wasOpen });
    const typed = terminal.onData((data) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(encoder.encode(data));
    });
    const resized = terminal.onResize(({ cols, rows }) => {
      if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify({ type: "resize", cols, rows }));
    });

    let lastEscape = 0;
    terminal.attachCustomKeyEventHandler((event) => {
      if (event.type !== "keydown") return true;
      if (event.ctrlKey && event.shiftKey && event.code === "KeyC") {
        void navigator.clipboard.writeText(terminal.getSelection());
        return false;
      }
      if (event.ctrlKey && event.shiftKey && event.code === "KeyV") {
        void navigator.clipboard.readText().then((text) => terminal.paste(text));
        return false;
      }
      if (event.key === "Escape") {
        const now = Date.now();
        if (now - lastEscape < 500) {
          terminal.blur();
          (element.closest("[data-terminal-dock]")?.querySelector("button") as HTMLElement | null)?.focus();
          return false;
        }
        lastEscape = now;
      }
      return true;
    });

    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    const hideText = exposeTerminalText(id, terminal);
    return () => {
      hideText();
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      socket.onclose = null;
      socket.close();
      terminal.dispose();
    };
  }, [id, token]);

  return <div ref={host} className="h-full min-h-0 w-full overflow-hidden bg-[#0b1020] p-1.5" />;
}
