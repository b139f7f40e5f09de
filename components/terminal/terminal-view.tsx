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

const fontSizeKey = "terminal-font-size";
const fontSizes = { min: 10, default: 14, max: 24 };
/** More lines than this in one paste ask first: a wrong clipboard runs every line as a command. */
const pasteLinesWithoutAsking = 5;

/** Whether a paste of `text` may go ahead: long ones are confirmed by the person first. */
function mayPaste(text: string) {
  const lines = text.split(/\r\n|\r|\n/).filter((line, index, all) => line !== "" || index < all.length - 1).length;
  return lines <= pasteLinesWithoutAsking || window.confirm(`Paste ${lines} lines into the terminal?`);
}

/**
 * One xterm on one WebSocket of `/ws/ssh` (the binary subprotocol): bytes both ways, a resize
 * message whenever the element changes size. Ctrl+Shift+C / V copy and paste (more than 5 lines
 * ask first); Ctrl + = / - / 0 change the font size; Tab stays in the terminal, Escape twice
 * quickly moves focus out of it (no keyboard trap). `screenReader` turns on xterm's screen reader
 * mode, which mirrors the output into the accessibility tree.
 */
export function TerminalView({
  id,
  token,
  onOpen,
  onEnd,
  screenReader,
}: {
  id: string;
  token: string;
  screenReader: boolean;
  onOpen: () => void;
  onEnd: (end: TerminalEnd) => void;
}) {
  const host = useRef<HTMLDivElement>(null);
  const xterm = useRef<Terminal | null>(null);
  const callbacks = useRef({ onOpen, onEnd });
  callbacks.current = { onOpen, onEnd };

  useEffect(() => {
    const element = host.current;
    if (!element) return;
    const terminal = new Terminal({
      cursorBlink: true,
      fontFamily: 'ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace',
      fontSize: Number(localStorage.getItem(fontSizeKey)) || fontSizes.default,
      theme: darkTheme,
      screenReaderMode: false,
    });
    xterm.current = terminal;
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
        void navigator.clipboard.readText().then((text) => mayPaste(text) && terminal.paste(text));
        return false;
      }
      if (event.ctrlKey && !event.shiftKey && ["Equal", "Minus", "Digit0"].includes(event.code)) {
        const size = terminal.options.fontSize ?? fontSizes.default;
        const next = event.code === "Digit0" ? fontSizes.default : size + (event.code === "Equal" ? 1 : -1);
        terminal.options.fontSize = Math.min(fontSizes.max, Math.max(fontSizes.min, next));
        localStorage.setItem(fontSizeKey, String(terminal.options.fontSize));
        fit.fit();
        event.preventDefault();
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

    // The browser's own paste (menu, Ctrl+V) is caught before xterm's handler on the textarea.
    const onPaste = (event: ClipboardEvent) => {
      const text = event.clipboardData?.getData("text/plain") ?? "";
      if (mayPaste(text)) return;
      event.preventDefault();
      event.stopPropagation();
    };
    element.addEventListener("paste", onPaste, { capture: true });

    const observer = new ResizeObserver(() => fit.fit());
    observer.observe(element);
    const hideText = exposeTerminalText(id, terminal);
    return () => {
      hideText();
      element.removeEventListener("paste", onPaste, { capture: true });
      xterm.current = null;
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      socket.onclose = null;
      socket.close();
      terminal.dispose();
    };
  }, [id, token]);

  useEffect(() => {
    if (xterm.current) xterm.current.options.screenReaderMode = screenReader;
  }, [screenReader]);

  return <div ref={host} className="h-full min-h-0 w-full overflow-hidden bg-[#0b1020] p-1.5" />;
}
