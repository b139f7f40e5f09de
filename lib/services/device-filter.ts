import type { PublicKeyFilter } from "@/models/public-keys";
import type { Scope } from "../auth/credentials";
import type { Executor, Tx } from "../db";
import { conflict, notFound } from "../errors";
import { audited } from "./audit";
import { searchUserRegex } from "./regex";

/** The device a public key or firewall rule is checked against. */
export type FilteredDevice = { name: string; tags: string[] };

/**
 * Whether a filter admits a device: its hostname regex matches the device name, or the device
 * has one of its tags. Undefined when a stored hostname pattern no longer compiles.
 */
export function filterAdmits(filter: PublicKeyFilter, device: FilteredDevice): boolean | undefined {
  if ("hostname" in filter) return searchUserRegex(filter.hostname, device.name);
  return filter.tags.some((tag) => device.tags.includes(tag));
}

const maxFilterTags = 3;

/**
 * A tags filter with `tag` added. A hostname filter is refused: adding a tag would silently
 * change which devices the key or rule admits; replacing the tags (PUT) says so explicitly.
 */
export function addFilterTag(filter: PublicKeyFilter, tag: string): PublicKeyFilter {
  if (!("tags" in filter)) throw conflict("the filter selects devices by hostname: replace it with tags (PUT) first");
  if (filter.tags.includes(tag)) throw conflict(`the tag '${tag}' is already there`);
  if (filter.tags.length >= maxFilterTags) throw conflict(`at most ${maxFilterTags} tags`);
  return { tags: [...filter.tags, tag] };
}

/** A tags filter without `tag`; the last tag stays (an empty filter would admit no device). */
export function removeFilterTag(filter: PublicKeyFilter, tag: string): PublicKeyFilter {
  if (!("tags" in filter) || !filter.tags.includes(tag)) throw notFound(`tag '${tag}'`);
  if (filter.tags.length === 1) throw conflict("the last tag cannot be removed: replace the filter instead");
  return { tags: filter.tags.filter((item) => item !== tag) };
}

/** Where a filter is stored (a public key's row, a firewall rule's row), found by `Key` in a namespace. */
type FilterStore<Key, Row> = {
  /** What a missing row is called in the 404. */
  what: string;
  /** The row's kind in the audit trail (`public_key` records `public_key.update`). */
  auditTarget: string;
  /** The row's filter, locked for update; nothing when the row does not exist. */
  lock: (tx: Tx, scope: Scope, key: Key) => Promise<{ filter: PublicKeyFilter }[]>;
  /** Stores the filter and answers the updated row; nothing when the row does not exist. */
  write: (db: Executor, scope: Scope, key: Key, filter: PublicKeyFilter) => Promise<Row[]>;
};

/**
 * The tag edits of a stored filter: adding or removing one tag reads and writes under a row
 * lock, so concurrent edits do not lose each other; replacing the tags needs no read.
 */
export function filterTagEditor<Key, Row>(store: FilterStore<Key, Row>) {
  const found = <T>(row: T | undefined): T => {
    if (!row) throw notFound(store.what);
    return row;
  };
  const recorded = (db: Executor, scope: Scope, key: Key, write: (tx: Tx) => Promise<PublicKeyFilter>) =>
    audited(db, scope, `${store.auditTarget}.update`, write, (filter) => ({
      target: { type: store.auditTarget, id: String(key) },
      details: { filter },
    }));
  const edit = async (db: Executor, scope: Scope, key: Key, change: (filter: PublicKeyFilter) => PublicKeyFilter) => {
    let row: Row | undefined;
    await recorded(db, scope, key, async (tx) => {
      const [current] = await store.lock(tx, scope, key);
      const filter = change(found(current).filter);
      [row] = await store.write(tx, scope, key, filter);
      found(row);
      return filter;
    });
    return found(row);
  };
  return {
    addTag: (db: Executor, scope: Scope, key: Key, tag: string) =>
      edit(db, scope, key, (filter) => addFilterTag(filter, tag)),
    removeTag: (db: Executor, scope: Scope, key: Key, tag: string) =>
      edit(db, scope, key, (filter) => removeFilterTag(filter, tag)),
    /** Makes the filter exactly these tags, replacing a hostname filter too. */
    replaceTags: (db: Executor, scope: Scope, key: Key, tags: string[]) => edit(db, scope, key, () => ({ tags })),
  };
}
