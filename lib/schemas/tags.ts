import { z } from "zod";
import { pagination } from "./common";
import { tagName } from "./devices";

export const tagParams = z.object({ tag: tagName });
export const renameTagBody = z.object({ tag: tagName });
export const listTagsQuery = pagination;
