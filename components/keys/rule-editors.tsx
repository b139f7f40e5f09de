"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { Check, Plus, X } from "lucide-react";
import { useId, useState } from "react";
import type { z } from "zod";
import { Badge, Button, TextField } from "@/components/ui/controls";
import { tagName } from "@/lib/schemas/devices";
import type { deviceFilterObject } from "@/lib/schemas/public-keys";
import { compileUserRegex, userRegexProblem } from "@/lib/user-regex";
import { type FieldErrors, focusFirstInvalid, serverFieldErrors } from "../auth/field-errors";
import { type Answer, ApiFailure, api, failureText } from "../console/api";
import { useConsole } from "../console/context";
import { queryKeys } from "../console/query-keys";
import type { Device } from "../devices/device-data";
import { matchAll } from "./rule-summaries";

/**
 * The editors that public keys and firewall rules share: a regular-expression field checked as
 * the server checks it, the username rule, and the device filter, each with a live preview run
 * on the same engine and rules as the server (lib/user-regex.ts).
 */

export type DeviceFilter = z.infer<typeof deviceFilterObject>;

const sentence = (text: string) => `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;

/** Whether `pattern` matches somewhere in `input`, as the server searches; undefined when it does not compile. */
function search(pattern: string, input: string): boolean | undefined {
  try {
    return compileUserRegex(pattern).test(input);
  } catch {
    return undefined;
  }
}

/**
 * The patterns of a rule the engine refuses, by field (`username`, `filter.hostname`), in the
 * words of the API's 400: a form blocks on these before sending.
 */
export function patternErrorsOf(filter: DeviceFilter, patterns: Record<string, string>): FieldErrors {
  const all = "hostname" in filter ? { ...patterns, "filter.hostname": filter.hostname } : patterns;
  const errors: FieldErrors = {};
  for (const [field, pattern] of Object.entries(all)) {
    const problem = pattern ? userRegexProblem(pattern) : undefined;
    if (problem) errors[field] = sentence(problem);
  }
  return errors;
}

/**
 * The save of a key or rule editor: `submit` shows the problems found before sending (focus on
 * the first) or sends `values`; the server's refusals of fields land at those fields, a 409 at
 * `conflictField`, anything else in `failure`, a sentence for above the buttons.
 */
export function useEditorSave<T>({
  send,
  onSaved,
  conflictField,
}: {
  send: (values: Record<string, unknown>) => Promise<Answer<T>>;
  onSaved: (saved: T) => void;
  conflictField?: string;
}) {
  const [errors, setErrors] = useState<FieldErrors>({});
  const save = useMutation({
    mutationFn: send,
    onSuccess: ({ data }) => onSaved(data),
    onError: (failure) => {
      if (!(failure instanceof ApiFailure)) return;
      if (failure.fields.length > 0) setErrors(serverFieldErrors(failure.fields));
      else if (failure.status === 409 && conflictField) setErrors({ [conflictField]: failureText(failure) });
    },
  });
  function submit(form: HTMLFormElement, values: Record<string, unknown>, found: FieldErrors) {
    setErrors(found);
    if (Object.values(found).some(Boolean)) focusFirstInvalid(form, found);
    else save.mutate(values);
  }
  const isAtField =
    save.error instanceof ApiFailure &&
    (save.error.fields.length > 0 || (save.error.status === 409 && conflictField !== undefined));
  return {
    errors,
    submit,
    isPending: save.isPending,
    failure: save.isError && !isAtField ? failureText(save.error) : undefined,
  };
}

/** A pattern input whose engine problem shows as the person types; `error` is the form's own. */
export function PatternField({
  label,
  name,
  value,
  onChange,
  error,
  hint,
}: {
  label: string;
  name: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  hint?: string;
}) {
  const problem = value ? userRegexProblem(value) : undefined;
  return (
    <TextField
      label={label}
      name={name}
      value={value}
      onChange={(event) => onChange(event.target.value)}
      error={problem ? sentence(problem) : error}
      hint={hint}
      spellCheck={false}
      autoComplete="off"
      className="[&_input]:font-mono"
    />
  );
}

/** Radio buttons in a row: one choice of a few, each with its label. */
export function Choices<V extends string>({
  value,
  options,
  onSelect,
}: {
  value: V;
  options: [V, string][];
  onSelect: (value: V) => void;
}) {
  const group = useId();
  return (
    <div className="flex flex-wrap gap-x-5 gap-y-1">
      {options.map(([option, label]) => (
        <label key={option} className="flex items-center gap-2 text-sm">
          <input
            type="radio"
            name={group}
            value={option}
            checked={value === option}
            onChange={() => onSelect(option)}
          />
          {label}
        </label>
      ))}
    </div>
  );
}

/** "root: yes · admin: no" for the names the person tries. */
function UsernamePreview({ pattern }: { pattern: string }) {
  const [names, setNames] = useState("root admin");
  const id = useId();
  const tried = names
    .split(/[\s,]+/)
    .filter(Boolean)
    .slice(0, 8);
  return (
    <div className="grid gap-1.5 rounded-md bg-slate-50 p-2.5 text-sm dark:bg-slate-800/60">
      <div className="flex flex-wrap items-center gap-2">
        <label htmlFor={id} className="text-xs font-medium text-slate-700 dark:text-slate-300">
          Try user names
        </label>
        <input
          id={id}
          value={names}
          onChange={(event) => setNames(event.target.value)}
          className="min-w-0 flex-1 rounded-md bg-white px-2 py-1 font-mono text-xs outline-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
        />
      </div>
      <p aria-live="polite" className="flex flex-wrap gap-x-3 gap-y-1" data-testid="username-preview">
        {tried.map((name) => {
          const verdict = search(pattern, name);
          return (
            <span key={name} className="inline-flex items-center gap-1 font-mono text-xs">
              {verdict ? (
                <Check aria-hidden className="size-3.5 text-emerald-700 dark:text-emerald-400" />
              ) : (
                <X aria-hidden className="size-3.5 text-red-700 dark:text-red-400" />
              )}
              {name}: {verdict === undefined ? "—" : verdict ? "yes" : "no"}
            </span>
          );
        })}
      </p>
    </div>
  );
}

/** Any user (`.*`) or a pattern of login names, with the preview. */
export function UsernameRule({
  value,
  onChange,
  error,
}: {
  value: string;
  onChange: (value: string) => void;
  error?: string;
}) {
  const [isPattern, setPattern] = useState(value !== matchAll);
  function choose(kind: "any" | "pattern") {
    setPattern(kind === "pattern");
    if (kind === "any") onChange(matchAll);
    else if (value === matchAll) onChange("^root$");
  }
  return (
    <fieldset className="grid gap-2">
      <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">Users on the device</legend>
      <Choices
        value={isPattern ? "pattern" : "any"}
        options={[
          ["any", "Any user"],
          ["pattern", "Users matching a pattern"],
        ]}
        onSelect={choose}
      />
      {isPattern && (
        <PatternField
          label="User name pattern"
          name="username"
          value={value}
          onChange={onChange}
          error={error}
          hint="A regular expression searched in the login name: ^root$ is exactly root."
        />
      )}
      {!isPattern && error && <p className="text-xs font-medium text-red-700 dark:text-red-400">{error}</p>}
      <UsernamePreview pattern={value} />
    </fieldset>
  );
}

/** The accepted devices (first 100 by name) that filters are previewed against. */
export function usePreviewDevices() {
  const { tenant } = useConsole();
  return useQuery({
    queryKey: queryKeys.devices.previewed(tenant),
    queryFn: () => api<Device[]>("/api/devices?status=accepted&sort_by=name&order_by=asc&per_page=100"),
  });
}

function admits(filter: DeviceFilter, device: Pick<Device, "name" | "tags">): boolean | undefined {
  if ("hostname" in filter) return search(filter.hostname, device.name);
  return filter.tags.some((tag) => device.tags.includes(tag));
}

/** "Matches 4 of 37 devices: rpi-1, rpi-2, …" */
export function FilterPreview({ filter }: { filter: DeviceFilter }) {
  const devices = usePreviewDevices();
  const list = devices.data?.data ?? [];
  const total = devices.data?.total ?? list.length;
  if (devices.isPending) return <p className="text-xs text-slate-600 dark:text-slate-400">Loading devices…</p>;
  // Nothing to preview until the pattern is one the server would take.
  if ("hostname" in filter && (!filter.hostname || userRegexProblem(filter.hostname))) return null;
  const matching = list.filter((device) => admits(filter, device) === true);
  const shown = matching.slice(0, 8).map((device) => device.name);
  const more = matching.length - shown.length;
  return (
    <p aria-live="polite" data-testid="filter-preview" className="text-xs text-slate-700 dark:text-slate-300">
      <span className="font-medium">
        Matches {matching.length.toLocaleString()} of {total.toLocaleString()} device{total === 1 ? "" : "s"}
        {total > list.length ? ` (the first ${list.length} checked)` : ""}
      </span>
      {shown.length > 0 && `: ${shown.join(", ")}${more > 0 ? `, and ${more} more` : ""}`}
    </p>
  );
}

function TagPicker({ tags, onChange, error }: { tags: string[]; onChange: (tags: string[]) => void; error?: string }) {
  const { tenant } = useConsole();
  const known = useQuery({ queryKey: queryKeys.tags(tenant), queryFn: () => api<string[]>("/api/tags?per_page=100") });
  const [draft, setDraft] = useState("");
  const [problem, setProblem] = useState<string>();
  const inputId = useId();
  const listId = useId();
  function add() {
    const parsed = tagName.safeParse(draft.trim());
    if (!parsed.success) {
      setProblem(sentence(parsed.error.issues[0]?.message ?? "invalid"));
      return;
    }
    setProblem(undefined);
    setDraft("");
    if (!tags.includes(parsed.data)) onChange([...tags, parsed.data]);
  }
  const shown = problem ?? error;
  return (
    <div className="grid gap-1.5">
      <ul className="flex flex-wrap gap-1.5" aria-label="Selected tags">
        {tags.map((tag) => (
          <li key={tag}>
            <Badge color="indigo">
              {tag}
              <button
                type="button"
                aria-label={`Remove tag ${tag}`}
                onClick={() => onChange(tags.filter((other) => other !== tag))}
              >
                <X aria-hidden className="size-3.5" />
              </button>
            </Badge>
          </li>
        ))}
      </ul>
      {tags.length < 3 && (
        <div className="flex gap-2">
          <label htmlFor={inputId} className="sr-only">
            Tag
          </label>
          <input
            id={inputId}
            name="filter.tags"
            list={listId}
            value={draft}
            placeholder="Add a tag"
            aria-invalid={shown ? true : undefined}
            aria-describedby={`${inputId}-rule`}
            onChange={(event) => setDraft(event.target.value)}
            onKeyDown={(event) => {
              if (event.key === "Enter") {
                event.preventDefault();
                add();
              }
            }}
            className="w-full max-w-64 rounded-md bg-white px-2.5 py-1.5 text-sm outline-1 outline-slate-300 focus:outline-2 focus:outline-indigo-600 dark:bg-slate-900 dark:outline-slate-600"
          />
          <datalist id={listId}>
            {(known.data?.data ?? [])
              .filter((tag) => !tags.includes(tag))
              .map((tag) => (
                <option key={tag} value={tag} />
              ))}
          </datalist>
          <Button size="sm" variant="secondary" onClick={add} aria-label="Add tag to the filter">
            <Plus aria-hidden className="size-4" />
          </Button>
        </div>
      )}
      <p
        id={`${inputId}-rule`}
        className={`text-xs ${shown ? "font-medium text-red-700 dark:text-red-400" : "text-slate-600 dark:text-slate-400"}`}
      >
        {shown ?? "1 to 3 tags of 3 to 255 characters (no / @ & or :); a device with any of them matches."}
      </p>
    </div>
  );
}

type FilterKind = "all" | "hostname" | "tags";
const kindOf = (filter: DeviceFilter): FilterKind =>
  "tags" in filter ? "tags" : filter.hostname === matchAll ? "all" : "hostname";

/** All devices (`{hostname: ".*"}`), a hostname pattern or 1 to 3 tags, with the matching devices. */
export function FilterEditor({
  filter,
  onChange,
  errors,
}: {
  filter: DeviceFilter;
  onChange: (filter: DeviceFilter) => void;
  errors: Record<string, string | undefined>;
}) {
  const [kind, setKind] = useState<FilterKind>(kindOf(filter));
  // What each form held, so switching back and forth keeps it.
  const [hostname, setHostname] = useState("hostname" in filter && filter.hostname !== matchAll ? filter.hostname : "");
  const [tags, setTags] = useState<string[]>("tags" in filter ? filter.tags : []);
  function choose(next: FilterKind) {
    setKind(next);
    onChange(next === "all" ? { hostname: matchAll } : next === "hostname" ? { hostname } : { tags });
  }
  const error = errors.filter;
  return (
    <fieldset className="grid gap-2">
      <legend className="mb-1 text-sm font-medium text-slate-800 dark:text-slate-200">Devices</legend>
      <Choices
        value={kind}
        options={[
          ["all", "All devices"],
          ["hostname", "Hostname pattern"],
          ["tags", "Tags"],
        ]}
        onSelect={choose}
      />
      {kind === "hostname" && (
        <PatternField
          label="Hostname pattern"
          name="filter.hostname"
          value={hostname}
          onChange={(value) => {
            setHostname(value);
            onChange({ hostname: value });
          }}
          error={errors["filter.hostname"]}
          hint="A regular expression searched in the device name: ^rpi- matches rpi-1 and rpi-kitchen."
        />
      )}
      {kind === "tags" && (
        <TagPicker
          tags={tags}
          onChange={(value) => {
            setTags(value);
            onChange({ tags: value });
          }}
          error={errors["filter.tags"]}
        />
      )}
      {error && <p className="text-xs font-medium text-red-700 dark:text-red-400">{error}</p>}
      <FilterPreview filter={filter} />
    </fieldset>
  );
}
