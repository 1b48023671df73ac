import { test, expect } from "@playwright/test";

test("checkout creates an order", async ({ request }) => {
  const response = await request.post("/orders");
  expect(response.status()).toBe(201);
});
