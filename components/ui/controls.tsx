"use client";

import { Check, ChevronLeft, Copy, LoaderCircle, Search } from "lucide-react";
import Link from "next/link";
import {
  type ButtonHTMLAttributes,
  forwardRef,
  type InputHTMLAttributes,
  type ReactNode,
  type SelectHTMLAttributes,
  useEffect,
  useId,
  useState,
} from "react";

const buttonStyles = {
  primary:
    "bg-indigo-600 text-white hover:bg-indigo-500 focus-visible:outline-indigo-600 disabled:bg-indigo-600/50 dark:bg-indigo-500 dark:hover:bg-indigo-400",
  secondary:
    "bg-white text-slate-900 ring-1 ring-inset ring-slate-300 hover:bg-slate-50 dark:bg-slate-800 dark:text-slate-100 dark:ring-slate-600 dark:hover:bg-slate-700",
  danger: "bg-red-600 text-white hover:bg-red-500 focus-visible:outline-red-600 disabled:bg-red-600/50",
  ghost: "text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800",
};

type ButtonProps = ButtonHTMLAttributes<HTMLButtonElement> & {
  variant?: keyof typeof buttonStyles;
  size?: "sm" | "md";
  isPending?: boolean;
  /** Why the action is not allowed: the button is disabled and says so (title and aria). */
  deniedReason?: string;
};

/** A button with its own spinner; pending or denied, it cannot be pressed twice. */
export const Button = forwardRef<HTMLButtonElement, ButtonProps>(function Button(
  { variant = "primary", size = "md", isPending, deniedReason, className = "", children, disabled, ...rest },
  ref,
) {
  const sizing = size === "sm" ? "px-2.5 py-1.5 text-xs" : "px-3.5 py-2 text-sm";
  return (
    <button
      ref={ref}
      type="button"
      {...rest}
      disabled={disabled || isPending || deniedReason !== undefined}
      aria-disabled={deniedReason !== undefined || undefined}
      title={deniedReason ?? rest.title}
      className={`inline-flex min-h-6 items-center justify-center gap-1.5 rounded-md font-semibold shadow-xs focus-visible:outline-2 focus-visible:outline-offset-2 disabled:cursor-not-allowed disabled:opacity-60 ${sizing} ${buttonStyles[variant]} ${className}`}
    >
      {isPending && <LoaderCircle aria-hidden className="size-4 animate-spin" />}
      {children}
    </button>
  );
});

/** A native `<select>` styled as the text fields are. */
export const selectStyle =
  "rounded-md bg-white py-2 pr-8 pl-2.5 text-sm outline-1 -outline-offset-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600";

type FieldProps = InputHTMLAttributes<HTMLInputElement> & {
  label: string;
  error?: string;
  hint?: ReactNode;
};

/** A labelled input whose error and hint are tied to it for screen readers. */
export const TextField = forwardRef<HTMLInputElement, FieldProps>(function TextField(
  { label, error, hint, id, className = "", ...rest },
  ref,
) {
  const ownId = useId();
  const inputId = id ?? ownId;
  const described = [error ? `${inputId}-error` : "", hint ? `${inputId}-hint` : ""].filter(Boolean).join(" ");
  return (
    <div className={`grid gap-1.5 ${className}`}>
      <label htmlFor={inputId} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <input
        ref={ref}
        id={inputId}
        aria-invalid={error ? true : undefined}
        aria-describedby={described || undefined}
        className={`block w-full rounded-md bg-white px-3 py-2 text-sm text-slate-900 outline-1 -outline-offset-1 placeholder:text-slate-400 focus:outline-2 focus:-outline-offset-2 disabled:cursor-not-allowed disabled:opacity-60 dark:bg-slate-900 dark:text-slate-100 ${
          error
            ? "outline-red-500 focus:outline-red-600"
            : "outline-slate-300 focus:outline-indigo-600 dark:outline-slate-600 dark:focus:outline-indigo-400"
        }`}
        {...rest}
      />
      {hint && (
        <p id={`${inputId}-hint`} className="text-xs text-slate-600 dark:text-slate-400">
          {hint}
        </p>
      )}
      {error && (
        <p id={`${inputId}-error`} className="text-xs font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
});

const calloutStyles = {
  error: "border-red-200 bg-red-50 text-red-800 dark:border-red-900 dark:bg-red-950/60 dark:text-red-200",
  warning: "border-amber-200 bg-amber-50 text-amber-900 dark:border-amber-900 dark:bg-amber-950/60 dark:text-amber-100",
  info: "border-sky-200 bg-sky-50 text-sky-900 dark:border-sky-900 dark:bg-sky-950/60 dark:text-sky-100",
  success:
    "border-emerald-200 bg-emerald-50 text-emerald-900 dark:border-emerald-900 dark:bg-emerald-950/60 dark:text-emerald-100",
};

/** A boxed message; errors are announced (`role="alert"`), the rest politely. */
export function Callout({
  kind,
  children,
  action,
}: {
  kind: keyof typeof calloutStyles;
  children: ReactNode;
  action?: ReactNode;
}) {
  return (
    <div
      role={kind === "error" ? "alert" : "status"}
      className={`flex items-start justify-between gap-3 rounded-md border px-3 py-2.5 text-sm ${calloutStyles[kind]}`}
    >
      <div className="min-w-0">{children}</div>
      {action}
    </div>
  );
}

/** A labelled select whose error is tied to it, as TextField. */
export function SelectField({
  label,
  error,
  id,
  className = "",
  children,
  ...rest
}: SelectHTMLAttributes<HTMLSelectElement> & { label: string; error?: string }) {
  const ownId = useId();
  const selectId = id ?? ownId;
  return (
    <div className={`grid gap-1.5 ${className}`}>
      <label htmlFor={selectId} className="text-sm font-medium text-slate-800 dark:text-slate-200">
        {label}
      </label>
      <select
        id={selectId}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${selectId}-error` : undefined}
        className={`${selectStyle} disabled:cursor-not-allowed disabled:opacity-60`}
        {...rest}
      >
        {children}
      </select>
      {error && (
        <p id={`${selectId}-error`} className="text-xs font-medium text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}

export function Card({ children, className = "" }: { children: ReactNode; className?: string }) {
  return (
    <section
      className={`rounded-lg border border-slate-200 bg-white shadow-xs dark:border-slate-800 dark:bg-slate-900 ${className}`}
    >
      {children}
    </section>
  );
}

const badgeStyles = {
  gray: "bg-slate-100 text-slate-700 ring-slate-500/20 dark:bg-slate-800 dark:text-slate-300 dark:ring-slate-400/20",
  green:
    "bg-emerald-50 text-emerald-800 ring-emerald-600/20 dark:bg-emerald-950 dark:text-emerald-300 dark:ring-emerald-400/30",
  amber: "bg-amber-50 text-amber-800 ring-amber-600/20 dark:bg-amber-950 dark:text-amber-300 dark:ring-amber-400/30",
  red: "bg-red-50 text-red-800 ring-red-600/20 dark:bg-red-950 dark:text-red-300 dark:ring-red-400/30",
  indigo:
    "bg-indigo-50 text-indigo-800 ring-indigo-600/20 dark:bg-indigo-950 dark:text-indigo-300 dark:ring-indigo-400/30",
};

export function Badge({ color = "gray", children }: { color?: keyof typeof badgeStyles; children: ReactNode }) {
  return (
    <span
      className={`inline-flex items-center gap-1 rounded-md px-1.5 py-0.5 text-xs font-medium ring-1 ring-inset ${badgeStyles[color]}`}
    >
      {children}
    </span>
  );
}

/**
 * Copies `text`; the icon turns into a check for 1.5 s and "Copied" is announced. Where the
 * Clipboard API is refused (plain HTTP), the text is selected for the person to copy.
 */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "select">("idle");
  async function copy() {
    try {
      await navigator.clipboard.writeText(text);
      setState("copied");
      setTimeout(() => setState("idle"), 1500);
    } catch {
      setState("select");
    }
  }
  return (
    <>
      <button
        type="button"
        onClick={copy}
        aria-label={label}
        title={label}
        className="inline-flex size-8 shrink-0 items-center justify-center rounded-md text-slate-500 hover:bg-slate-200 hover:text-slate-900 dark:text-slate-400 dark:hover:bg-slate-700 dark:hover:text-white"
      >
        {state === "copied" ? (
          <Check aria-hidden className="size-4 text-emerald-600" />
        ) : (
          <Copy aria-hidden className="size-4" />
        )}
      </button>
      <span aria-live="polite" className="sr-only">
        {state === "copied" ? "Copied" : ""}
      </span>
      {state === "select" && (
        <input
          readOnly
          value={text}
          aria-label="Select and copy"
          className="w-full rounded border px-2 py-1 font-mono text-xs"
          ref={(input) => input?.select()}
        />
      )}
    </>
  );
}

/** A command in a mono block with its copy button. */
export function CommandLine({ command, label }: { command: string; label?: string }) {
  return (
    <div className="flex items-start gap-2 rounded-md bg-slate-900 py-1.5 pr-1.5 pl-3 text-slate-100 dark:bg-black/60">
      <code className="min-w-0 flex-1 overflow-x-auto py-1 font-mono text-xs leading-5 break-all whitespace-pre-wrap">
        {command}
      </code>
      <div className="text-slate-300 [&_button]:text-slate-300 [&_button:hover]:bg-slate-700 [&_button:hover]:text-white">
        <CopyButton text={command} label={label ?? "Copy command"} />
      </div>
    </div>
  );
}

export function Spinner({ label = "Loading" }: { label?: string }) {
  return (
    <span role="status" className="inline-flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
      <LoaderCircle aria-hidden className="size-4 animate-spin" />
      {label}
    </span>
  );
}

/** A state as a dot and a word, never by colour alone: "Online", "Active". */
export function StateDot({ isOn, label }: { isOn: boolean; label: string }) {
  return (
    <span className="inline-flex items-center gap-1.5 text-sm whitespace-nowrap">
      <span
        aria-hidden
        className={`size-2 rounded-full ${isOn ? "bg-emerald-500 ring-4 ring-emerald-500/15" : "bg-slate-400"}`}
      />
      {label}
    </span>
  );
}

/** "‹ Devices": the way up from a detail page to its list. */
export function BackLink({ href, label }: { href: string; label: string }) {
  return (
    <Link
      href={href}
      className="inline-flex items-center gap-1 justify-self-start text-sm text-slate-600 hover:underline dark:text-slate-400"
    >
      <ChevronLeft aria-hidden className="size-4" /> {label}
    </Link>
  );
}

/** A resource that is not there (another namespace's, or removed): a heading and the way back. */
export function NotFoundNotice({
  title,
  children,
  back,
}: {
  title: string;
  children: ReactNode;
  back: { href: string; label: string };
}) {
  return (
    <div className="grid justify-items-start gap-3">
      <h1 className="text-2xl font-semibold">{title}</h1>
      <p className="text-sm text-slate-600 dark:text-slate-400">{children}</p>
      <Link href={back.href} className="font-medium text-indigo-700 hover:underline dark:text-indigo-300">
        {back.label}
      </Link>
    </div>
  );
}

/** A search box with its magnifier; `label` names it for screen readers. */
export const SearchField = forwardRef<HTMLInputElement, InputHTMLAttributes<HTMLInputElement> & { label: string }>(
  function SearchField({ label, className = "", ...rest }, ref) {
    return (
      <div className={`relative ${className}`}>
        <Search aria-hidden className="pointer-events-none absolute top-2.5 left-2.5 size-4 text-slate-500" />
        <input
          ref={ref}
          type="search"
          aria-label={label}
          {...rest}
          className="w-full rounded-md bg-white py-2 pr-3 pl-8 text-sm outline-1 -outline-offset-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
        />
      </div>
    );
  },
);

/**
 * A search box that filters when its text is submitted (Enter) or left, not at every keystroke:
 * the filter lives in the URL, and each change is a page of history.
 */
export function TextFilter({
  label,
  placeholder,
  value,
  onChange,
  className,
}: {
  label: string;
  placeholder: string;
  value: string;
  onChange: (text: string) => void;
  className?: string;
}) {
  const [text, setText] = useState(value);
  useEffect(() => setText(value), [value]);
  return (
    <form
      onSubmit={(event) => {
        event.preventDefault();
        onChange(text.trim());
      }}
    >
      <SearchField
        label={label}
        placeholder={placeholder}
        value={text}
        onChange={(event) => setText(event.target.value)}
        onBlur={() => text.trim() !== value && onChange(text.trim())}
        className={className}
      />
    </form>
  );
}

/** A checkbox that reads as a switch, with its label. */
export function SwitchField({
  isOn,
  onChange,
  disabled,
  title,
  children,
}: {
  isOn: boolean;
  onChange: (isOn: boolean) => void;
  disabled?: boolean;
  title?: string;
  children: ReactNode;
}) {
  return (
    <label className="inline-flex items-center gap-2 text-sm">
      <input
        type="checkbox"
        role="switch"
        aria-checked={isOn}
        checked={isOn}
        disabled={disabled}
        title={title}
        onChange={(event) => onChange(event.target.checked)}
        className="size-5 accent-indigo-600"
      />
      {children}
    </label>
  );
}
