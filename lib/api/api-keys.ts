import { defineOperation } from "../http/operation";
import { apiKeyObject, apiKeyParams, createApiKeyBody, listApiKeysQuery, updateApiKeyBody } from "../schemas/api-keys";

const tag = "api-keys";

export const createApiKey = defineOperation({
  id: "createApiKey",
  method: "POST",
  path: "/api/namespaces/api-key",
  tag,
  summary: "Create an API key (the key is in `id`, shown once)",
  access: { kind: "tenant", permission: "apikey.create", apiKey: false },
  body: createApiKeyBody,
  response: apiKeyObject,
  errors: { 409: "name or key in use" },
});

export const listApiKeys = defineOperation({
  id: "listApiKeys",
  method: "GET",
  path: "/api/namespaces/api-key",
  tag,
  summary: "List the namespace's API keys",
  access: { kind: "tenant", permission: "apikey.read" },
  query: listApiKeysQuery,
  response: apiKeyObject,
  isList: true,
});

export const updateApiKey = defineOperation({
  id: "updateApiKey",
  method: "PATCH",
  path: "/api/namespaces/api-key/{name}",
  tag,
  summary: "Rename an API key or change its role",
  access: { kind: "tenant", permission: "apikey.update", apiKey: false },
  params: apiKeyParams,
  body: updateApiKeyBody,
  response: apiKeyObject,
  errors: { 409: "name in use" },
});

export const deleteApiKey = defineOperation({
  id: "deleteApiKey",
  method: "DELETE",
  path: "/api/namespaces/api-key/{name}",
  tag,
  summary: "Delete an API key",
  access: { kind: "tenant", permission: "apikey.delete", apiKey: false },
  params: apiKeyParams,
});

export const apiKeyOperations = [createApiKey, listApiKeys, updateApiKey, deleteApiKey];
