/** GET /users/:id/avatar.svg: the generated default avatar of a user without a picture. */
import { type OpenAPIHono, z } from "@hono/zod-openapi";
import { avatarSvg } from "../../domain/users/avatar.ts";
import { notFound } from "../../domain/errors.ts";
import { getUser } from "../../kv/users/users.ts";
import { defineRoute, problems } from "../router/define.ts";
import type { AppEnv } from "../router/env.ts";

const avatarRoute = defineRoute("public", {
  method: "get",
  path: "/users/{id}/avatar.svg",
  tags: ["Users"],
  summary: "A generated avatar: the user's initials on a colour derived from the user id",
  request: {
    params: z.object({ id: z.uuid().openapi({ param: { name: "id", in: "path" } }) }),
  },
  responses: {
    200: {
      description: "An SVG image",
      content: { "image/svg+xml": { schema: z.string() } },
    },
    ...problems(401, 404, 429),
  },
});

export function registerAvatar(api: OpenAPIHono<AppEnv>) {
  api.openapi(avatarRoute, async (c) => {
    const user = await getUser(c.get("deps").kv, c.req.valid("param").id);
    if (!user) throw notFound("User");
    return c.body(avatarSvg(user.id, user.firstName, user.lastName), 200, {
      "Content-Type": "image/svg+xml; charset=utf-8",
      "Cache-Control": "public, max-age=3600",
    });
  });
}
