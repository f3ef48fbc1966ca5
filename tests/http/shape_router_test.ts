/**
 * The app's router (routes/router/shape_router.ts) answers every path exactly as Hono's TrieRouter
 * does over the same routes: the same handlers in the same order with the same parameters, for
 * each declared path with every kind of segment in its parameters' places, and for paths no
 * route declares.
 */
import assert from "node:assert/strict";
import type { Params } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import { ShapeRouter } from "../../routes/router/shape_router.ts";
import { setup } from "../helpers.ts";

const METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

/** A segment of every kind a request may put where a route has a parameter or a name. */
const SEGMENTS = [
  crypto.randomUUID(),
  "me",
  "explore",
  "regenerate",
  ":id",
  "*",
  "",
  "a%2Fb",
  "%E2%9C%93",
  "\u0001",
  "\u00013",
  "docs",
  "v1",
];

type Answer = [unknown, Params][];

/** Both answers, parameters as plain objects, so that they compare by value. */
function answers(router: { match(method: string, path: string): unknown }, m: string, p: string) {
  const [matched] = router.match(m, p) as [Answer];
  return matched.map(([handler, params]) => [handler, { ...params }]);
}

/** The app's paths, each with its parameters replaced by every kind of segment in turn. */
function pathsOf(routes: { path: string }[]): string[] {
  const paths = new Set<string>(["/", "//", "/api", "/api/v1", "/api/v1/", "/nowhere/at/all"]);
  for (const { path } of routes) {
    const parts = path.split("/");
    paths.add(path);
    for (const segment of SEGMENTS) {
      paths.add(parts.map((part) => part.startsWith(":") ? segment : part).join("/"));
      paths.add(`${path.replace(/\/\*$/, "")}/${segment}`);
      // One name replaced: what a parameter beside it would take.
      for (let i = 1; i < parts.length; i++) {
        paths.add([...parts.slice(0, i), segment, ...parts.slice(i + 1)].join("/"));
      }
    }
    paths.add(path + "/");
  }
  return [...paths];
}

Deno.test("the shape router answers as the trie router, path by path", async () => {
  await using svc = await setup();
  const trie = new TrieRouter<unknown>();
  const shaped = new ShapeRouter<unknown>();
  for (const route of svc.app.routes) {
    trie.add(route.method, route.path, route.handler);
    shaped.add(route.method, route.path, route.handler);
  }
  const paths = pathsOf(svc.app.routes);
  assert.ok(paths.length > 1000, `${paths.length} paths`);
  for (const path of paths) {
    for (const method of METHODS) {
      // Twice: the first answer fills the shape's memory, the second comes from it.
      for (let round = 0; round < 2; round++) {
        assert.deepEqual(answers(shaped, method, path), answers(trie, method, path), path);
      }
    }
  }
});

Deno.test("a path whose shape was remembered answers with its own parameters", () => {
  const shaped = new ShapeRouter<string>();
  shaped.add("GET", "/users/:id", "user");
  shaped.add("GET", "/users/me", "me");
  shaped.add("ALL", "/users/*", "all");
  const one = answers(shaped, "GET", "/users/a");
  const other = answers(shaped, "GET", "/users/b");
  assert.deepEqual(one, [["user", { id: "a" }], ["all", {}]]);
  assert.deepEqual(other, [["user", { id: "b" }], ["all", {}]]);
  assert.deepEqual(answers(shaped, "GET", "/users/me"), [
    ["user", { id: "me" }],
    ["me", {}],
    ["all", {}],
  ]);
});

Deno.test("routes whose match depends on a segment's text leave every path to the trie", () => {
  const trie = new TrieRouter<string>();
  const shaped = new ShapeRouter<string>();
  for (const router of [trie, shaped]) {
    router.add("GET", "/files/:name{[a-z]+\\.txt}", "text");
    router.add("GET", "/files/:name", "any");
    router.add("GET", "/static/img*", "images");
  }
  for (const path of ["/files/a.txt", "/files/a.png", "/static/img1", "/static/x"]) {
    assert.deepEqual(answers(shaped, "GET", path), answers(trie, "GET", path), path);
  }
});
