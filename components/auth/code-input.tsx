"use client";

import { type ClipboardEvent, type KeyboardEvent, useRef, useState } from "react";

const length = 6;

/**
 * Six digit boxes that behave as one field: typing moves on, Backspace moves back, a pasted
 * code fills every box. `onComplete` fires on the sixth digit (the form submits itself).
 */
export function CodeInput({ name, onComplete, invalid }: { name: string; onComplete: () => void; invalid?: boolean }) {
  const [digits, setDigits] = useState<string[]>(() => Array(length).fill(""));
  const boxes = useRef<(HTMLInputElement | null)[]>([]);

  function fill(start: number, typed: string) {
    const incoming = typed
      .replace(/\D/g, "")
      .slice(0, length - start)
      .split("");
    if (incoming.length === 0) return;
    const next = [...digits];
    incoming.forEach((digit, offset) => {
      next[start + offset] = digit;
    });
    setDigits(next);
    boxes.current[Math.min(start + incoming.length, length - 1)]?.focus();
    if (next.every(Boolean)) queueMicrotask(onComplete);
  }

  function onKeyDown(index: number, event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Backspace" && !digits[index] && index > 0) {
      const next = [...digits];
      next[index - 1] = "";
      setDigits(next);
      boxes.current[index - 1]?.focus();
      event.preventDefault();
    }
    if (event.key === "ArrowLeft") boxes.current[index - 1]?.focus();
    if (event.key === "ArrowRight") boxes.current[index + 1]?.focus();
  }

  function onPaste(index: number, event: ClipboardEvent<HTMLInputElement>) {
    event.preventDefault();
    fill(index, event.clipboardData.getData("text"));
  }

  return (
    <fieldset>
      <legend className="mb-2 text-sm font-medium text-slate-800 dark:text-slate-200">6-digit code</legend>
      <input type="hidden" name={name} value={digits.join("")} />
      <div className="flex gap-2">
        {digits.map((digit, index) => (
          <input
            // biome-ignore lint/suspicious/noArrayIndexKey: the six boxes are fixed positions
            key={index}
            ref={(box) => {
              boxes.current[index] = box;
            }}
            aria-label={`Digit ${index + 1} of ${length}`}
            aria-invalid={invalid || undefined}
            autoComplete={index === 0 ? "one-time-code" : "off"}
            // biome-ignore lint/a11y/noAutofocus: the code step's only task is this field
            autoFocus={index === 0}
            inputMode="numeric"
            maxLength={length}
            value={digit}
            onChange={(event) => {
              const typed = event.target.value;
              if (typed === "") {
                const next = [...digits];
                next[index] = "";
                setDigits(next);
              } else fill(index, typed.slice(digit ? 1 : 0) || typed);
            }}
            onKeyDown={(event) => onKeyDown(index, event)}
            onPaste={(event) => onPaste(index, event)}
            onFocus={(event) => event.target.select()}
            className={`size-11 rounded-md bg-white text-center font-mono text-lg text-slate-900 outline-1 -outline-offset-1 focus:outline-2 focus:-outline-offset-2 dark:bg-slate-900 dark:text-white ${
              invalid ? "outline-red-500" : "outline-slate-300 focus:outline-indigo-600 dark:outline-slate-600"
            }`}
          />
        ))}
      </div>
    </fieldset>
  );
}
