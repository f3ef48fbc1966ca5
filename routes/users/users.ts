/**
 * Users: sign-up, the public listing, one profile (private for oneself), profile updates and
 * account deletion. Deletion hides the account at once and leaves the clean-up to the queue.
 */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { hashPassword } from "../../domain/users/password.ts";
import {
  editedUser,
  PrivateProfile,
  PublicProfile,
  SignUp,
  toPrivateProfile,
  toPublicProfile,
  UserUpdate,
} from "../../domain/users/user.ts";
import { AppError, notFound } from "../../domain/errors.ts";
import { RatedPrivateProfile, RatedPublicProfile } from "../../domain/reviews/profile.ts";
import { readRating } from "../../kv/reviews/ratings.ts";
import { revokeAllApiKeys } from "../../kv/api_keys/api_keys.ts";
import { cursorPosition, encodeCursor } from "../../kv/cursor.ts";
import { deleteUserSessions } from "../../kv/users/sessions.ts";
import {
  createUser,
  getUser,
  listUsers,
  markUserDeleted,
  updateUser,
} from "../../kv/users/users.ts";
import { principalOf } from "../http/authenticate.ts";
import { originOf } from "../http/request_origin.ts";
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
import { drawPasswordHash } from "../http/rate_limit.ts";

const UserId = z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) });

const signUpRoute = defineRoute("public", {
  method: "post",
  path: "/users",
  tags: ["Users"],
  summary: "Sign up: create an account",
  request: { body: jsonBody(SignUp) },
  responses: {
    201: createdContent(PrivateProfile, "The new account's private profile"),
    ...problems(400, 401, 409, 413, 415, 429),
  },
});

const meRoute = defineRoute({ scope: "profile:read" }, {
  method: "get",
  path: "/users/me",
  tags: ["Users"],
  summary: "The caller's private profile",
  responses: {
    200: jsonContent(RatedPrivateProfile, "The caller's private profile, with their rating"),
    ...problems(401, 403, 429),
  },
});

const listRoute = defineRoute({ scope: "profile:read" }, {
  method: "get",
  path: "/users",
  tags: ["Users"],
  summary: "Public profiles of every user, newest first",
  request: { query: CursorQuery },
  responses: {
    200: cursorPage(PublicProfile, "A page of public profiles"),
    ...problems(400, 401, 403, 429),
  },
});

const getRoute = defineRoute({ scope: "profile:read" }, {
  method: "get",
  path: "/users/{id}",
  tags: ["Users"],
  summary: "A user's public profile; the private one for one's own id",
  request: { params: UserId },
  responses: {
    200: jsonContent(
      z.union([RatedPrivateProfile, RatedPublicProfile]),
      "The private profile for the caller's own id, else the public profile; with the rating",
    ),
    ...problems(401, 403, 404, 429),
  },
});

const updateRoute = defineRoute({ scope: "profile:write" }, {
  method: "put",
  path: "/users/{id}",
  tags: ["Users"],
  summary: "Update one's own name or picture (partial body; null clears)",
  request: { params: UserId, body: jsonBody(UserUpdate) },
  responses: {
    200: jsonContent(PrivateProfile, "The updated private profile"),
    ...problems(400, 401, 403, 404, 413, 415, 429),
  },
});

const deleteRoute = defineRoute("session", {
  method: "delete",
  path: "/users/{id}",
  tags: ["Users"],
  summary: "Delete one's own account: keys and sessions end at once, tasks leave every listing",
  request: { params: UserId },
  responses: {
    200: jsonContent(Message, "Account deleted"),
    ...problems(401, 403, 404, 429),
  },
});

/** Throws unless `targetId` is the caller: 404 when no such user is visible, else 403. */
async function requireSelf(
  kv: Deno.Kv,
  ask: { callerId: string; targetId: string; action: string },
) {
  const { callerId, targetId, action } = ask;
  if (callerId === targetId) return;
  if (!await getUser(kv, targetId)) throw notFound("User");
  throw new AppError("FORBIDDEN", `Only the account's owner may ${action} it`);
}

export function registerUsers(api: OpenAPIHono<AppEnv>) {
  api.openapi(signUpRoute, async (c) => {
    const { kv, settings, now } = c.get("deps");
    const input = c.req.valid("json");
    await drawPasswordHash(c, c.get("deps"));
    const at = new Date(now()).toISOString();
    const user = await createUser(kv, {
      id: crypto.randomUUID(),
      email: input.email,
      firstName: input.firstName,
      lastName: input.lastName ?? null,
      profilePic: input.profilePic ?? null,
      passwordHash: await hashPassword(input.password, settings.PASSWORD_HASH_ITERATIONS),
      createdAt: at,
      updatedAt: at,
      deletedAt: null,
    });
    c.header("Location", `/v1/users/${user.id}`);
    c.header("Cache-Control", "no-store"); // a private profile, sent without a credential
    return c.json(toPrivateProfile(user), 201);
  });

  api.openapi(meRoute, async (c) => {
    const { kv } = c.get("deps");
    const userId = principalOf(c).userId;
    const [user, rating] = await Promise.all([getUser(kv, userId), readRating(kv, userId)]);
    if (!user) throw notFound("User");
    return c.json({ ...toPrivateProfile(user), rating }, 200);
  });

  api.openapi(listRoute, async (c) => {
    const { limit, cursor } = c.req.valid("query");
    // The listing is the same for everyone, but as on every listing a cursor is the caller's own.
    const scope = { list: "users", userId: principalOf(c).userId };
    const before = await cursorPosition(cursor, scope);
    const page = await listUsers(c.get("deps").kv, limit, before ?? undefined);
    setNextPage(c, page.next ? await encodeCursor(page.next, scope) : null);
    return c.json(page.users.map(toPublicProfile), 200);
  });

  api.openapi(getRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { kv } = c.get("deps");
    const [user, rating] = await Promise.all([getUser(kv, id), readRating(kv, id)]);
    if (!user) throw notFound("User");
    const own = principalOf(c).userId === id;
    return c.json({ ...(own ? toPrivateProfile(user) : toPublicProfile(user)), rating }, 200);
  });

  api.openapi(updateRoute, async (c) => {
    const { kv, now, userCache } = c.get("deps");
    const { id } = c.req.valid("param");
    await requireSelf(kv, { callerId: principalOf(c).userId, targetId: id, action: "update" });
    const change = c.req.valid("json");
    const updated = await updateUser(kv, {
      userId: id,
      security: { type: "profile.updated", origin: originOf(c), now: now() },
      change: editedUser(change, new Date(now()).toISOString()),
    });
    userCache.clear(); // at once here; other instances see the change marker move
    if (!updated) throw notFound("User");
    return c.json(toPrivateProfile(updated), 200);
  });

  api.openapi(deleteRoute, async (c) => {
    const { kv, now, apiKeyCache, userCache } = c.get("deps");
    const { id } = c.req.valid("param");
    await requireSelf(kv, { callerId: principalOf(c).userId, targetId: id, action: "delete" });
    const deleted = await markUserDeleted(kv, id, new Date(now()).toISOString());
    userCache.clear();
    if (!deleted) throw notFound("User");
    await revokeAllApiKeys(kv, id, now());
    apiKeyCache.clear();
    await deleteUserSessions(kv, id);
    return c.json({ message: "User deleted" }, 200);
  });
}
