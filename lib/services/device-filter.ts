import type { PublicKeyFilter } from "@/models/public-keys";
import { conflict, notFound } from "../errors";
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
