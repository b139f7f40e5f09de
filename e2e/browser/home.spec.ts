import { expect, test } from "@playwright/test";

test("the home page shows the version and the endpoints", async ({ page, request }) => {
  const info = await (await request.get("/info")).json();
  await page.goto("/");
  await expect(page.getByRole("heading", { name: "Device access service" })).toBeVisible();
  await expect(page.getByText(info.version, { exact: true })).toBeVisible();
  await expect(page.getByText(info.endpoints.api, { exact: true })).toBeVisible();
  await expect(page.getByText(info.endpoints.ssh, { exact: true })).toBeVisible();
});

test("the OpenAPI link leads to the generated document", async ({ page }) => {
  await page.goto("/");
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.url().endsWith("/api/openapi.json")),
    page.getByRole("link", { name: "/api/openapi.json" }).click(),
  ]);
  expect(response.status()).toBe(200);
  const document = await response.json();
  expect(document.openapi).toBe("3.0.3");
  expect(document.paths["/api/login"].post.operationId).toBe("login");
});
