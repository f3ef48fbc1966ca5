import assert from "node:assert/strict";
import { Settings } from "../../domain/settings.ts";
import { bareEnv, root, stopMain, taskCommand, waitForListening } from "./main_process.ts";

function has(command: string): boolean {
  try {
    return new Deno.Command(command, { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
}

/** The shell block of the README's "A first session with curl". */
function walkthrough(): string {
  const readme = Deno.readTextFileSync(`${root}README.md`);
  const section = readme.slice(readme.indexOf("## A first session with curl"));
  const match = /```sh\n([\s\S]*?)```/.exec(section);
  if (!match) throw new Error("README.md has no curl walkthrough");
  return match[1];
}

Deno.test({
  name: "the README's curl walkthrough works as written against its run command, deno task dev",
  ignore: !has("curl") || !has("bash"),
  async fn() {
    const cwd = await Deno.makeTempDir();
    // Every worker of the README's command, on one store: the walkthrough's requests land on
    // either, and each must see what the other wrote.
    const child = taskCommand("dev", cwd, bareEnv({ PORT: "0", WORKERS: "2" })).spawn();
    const { port, rest } = await waitForListening(child);
    try {
      // The walkthrough is run as written; only the port differs from the default 8000.
      const script = walkthrough().replaceAll("localhost:8000", `localhost:${port}`);
      const run = await new Deno.Command("bash", {
        args: ["-euo", "pipefail", "-c", script],
        stdout: "piped",
        stderr: "piped",
      }).output();
      const out = new TextDecoder().decode(run.stdout);
      assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
      const profiles = out.match(/"email":"ada@example.com"/g) ?? [];
      assert.equal(profiles.length, 3, `sign-up and both calls with the key answer:\n${out}`);
      assert.doesNotMatch(out, /"code":/, "no step answered an error");
      assert.match(out, /"status":"accepted"/, "Ada accepted Bob's application");
      assert.match(out, /"acceptedCount":1,"spotsLeft":1/);
      assert.match(out, /"type":"FeatureCollection"/, "the map answer is GeoJSON");
      assert.match(out, /"rating":5,"comment":"Careful","createdAt":"[^"]+","visible":false/);
      assert.match(out, /"rating":4,"comment":null,"createdAt":"[^"]+","visible":true/);
      assert.match(
        out,
        /"taskTitle":"Move a piano","reviewerId":"[^"]+","reviewerFirstName":"Ada"/,
      );
      assert.match(out, /"rating":\{"average":5,"count":1\}/, "Bob's rating shows");
      assert.match(
        out,
        /"counterpart":\{"id":"[^"]+","firstName":"Bob"\},"lastMessage":\{[^}]*"body":"Which door is it\?"[^}]*\},"unread":1/,
        "Ada's conversations show Bob's message unread",
      );
      assert.match(out, /"body":"The blue one","createdAt":"[^"]+"\}/, "Ada's reply");
      assert.match(out, /\{"unread":0\}/, "read up to Bob's message");
      assert.match(
        out,
        /"status":"cancelled"[^]*"cancellation":\{"reason":"found_someone_else","note":null\}/,
        "Ada cancelled the piano tuning",
      );
      assert.match(
        out,
        /\[\{"at":"[^"]+","type":"created","actorId":"[^"]+"\},\{"at":"[^"]+","type":"cancelled","actorId":"[^"]+"\}\]/,
        "its history: created, then cancelled",
      );
    } finally {
      const { status } = await stopMain(child, rest);
      assert.equal(status.code, 0);
      await Deno.remove(cwd, { recursive: true });
    }
  },
});

Deno.test("the README's settings table names every setting the service reads", () => {
  const readme = Deno.readTextFileSync(`${root}README.md`);
  const documented = new Set([...readme.matchAll(/^\| `([A-Z_]+)` /gm)].map((m) => m[1]));
  const read = Object.keys(Settings.shape);
  assert.deepEqual(read.filter((name) => !documented.has(name)), []);
});

Deno.test("the README names the test prerequisites beside deno task test", () => {
  const readme = Deno.readTextFileSync(`${root}README.md`);
  assert.ok(readme.split("\n").length < 200, "README under 200 lines");
  const start = readme.slice(readme.indexOf("## Start here"));
  const table = start.indexOf("| run the tests");
  assert.ok(table > 0, "the Start here table runs the tests");
  // The paragraph right after the table.
  const afterTable = start.slice(start.indexOf("\n\n", table) + 2);
  const paragraph = afterTable.slice(0, afterTable.indexOf("\n\n"));
  assert.match(paragraph, /deno task test/);
  assert.match(paragraph, /Deno 2\.9\.6/);
  assert.match(paragraph, /`chromium`/);
  assert.match(paragraph, /CHROMIUM_PATH/);
  assert.match(paragraph, /root/);
  assert.match(paragraph, /full-disk/);
});
