import { defineOperation } from "../http/operation";
import {
  authSshBody,
  authSshResponse,
  createPublicKeyBody,
  listPublicKeysQuery,
  publicKeyObject,
  publicKeyParams,
  publicKeyTagParams,
  tagBody,
  tagsBody,
  updatePublicKeyBody,
} from "../schemas/public-keys";

const tag = "public keys";
const read = { kind: "tenant", permission: "publickey.read" } as const;
const manage = { kind: "tenant", permission: "publickey.manage" } as const;

export const listPublicKeys = defineOperation({
  id: "listPublicKeys",
  method: "GET",
  path: "/api/sshkeys/public-keys",
  tag,
  summary: "The namespace's SSH public keys, newest first",
  access: read,
  query: listPublicKeysQuery,
  response: publicKeyObject,
  isList: true,
});

export const createPublicKey = defineOperation({
  id: "createPublicKey",
  method: "POST",
  path: "/api/sshkeys/public-keys",
  tag,
  summary: "Store an OpenSSH public key (data: base64 of the whole key line); the server computes the fingerprint",
  access: manage,
  body: createPublicKeyBody,
  response: publicKeyObject,
  errors: { 409: "a key with this fingerprint exists in the namespace" },
});

export const updatePublicKey = defineOperation({
  id: "updatePublicKey",
  method: "PUT",
  path: "/api/sshkeys/public-keys/{fingerprint}",
  tag,
  summary: "Change a key's name, username regex and device filter",
  access: manage,
  params: publicKeyParams,
  body: updatePublicKeyBody,
  response: publicKeyObject,
  errors: { 404: "no such key" },
});

export const deletePublicKey = defineOperation({
  id: "deletePublicKey",
  method: "DELETE",
  path: "/api/sshkeys/public-keys/{fingerprint}",
  tag,
  summary: "Delete a key",
  access: manage,
  params: publicKeyParams,
  errors: { 404: "no such key" },
});

export const addPublicKeyTag = defineOperation({
  id: "addPublicKeyTag",
  method: "POST",
  path: "/api/sshkeys/public-keys/{fingerprint}/tags",
  tag,
  summary: "Add a tag to a key's tags filter",
  access: manage,
  params: publicKeyParams,
  body: tagBody,
  response: publicKeyObject,
  errors: { 404: "no such key", 409: "hostname filter, tag already there, or 3 tags already" },
});

export const updatePublicKeyTags = defineOperation({
  id: "updatePublicKeyTags",
  method: "PUT",
  path: "/api/sshkeys/public-keys/{fingerprint}/tags",
  tag,
  summary: "Make a key's filter exactly these tags (replaces a hostname filter)",
  access: manage,
  params: publicKeyParams,
  body: tagsBody,
  response: publicKeyObject,
  errors: { 404: "no such key" },
});

export const removePublicKeyTag = defineOperation({
  id: "removePublicKeyTag",
  method: "DELETE",
  path: "/api/sshkeys/public-keys/{fingerprint}/tags/{tag}",
  tag,
  summary: "Remove a tag from a key's tags filter",
  access: manage,
  params: publicKeyTagParams,
  response: publicKeyObject,
  errors: { 404: "no such key or tag", 409: "the last tag" },
});

export const authSshPublicKey = defineOperation({
  id: "authSshPublicKey",
  method: "POST",
  path: "/api/auth/ssh",
  tag: "agent",
  summary:
    "Sign data with the server's key (RSA PKCS#1 v1.5, SHA-256, base64) when the fingerprint is a key of the device's namespace that admits the device",
  access: { kind: "device" },
  body: authSshBody,
  response: authSshResponse,
  errors: { 404: "no such key for this device" },
});

export const publicKeyOperations = [
  listPublicKeys,
  createPublicKey,
  updatePublicKey,
  deletePublicKey,
  addPublicKeyTag,
  updatePublicKeyTags,
  removePublicKeyTag,
  authSshPublicKey,
];
