import { defineOperation } from "../http/operation";
import { terminalTokenBody, terminalTokenObject } from "../schemas/terminal";

export const createTerminalToken = defineOperation({
  id: "createTerminalToken",
  method: "POST",
  path: "/ws/ssh",
  tag: "terminal",
  summary:
    "A one-time token (valid 60 s) for the browser terminal: GET /ws/ssh?token=..&cols=..&rows=.. upgrades to a WebSocket. " +
    "Without credentials (ShellHub's UI) the device login at the upgrade is the authentication, as at the SSH gateway.",
  access: { kind: "tenant", permission: "device.connect", apiKey: false, allowsNoCredentials: true },
  body: terminalTokenBody,
  response: terminalTokenObject,
  errors: {
    404: "no such device in the caller's namespace",
    429: "too many unused terminal tokens of this user, or too many tokens asked for without credentials from this source",
  },
});

export const terminalOperations = [createTerminalToken];
