import { setFlagsFromString } from "node:v8";

// V8 moves an allocation site's objects straight to the old generation once most of them outlive
// a young-generation collection ("pretenuring"). Under a burst of requests it takes that decision
// for the sites of every request (the incoming message, its body, the parsed JSON, the answer),
// and keeps it: each heartbeat then left about 4 KB to the old generation, every young collection
// took 6-17 ms instead of 2, and a major collection came every 20 s with 65 ms of marking on the
// main thread. Its requests live milliseconds; the young generation is where they belong
// (docs/performance.md). Imported first by server.ts, before the modules that allocate.
setFlagsFromString("--no-allocation-site-pretenuring");
