import { defineOperation, type Operation } from "../http/operation";
import { liveEventData } from "../schemas/events";

export const streamEvents = defineOperation({
  id: "streamEvents",
  method: "GET",
  path: "/api/events",
  tag: "events",
  summary:
    "The namespace's live events (Server-Sent Events): devices registered, online, offline, changed, removed; sessions started and ended; stats",
  access: { kind: "tenant", permission: "device.read" },
  response: liveEventData,
  isEventStream: true,
});

export const eventOperations: Operation[] = [streamEvents];
