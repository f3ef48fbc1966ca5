/**
 * Issue 46 #6, found by Schemathesis: an empty-named query parameter (`?=0.0`) was taken with 200
 * where `?zzz=0.0` gets the documented 400 for an undeclared parameter. Both are refused now.
 */
import assert from "node:assert/strict";
import { setup } from "../helpers.ts";

Deno.test("an empty-named query parameter was taken with 200 (issue 46 #6): 400 UNKNOWN_PARAMETER now", async () => {
  await using svc = await setup();
  for (const query of ["?=0.0", "?=", "?limit=5&=1", "?zzz=0.0"]) {
    for (
      const path of [
        "/api/v1/tasks/explore",
        "/v1/users/00000000-0000-4000-8000-000000000000/avatar.svg",
      ]
    ) {
      const res = await svc.request(`${path}${query}`);
      const body = await res.json();
      assert.equal(res.status, 400, `${path}${query}: ${JSON.stringify(body)}`);
      assert.equal(body.code, "UNKNOWN_PARAMETER");
    }
  }
  // No member at all is no parameter: `?&` asks nothing.
  const res = await svc.request("/api/v1/tasks/explore?&");
  assert.equal(res.status, 200);
  await res.body?.cancel();
});
