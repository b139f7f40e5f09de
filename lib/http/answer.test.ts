import { describe, expect, it } from "vitest";
import { notFound } from "../errors";
import { errorAnswer } from "./answer";

describe("errorAnswer", () => {
  const request = { method: "GET", path: "/api/devices" };

  it("answers a database out of reach with a 503 {message, request_id} and Retry-After", () => {
    const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const wrapped = new Error("Failed query: select 1", { cause: refused });
    expect(errorAnswer(wrapped, request)).toEqual({
      status: 503,
      body: { message: "the database is unavailable; try again shortly", request_id: expect.any(String) },
      headers: { "retry-after": "5" },
    });
  });

  it("keeps an ApiError's own answer and hides anything else behind a 500 with a request id", () => {
    expect(errorAnswer(notFound("device"), request)).toMatchObject({
      status: 404,
      body: { message: "device not found" },
    });
    const answer = errorAnswer(new Error("bug"), request);
    expect(answer.status).toBe(500);
    expect(answer.body).toEqual({ message: "internal server error", request_id: expect.any(String) });
  });
});
