import { and, type Column, or, type SQL, sql } from "drizzle-orm";
import { badRequest } from "../errors";
import type { FilterItem, PropertyCondition } from "../schemas/list-filter";

export type FilterField = { column: Column | SQL; type: "text" | "boolean" | "number" | "date" | "tags" };

type ScalarValue = Exclude<PropertyCondition["params"]["value"], string[]>;

const escapeLike = (value: string) => value.replace(/[\\%_]/g, (match) => `\\${match}`);

// Number properties are PostgreSQL integers; a value past their range is bad input, not a
// database error.
const isInteger = (number: number) => Number.isInteger(number) && number >= -(2 ** 31) && number < 2 ** 31;

// JavaScript takes years 0, negative and past 9999, which PostgreSQL refuses in the ISO form.
const isStorableDate = (date: Date) => date.getUTCFullYear() >= 1 && date.getUTCFullYear() <= 9999;

function typedValue(field: FilterField, value: ScalarValue): SQL | string | number | undefined {
  if (field.type === "number") {
    const number = typeof value === "boolean" || String(value).trim() === "" ? Number.NaN : Number(value);
    return isInteger(number) ? number : undefined;
  }
  if (field.type === "date") {
    const date = new Date(String(value));
    return isStorableDate(date) ? sql`${date.toISOString()}::timestamptz` : undefined;
  }
  return String(value);
}

function condition({ params }: PropertyCondition, fields: Record<string, FilterField>): SQL {
  const field = Object.hasOwn(fields, params.name) ? fields[params.name] : undefined;
  if (!field) throw badRequest(`filter: unknown property '${params.name}'`);
  const { column } = field;
  const value = params.value;
  if (Array.isArray(value)) {
    if (field.type !== "tags" || params.operator !== "contains") {
      throw badRequest(
        `filter: a list of values is only for contains on tags, not ${params.operator} on '${params.name}'`,
      );
    }
    // The ShellHub UI's tag selector: the devices that have every selected tag.
    return sql`(${sql.join(
      value.map((tag) => sql`${tag} = any(${column})`),
      sql` and `,
    )})`;
  }
  if (params.operator === "bool" || field.type === "boolean") {
    if (field.type !== "boolean") throw badRequest(`filter: '${params.name}' is not a boolean`);
    const truth = value === true || value === "true" || value === 1;
    return params.operator === "ne" ? sql`${column} is distinct from ${truth}` : sql`${column} = ${truth}`;
  }
  if (field.type === "tags") {
    if (params.operator !== "contains" && params.operator !== "eq") {
      throw badRequest(`filter: '${params.name}' takes contains or eq`);
    }
    return sql`${String(value)} = any(${column})`;
  }
  const typed = typedValue(field, value);
  if (typed === undefined) throw badRequest(`filter: bad value for '${params.name}'`);
  switch (params.operator) {
    case "contains":
      if (field.type !== "text") throw badRequest(`filter: contains needs a text property, not '${params.name}'`);
      return sql`${column} ilike ${`%${escapeLike(String(value))}%`}`;
    case "eq":
      return sql`${column} = ${typed}`;
    case "ne":
      return sql`${column} <> ${typed}`;
    case "gt":
      return sql`${column} > ${typed}`;
    case "lt":
      return sql`${column} < ${typed}`;
  }
}

/**
 * Turns filter items into one SQL condition. Conditions stack up; an `and`/`or` operator
 * combines everything stacked before it; what remains at the end is combined with `and`.
 */
export function filterToSql(items: FilterItem[] | undefined, fields: Record<string, FilterField>): SQL | undefined {
  const stack: SQL[] = [];
  for (const item of items ?? []) {
    if (item.type === "property") {
      stack.push(condition(item, fields));
      continue;
    }
    const combined = (item.params.name === "and" ? and : or)(...stack.splice(0));
    if (combined) stack.push(combined);
  }
  return and(...stack);
}
