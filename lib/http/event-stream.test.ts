import { describe, expect, it } from "vitest";
import { endEventStreams, eventStreamResponse, formatSse, type SseWriter } from "./event-stream";

async function readAll(response: Response) {
  return new Response(response.body).text();
}

describe("event streams", () => {
  it("write each message as id, event and one data line of JSON", () => {
    expect(formatSse({ id: 7, event: "device.online", data: { type: "device.online", patch: { online: true } } })).toBe(
      'id: 7\nevent: device.online\ndata: {"type":"device.online","patch":{"online":true}}\n\n',
    );
    expect(formatSse({ event: "x", data: {} })).toBe("event: x\ndata: {}\n\n");
  });

  it("answer text/event-stream, send what the source writes, and stop the source when it ends the stream", async () => {
    let stopped = 0;
    let writer: SseWriter | undefined;
    const response = await eventStreamResponse(new Request("http://local/api/events"), async (given) => {
      writer = given;
      given.write({ id: 1, event: "a", data: { n: 1 } });
      return () => {
        stopped += 1;
      };
    });
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-store, no-transform");
    writer?.write({ id: 2, event: "b", data: { n: 2 } });
    writer?.end();
    writer?.write({ id: 3, event: "c", data: {} });
    expect(await readAll(response)).toBe(
      'retry: 2000\n: connected\n\nid: 1\nevent: a\ndata: {"n":1}\n\nid: 2\nevent: b\ndata: {"n":2}\n\n',
    );
    expect(stopped).toBe(1);
  });

  it("stop the source when the client goes away, and all of them when the server stops", async () => {
    const abort = new AbortController();
    const stops: string[] = [];
    const open = (name: string) => async () => () => {
      stops.push(name);
    };
    await eventStreamResponse(new Request("http://local/api/events", { signal: abort.signal }), open("gone"));
    const kept = await eventStreamResponse(new Request("http://local/api/events"), open("kept"));
    abort.abort();
    expect(stops).toEqual(["gone"]);
    endEventStreams();
    expect(stops).toEqual(["gone", "kept"]);
    expect(await readAll(kept)).toBe("retry: 2000\n: connected\n\n");
  });

  it("answer HEAD with the headers and an ended body", async () => {
    const response = await eventStreamResponse(
      new Request("http://local/api/events", { method: "HEAD" }),
      async () => () => {},
    );
    expect(await readAll(response)).toBe("retry: 2000\n: connected\n\n");
  });
});
