/** The typed twin of the README walkthrough runs as written against `deno task dev`. */
import assert from "node:assert/strict";
import {
  bareEnv,
  denoCommand,
  root,
  stopMain,
  taskCommand,
  waitForListening,
} from "../processes/main_process.ts";

Deno.test("client/examples/walkthrough.ts runs as written against deno task dev", async () => {
  const cwd = await Deno.makeTempDir();
  const child = taskCommand("dev", cwd, bareEnv({ PORT: "0", WORKERS: "2" })).spawn();
  const { port, rest } = await waitForListening(child);
  try {
    // As a user runs it: its own process, only the service's address given.
    const run = await denoCommand(
      [
        "run",
        `--config=${root}deno.json`,
        "--allow-net=localhost",
        `${root}client/examples/walkthrough.ts`,
        `http://localhost:${port}`,
      ],
      cwd,
      bareEnv(),
    ).output();
    const out = new TextDecoder().decode(run.stdout);
    assert.equal(run.code, 0, new TextDecoder().decode(run.stderr));
    assert.match(out, /^signed in as ada@example\.com$/m);
    assert.match(out, /^second application: 409 ALREADY_APPLIED$/m);
    assert.match(out, /^application from [0-9a-f-]{36} pending$/m);
    assert.match(out, /^accepted 1 spots left 1$/m);
    assert.match(out, /^nearest: Move a piano [\d.]+ km$/m);
    assert.match(out, /^map: FeatureCollection 1 feature\(s\) at \[ 2\.3522, 48\.8566 \]$/m);
    assert.match(out, /^task cancelled found_someone_else$/m);
    assert.match(out, /^Bob's application cancelled$/m);
    assert.match(out, /^history: created, application_accepted, cancelled$/m);
    assert.match(out, /^conversation with Bob unread 1$/m);
    assert.match(out, /^unread after reading 0$/m);
  } finally {
    const { status } = await stopMain(child, rest);
    assert.equal(status.code, 0);
    await Deno.remove(cwd, { recursive: true });
  }
});
