import { z } from "zod";
import { defineOperation, type Operation } from "../http/operation";
import { listTagsQuery, renameTagBody, tagParams } from "../schemas/tags";

export const listTags = defineOperation({
  id: "listTags",
  method: "GET",
  path: "/api/tags",
  tag: "tags",
  summary: "The namespace's tags (devices, public keys, firewall rules), in name order",
  access: { kind: "tenant", permission: "tag.read" },
  query: listTagsQuery,
  response: z.string(),
  isList: true,
});

export const renameTag = defineOperation({
  id: "renameTag",
  method: "PUT",
  path: "/api/tags/{tag}",
  tag: "tags",
  summary: "Rename a tag on every device, public key and firewall rule of the namespace",
  access: { kind: "tenant", permission: "tag.manage" },
  params: tagParams,
  body: renameTagBody,
  errors: { 404: "no such tag", 409: "the new name is a tag already" },
});

export const deleteTag = defineOperation({
  id: "deleteTag",
  method: "DELETE",
  path: "/api/tags/{tag}",
  tag: "tags",
  summary: "Remove a tag from every device, public key and firewall rule of the namespace",
  access: { kind: "tenant", permission: "tag.manage" },
  params: tagParams,
  errors: { 404: "no such tag" },
});

export const tagOperations: Operation[] = [listTags, renameTag, deleteTag];
