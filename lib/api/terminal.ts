import { defineOperation } from "../http/operation";
import { terminalTokenBody, terminalTokenObject } from "../schemas/terminal";

export const createTerminalToken = defineOperation({
  id: "createTerminalToken",
  method: "POST",
  path: "/ws/ssh",
  tag: "terminal",
  summary:
    "A one-time token (valid 60 s) for the browser terminal: GET /ws/ssh?token=..&cols=..&rows=.. upgrades to a WebSocket",
  access: { kind: "tenant", permission: "device.connect", apiKey: false },
  body: terminalTokenBody,
  response: terminalTokenObject,
  errors: { 404: "no such device in the namespace", 429: "too many unused terminal tokens of this user" },
});

export const terminalOperations = [createTerminalToken];
