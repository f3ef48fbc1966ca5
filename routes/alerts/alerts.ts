/**
 * Task alerts under /alerts (docs/contract.md section 17): create, list, get, change, delete, and
 * the tasks an alert matched that are still published.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import {
  AlertCreate,
  AlertPatch,
  type AlertRecord,
  alertTooBroad,
  AlertView,
  editedAlert,
  narrowsByPlaceOrWord,
  toAlertView,
} from "../../domain/alerts/alert.ts";
import { notFound } from "../../domain/errors.ts";
import { ExploreItem } from "../../domain/explore.ts";
import { listMatches } from "../../kv/alerts/matches.ts";
import {
  changeAlert,
  createAlert,
  deleteAlert,
  getAlert,
  listAlerts,
} from "../../kv/alerts/alerts.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import { principalOf } from "../http/authenticate.ts";
import {
  createdContent,
  defineRoute,
  jsonBody,
  jsonContent,
  Message,
  problems,
} from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";
import { cursorPage, CursorQuery, setNextPage } from "../http/paging.ts";

const AlertId = z.object({
  id: z.uuid().openapi({ param: { name: "id", in: "path" } }),
});

const TAGS = ["Alerts"];

const createRouteDef = defineRoute({ scope: "alerts:write" }, {
  method: "post",
  path: "/alerts",
  tags: TAGS,
  summary: "Save explore filters as an alert: matching new tasks raise task.matched",
  description: "At most 20 alerts per account (409 ALERT_LIMIT). `filters` takes explore's " +
    "filters with explore's rules, plus `minBudget`; at least one filter that narrows by place " +
    "or word (search, a circle, cityName, regionName, countryCode): minBudget and payment alone " +
    "get 400 ALERT_TOO_BROAD.",
  request: { body: jsonBody(AlertCreate) },
  responses: {
    201: createdContent(AlertView, "The new alert, enabled"),
    ...problems(400, 401, 403, 409, 413, 415),
  },
});

const listRoute = defineRoute({ scope: "alerts:read" }, {
  method: "get",
  path: "/alerts",
  tags: TAGS,
  summary: "The account's alerts (at most 20), oldest first",
  responses: { 200: jsonContent(z.array(AlertView), "Alerts"), ...problems(401, 403) },
});

const getRoute = defineRoute({ scope: "alerts:read" }, {
  method: "get",
  path: "/alerts/{id}",
  tags: TAGS,
  summary: "One alert",
  request: { params: AlertId },
  responses: { 200: jsonContent(AlertView, "The alert"), ...problems(401, 403, 404) },
});

const patchRoute = defineRoute({ scope: "alerts:write" }, {
  method: "patch",
  path: "/alerts/{id}",
  tags: TAGS,
  summary: "Rename an alert, replace its filters, or switch it off or on",
  description: "`filters`, when given, replaces the alert's filters whole. A disabled alert " +
    "matches nothing; tasks published while it was off are not matched later. New filters that " +
    "do not narrow by place or word get 400 ALERT_TOO_BROAD.",
  request: { params: AlertId, body: jsonBody(AlertPatch) },
  responses: {
    200: jsonContent(AlertView, "The alert as changed"),
    ...problems(400, 401, 403, 404, 413, 415),
  },
});

const deleteRoute = defineRoute({ scope: "alerts:write" }, {
  method: "delete",
  path: "/alerts/{id}",
  tags: TAGS,
  summary: "Delete an alert and its matches",
  request: { params: AlertId },
  responses: { 200: jsonContent(Message, "Alert deleted"), ...problems(401, 403, 404) },
});

const matchesRoute = defineRoute({ scope: "alerts:read" }, {
  method: "get",
  path: "/alerts/{id}/matches",
  tags: TAGS,
  summary: "Tasks the alert matched that are still published, newest first (cursor paging)",
  description: "Items are explore items (`distanceKm` from the alert's circle on a geo alert). " +
    "A page may hold fewer items than `limit` while `X-Next-Cursor` is present: matched tasks " +
    "completed or deleted since are left out.",
  request: { params: AlertId, query: CursorQuery },
  responses: {
    200: cursorPage(ExploreItem, "One page of matched tasks"),
    ...problems(400, 401, 403, 404),
  },
});

const iso = (ms: number) => new Date(ms).toISOString();

export function registerAlerts(api: OpenAPIHono<AppEnv>) {
  api.openapi(createRouteDef, async (c) => {
    const { kv, now } = c.get("deps");
    const input = c.req.valid("json");
    if (!narrowsByPlaceOrWord(input.filters)) throw alertTooBroad();
    const at = iso(now());
    const alert: AlertRecord = {
      id: crypto.randomUUID(),
      userId: principalOf(c).userId,
      name: input.name,
      filters: input.filters,
      enabled: true,
      createdAt: at,
      updatedAt: at,
    };
    const stored = await createAlert(kv, alert);
    c.header("Location", `/api/v1/alerts/${alert.id}`);
    return c.json(toAlertView(stored), 201);
  });

  api.openapi(listRoute, async (c) => {
    const found = await listAlerts(c.get("deps").kv, principalOf(c).userId);
    return c.json(found.map(toAlertView), 200);
  });

  api.openapi(getRoute, async (c) => {
    const alert = await getAlert(c.get("deps").kv, principalOf(c).userId, c.req.valid("param").id);
    if (!alert) throw notFound("Alert");
    return c.json(toAlertView(alert), 200);
  });

  api.openapi(patchRoute, async (c) => {
    const { kv, now } = c.get("deps");
    const patch = c.req.valid("json");
    if (patch.filters && !narrowsByPlaceOrWord(patch.filters)) throw alertTooBroad();
    const changed = await changeAlert(kv, {
      userId: principalOf(c).userId,
      alertId: c.req.valid("param").id,
      change: editedAlert(patch, iso(now())),
    });
    return c.json(toAlertView(changed), 200);
  });

  api.openapi(deleteRoute, async (c) => {
    const deleted = await deleteAlert(
      c.get("deps").kv,
      principalOf(c).userId,
      c.req.valid("param").id,
    );
    if (!deleted) throw notFound("Alert");
    return c.json({ message: "Alert deleted" }, 200);
  });

  api.openapi(matchesRoute, async (c) => {
    const { kv } = c.get("deps");
    const { id } = c.req.valid("param");
    const { limit, cursor } = c.req.valid("query");
    const alert = await getAlert(kv, principalOf(c).userId, id);
    if (!alert) throw notFound("Alert");
    const scope = { listing: "alert_matches", alertId: id };
    const before = await cursorPosition(cursor, scope);
    const page = await listMatches(kv, { alert, limit, before: before ?? undefined });
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.items, 200);
  });
}
