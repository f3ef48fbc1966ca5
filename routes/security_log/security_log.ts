/** GET /security-log: the caller's own security events, newest first, cursor paging. */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { SecurityLogEntry } from "../../domain/security_log.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import { listSecurityLog } from "../../kv/security_log.ts";
import { principalOf } from "../http/authenticate.ts";
import { defineRoute, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";

// Session only, as key management is: the log shows where the account signs in from, which a
// leaked API key should not reveal.
const listRoute = defineRoute("session", {
  method: "get",
  path: "/security-log",
  tags: ["Security log"],
  summary: "The account's sign-ins, credential, webhook and profile changes (90 days)",
  request: { query: CursorQuery },
  responses: {
    200: cursorPage(SecurityLogEntry, "One page of entries, newest first"),
    ...problems(400, 401, 403),
  },
});

export function registerSecurityLog(api: OpenAPIHono<AppEnv>) {
  api.openapi(listRoute, async (c) => {
    const userId = principalOf(c).userId;
    const query = c.req.valid("query");
    const scope = { listing: "security_log", userId };
    const before = await cursorPosition(query.cursor, scope);
    const page = await listSecurityLog(c.get("deps").kv, userId, {
      limit: query.limit,
      before: before ?? undefined,
    });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.entries, 200);
  });
}
