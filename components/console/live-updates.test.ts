import { QueryClient, QueryObserver } from "@tanstack/react-query";
import { describe, expect, it } from "vitest";
import { throttledInvalidator } from "./live-updates";

describe("throttledInvalidator", () => {
  it("fetches again a list whose first fetch was in flight when the event came", async () => {
    const queryClient = new QueryClient();
    const answers = ["before the event", "after the event"];
    let fetches = 0;
    const observer = new QueryObserver(queryClient, {
      queryKey: ["devices", "t", "list"],
      queryFn: () => {
        const answer = answers[fetches++];
        return new Promise<string | undefined>((resolve) => setTimeout(() => resolve(answer), 50));
      },
    });
    const stop = observer.subscribe(() => {});
    try {
      // The event (or the stream's opening) comes while the page's first fetch is on its way.
      await new Promise((resolve) => setTimeout(resolve, 10));
      throttledInvalidator(queryClient)(["devices", "t"]);
      await expect.poll(() => queryClient.getQueryData(["devices", "t", "list"])).toBe("after the event");
      expect(fetches).toBe(2);
    } finally {
      stop();
      queryClient.clear();
    }
  });
});
