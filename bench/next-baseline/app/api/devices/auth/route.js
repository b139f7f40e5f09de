// The baseline of bench/heartbeat.ts: a bare Next.js route handler answering the same JSON.
const answer = { uid: "0".repeat(64), token: "x".repeat(300), name: "device", namespace: "bench" };

export async function POST(request) {
  await request.json();
  return Response.json(answer);
}
