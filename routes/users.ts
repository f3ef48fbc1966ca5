/** Users: sign-up (POST /users) and the caller's own profile (GET /users/me). */
import type { OpenAPIHono } from "@hono/zod-openapi";
import { hashPassword } from "../domain/password.ts";
import { PrivateProfile, SignUp, toPrivateProfile } from "../domain/user.ts";
import { notFound } from "../domain/errors.ts";
import { createUser, getUser } from "../kv/users.ts";
import { principalOf } from "./authenticate.ts";
import { defineRoute, jsonBody, jsonContent, problems } from "./define.ts";
import type { AppEnv } from "./env.ts";

const signUpRoute = defineRoute("public", {
  method: "post",
  path: "/users",
  tags: ["Users"],
  summary: "Sign up: create an account",
  request: { body: jsonBody(SignUp) },
  responses: {
    201: jsonContent(PrivateProfile, "The new account's private profile"),
    ...problems(400, 409, 413, 415, 429),
  },
});

const meRoute = defineRoute({ scope: "profile:read" }, {
  method: "get",
  path: "/users/me",
  tags: ["Users"],
  summary: "The caller's private profile",
  responses: {
    200: jsonContent(PrivateProfile, "The caller's private profile"),
    ...problems(401, 403, 429),
  },
});

export function registerUsers(api: OpenAPIHono<AppEnv>) {
  api.openapi(signUpRoute, async (c) => {
    const { kv, settings, now } = c.var.deps;
    const input = c.req.valid("json");
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
    return c.json(toPrivateProfile(user), 201);
  });

  api.openapi(meRoute, async (c) => {
    const user = await getUser(c.var.deps.kv, principalOf(c).userId);
    if (!user) throw notFound("User");
    return c.json(toPrivateProfile(user), 200);
  });
}
