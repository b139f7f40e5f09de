import { z } from "zod";
import { defineOperation } from "../http/operation";
import {
  closeSessionBody,
  listSessionsQuery,
  recordBody,
  recordObject,
  sessionObject,
  sessionParams,
  setAuthenticatedBody,
  startSessionBody,
} from "../schemas/sessions";

const tag = "sessions";

export const listSessions = defineOperation({
  id: "listSessions",
  method: "GET",
  path: "/api/sessions",
  tag,
  summary: "The namespace's sessions, newest first",
  access: { kind: "tenant", permission: "session.read" },
  query: listSessionsQuery,
  response: sessionObject,
  isList: true,
});

export const getSession = defineOperation({
  id: "getSession",
  method: "GET",
  path: "/api/sessions/{uid}",
  tag,
  summary: "Get a session with its device",
  access: { kind: "tenant", permission: "session.read" },
  params: sessionParams,
  response: sessionObject,
  errors: { 404: "no such session in the namespace" },
});

export const setSessionAuthenticated = defineOperation({
  id: "setSessionAuthenticated",
  method: "POST",
  path: "/api/sessions/{uid}",
  tag,
  summary: "Set whether the session's user has authenticated (the SSH gateway)",
  access: { kind: "internal" },
  params: sessionParams,
  body: setAuthenticatedBody,
  errors: { 404: "no such session" },
});

export const recordSession = defineOperation({
  id: "recordSession",
  method: "POST",
  path: "/api/sessions/{uid}/record",
  tag,
  summary: "Store a frame of a recorded session's terminal output",
  access: { kind: "device", orInternal: true },
  params: sessionParams,
  body: recordBody,
  errors: {
    404: "no such session (for a device token: of that device)",
    422: "a bad frame, or a session that is not recorded",
  },
});

export const playSession = defineOperation({
  id: "playSession",
  method: "GET",
  path: "/api/sessions/{uid}/play",
  tag,
  summary: "The recorded frames of a session, in order (streamed: a long recording is never held whole)",
  access: { kind: "tenant", permission: "session.play" },
  params: sessionParams,
  response: z.array(recordObject),
  errors: { 404: "no such session in the namespace" },
});

export const downloadSessionCast = defineOperation({
  id: "downloadSessionCast",
  method: "GET",
  path: "/api/sessions/{uid}/cast",
  tag,
  summary:
    'The recording as an asciicast v2 file, streamed: a header line, then `[seconds, "o", text]` per frame and `[seconds, "r", "COLSxROWS"]` where the size changed; seconds count from the session\'s start',
  access: { kind: "tenant", permission: "session.play" },
  params: sessionParams,
  fileType: "application/x-asciicast",
  errors: { 404: "no such session in the namespace" },
});

export const closeSession = defineOperation({
  id: "closeSession",
  method: "POST",
  path: "/api/sessions/{uid}/close",
  tag,
  summary: "Close a session: it becomes inactive and its connection is dropped",
  access: { kind: "tenant", permission: "session.close" },
  params: sessionParams,
  body: closeSessionBody,
  errors: { 404: "no such session of that device in the namespace" },
});

export const startSession = defineOperation({
  id: "startSession",
  method: "POST",
  path: "/internal/sessions",
  tag: "internal",
  summary: "Start a session on a device (the SSH gateway)",
  access: { kind: "internal" },
  body: startSessionBody,
  response: sessionObject,
  errors: { 404: "no such device", 409: "a session with this uid exists" },
});

export const sessionOperations = [
  listSessions,
  getSession,
  setSessionAuthenticated,
  recordSession,
  playSession,
  downloadSessionCast,
  closeSession,
  startSession,
];
