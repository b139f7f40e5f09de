import type { z } from "zod";

export type FieldErrors = Record<string, string | undefined>;

/**
 * The first message of each field that `schema` refuses in `values`, by its dotted path as the
 * API names it (`filter.hostname`); empty when all pass.
 */
export function fieldErrorsOf(schema: z.ZodType, values: Record<string, unknown>): FieldErrors {
  const result = schema.safeParse(values);
  if (result.success) return {};
  const errors: FieldErrors = {};
  for (const issue of result.error.issues) {
    const field = issue.path.slice(0, 2).join(".");
    errors[field] ??= sentence(issue.message);
  }
  return errors;
}

/** The fields a 400 of the API refused (`{message, fields}`), as the form shows them. */
export function serverFieldErrors(fields: { field: string; message: string }[]): FieldErrors {
  const errors: FieldErrors = {};
  for (const { field, message } of fields) errors[field.split(".").slice(0, 2).join(".")] ??= sentence(message);
  return errors;
}

/** zod's messages are the API's ("at least 5 characters"); the form shows them as sentences. */
const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`;

/** Moves focus to the first field of `form` that has an error. */
export function focusFirstInvalid(form: HTMLFormElement, errors: FieldErrors) {
  const first = Object.keys(errors).find((field) => errors[field]);
  if (first) (form.elements.namedItem(first) as HTMLElement | null)?.focus();
}
