/**
 * Every stored user text refuses C0/C1 controls, bidi embeddings/overrides/isolates, unpaired
 * surrogates and values with nothing visible, with a 400 naming the field; every script, emoji
 * and ZWJ sequences stay allowed.
 */
import assert from "node:assert/strict";
import {
  INVISIBLE_CLASS,
  MULTI_LINE_PATTERN,
  SINGLE_LINE_PATTERN,
  textProblem,
  TRIMMED_CLASS,
} from "../../domain/validation/text.ts";
import { bearer, setup, signUp, type TestContext } from "../helpers.ts";
import { postTask, taskBody } from "../tasks/task_fixtures.ts";

/** Characters no user text may hold, single- or multi-line. */
const FORBIDDEN: Record<string, string> = {
  "NUL": "\u0000",
  "BEL": "\u0007",
  "ESC (terminal escapes)": "\u001b[31m",
  "DEL": "\u007f",
  "C1 NEL": "\u0085",
  "C1 CSI": "\u009b",
  "line separator": "\u2028",
  "LRE": "\u202a",
  "RLO (reverses what follows)": "\u202e",
  "LRI": "\u2066",
  "PDI": "\u2069",
  "lone high surrogate": "\ud83d",
  "lone low surrogate": "\ude00",
  "lone CR": "\r",
};

/** Kept in multi-line texts, refused in one-line texts. */
const LINE_BREAKS: Record<string, string> = { "tab": "\t", "LF": "\n", "CRLF": "\r\n" };

/** Values with nothing a reader can see. */
const INVISIBLE: Record<string, string> = {
  "zero-width space": "\u200b",
  "zero-width joiner": "\u200d\u200d",
  "Hangul filler": "\u3164",
  "word joiner and BOM": "\u2060\ufeff",
  "blank Braille": "\u2800",
  "soft hyphen": "\u00ad",
};

/** Texts from many scripts, emoji and ZWJ sequences: all fine. */
const ALLOWED = [
  "Réparer l'évier",
  "修理厨房水槽",
  "キッチンのシンクを直す",
  "부엌 싱크대 수리",
  "إصلاح الحوض \u200f(عاجل)",
  "תיקון כיור",
  "रसोई का सिंक ठीक करें",
  "ซ่อมอ่างล้างจาน",
  "Ремонт раковины",
  "Επισκευή νεροχύτη",
  "👨‍👩‍👧‍👦 family move",
  "🏳️‍🌈 🏴󠁧󠁢󠁳󠁣󠁴󠁿 👍🏽",
  "e\u0301te\u0301 — “quotes” & 100 %",
  "𝒜 math script",
];

Deno.test("textProblem refuses controls, bidi overrides, lone surrogates and blank text", async (t) => {
  await t.step("in one-line and multi-line texts alike", () => {
    for (const [name, char] of Object.entries(FORBIDDEN)) {
      for (const multiline of [false, true]) {
        assert.match(textProblem(`a${char}b`, multiline) ?? "", /^must not contain/, name);
      }
    }
  });
  await t.step("names the character", () => {
    assert.equal(
      textProblem("a\u202eb", false),
      "must not contain U+202E (a bidirectional control)",
    );
    assert.equal(textProblem("a\u0000b", false), "must not contain U+0000 (a control character)");
    assert.equal(textProblem("a\ud83db", true), "must not contain an unpaired surrogate");
  });
  await t.step("keeps tabs and line breaks in multi-line texts only", () => {
    for (const [name, chars] of Object.entries(LINE_BREAKS)) {
      assert.equal(textProblem(`a${chars}b`, true), null, name);
      assert.match(textProblem(`a${chars}b`, false) ?? "", /^must not contain/, name);
    }
  });
  await t.step("wants something visible", () => {
    for (const [name, text] of Object.entries(INVISIBLE)) {
      assert.equal(textProblem(text, false), "must contain a visible character", name);
    }
    assert.equal(textProblem("", false), null, "empty is for min length to judge");
  });
  await t.step("allows every script, emoji and ZWJ sequences", () => {
    for (const text of ALLOWED) {
      assert.equal(textProblem(text, false), null, text);
      assert.equal(textProblem(`${text}\n\t${text}`, true), null, text);
    }
  });
});

Deno.test("the invisible characters are the runtime's white space, controls and BMP format characters, and the blank glyphs", () => {
  const listed = new RegExp(`[${INVISIBLE_CLASS}]`, "u");
  const tables = /[\s\p{Cc}\p{Cf}\p{Z}\u115f\u1160\u3164\uffa0\u2800]/u;
  for (let code = 0; code <= 0xffff; code++) {
    if (code >= 0xd800 && code <= 0xdfff) continue;
    const char = String.fromCharCode(code);
    assert.equal(listed.test(char), tables.test(char), `U+${code.toString(16)}`);
  }
  const trimmed = new RegExp(`^[${TRIMMED_CLASS}]$`, "u");
  for (let code = 0; code <= 0xffff; code++) {
    const char = String.fromCharCode(code);
    assert.equal(trimmed.test(char), char.trim() === "", `U+${code.toString(16)} and trim`);
  }
});

Deno.test("the OpenAPI patterns say the same as the rule, with or without the u flag", () => {
  const samples = [
    ...Object.values(FORBIDDEN).map((c) => `a${c}b`),
    ...Object.values(LINE_BREAKS).map((c) => `a${c}b`),
    ...ALLOWED,
    "\ud83d\ude00",
    "\ude00\ud83d",
  ];
  for (
    const [source, multiline] of [[SINGLE_LINE_PATTERN, false], [MULTI_LINE_PATTERN, true]] as const
  ) {
    for (const flags of ["", "u"]) {
      const pattern = new RegExp(source, flags);
      for (const text of samples) {
        const ruled = textProblem(text, multiline);
        const characterRule = ruled === null || ruled.startsWith("must contain");
        assert.equal(pattern.test(text), characterRule, `${JSON.stringify(text)} /${flags}`);
      }
    }
  }
});

interface Field {
  /** What is being written, for messages. */
  name: string;
  multiline: boolean;
  /** Sends the value in this field; answers the response. */
  send(value: string): Promise<Response>;
  /** The error path the field is named by. */
  path: string;
}

async function fields(svc: TestContext): Promise<Field[]> {
  const owner = await signUp(svc);
  const applicant = await signUp(svc);
  const task = await postTask(svc, owner.token);
  const keyRes = await svc.request("/api/v1/keys", {
    method: "POST",
    headers: bearer(owner.token),
    json: { name: "k", scopes: ["tasks:read"], expiresInDays: 1 },
  });
  const key = await keyRes.json();
  const projectRes = await svc.request("/api/v1/projects", {
    method: "POST",
    headers: bearer(owner.token),
    json: { name: "p" },
  });
  const project = await projectRes.json();
  let n = 0;
  const send = (method: string, path: string, token: string | null, json: unknown) =>
    svc.request(path, { method, headers: token ? bearer(token) : {}, json });
  const signUpWith = (member: Record<string, string>) =>
    send("POST", "/api/v1/users", null, {
      email: `text${++n}-${crypto.randomUUID()}@example.com`,
      password: "correct horse battery",
      firstName: "Ann",
      ...member,
    });
  const field = (name: string, path: string, multiline: boolean, go: Field["send"]): Field => ({
    name,
    path,
    multiline,
    send: go,
  });
  const location = (name: string) => ({ ...taskBody().location as object, name });
  return [
    field("sign-up firstName", "firstName", false, (v) => signUpWith({ firstName: v })),
    field("sign-up lastName", "lastName", false, (v) => signUpWith({ lastName: v })),
    field(
      "profile firstName",
      "firstName",
      false,
      (v) => send("PUT", `/api/v1/users/${owner.id}`, owner.token, { firstName: v }),
    ),
    field(
      "profile lastName",
      "lastName",
      false,
      (v) => send("PUT", `/api/v1/users/${owner.id}`, owner.token, { lastName: v }),
    ),
    field(
      "task title",
      "title",
      false,
      (v) => send("POST", "/api/v1/tasks", owner.token, taskBody({ title: v })),
    ),
    field(
      "task description",
      "description",
      true,
      (v) => send("POST", "/api/v1/tasks", owner.token, taskBody({ description: v })),
    ),
    field(
      "task requirement",
      "requirement",
      true,
      (v) => send("POST", "/api/v1/tasks", owner.token, taskBody({ requirement: v })),
    ),
    field(
      "task location name",
      "location.name",
      false,
      (v) => send("POST", "/api/v1/tasks", owner.token, taskBody({ location: location(v) })),
    ),
    field(
      "task title, changed",
      "title",
      false,
      (v) => send("PATCH", `/api/v1/tasks/${task.id}`, owner.token, { title: v }),
    ),
    field(
      "task description, changed",
      "description",
      true,
      (v) => send("PATCH", `/api/v1/tasks/${task.id}`, owner.token, { description: v }),
    ),
    field(
      "application message",
      "message",
      true,
      (v) => send("POST", `/api/v1/tasks/${task.id}/applications`, applicant.token, { message: v }),
    ),
    field(
      "project name",
      "name",
      false,
      (v) => send("POST", "/api/v1/projects", owner.token, { name: v }),
    ),
    field(
      "project description",
      "description",
      true,
      (v) => send("PUT", `/api/v1/projects/${project.id}`, owner.token, { description: v }),
    ),
    field("key name", "name", false, (v) =>
      send("POST", "/api/v1/keys", owner.token, {
        name: v,
        scopes: ["tasks:read"],
        expiresInDays: 1,
      })),
    field(
      "key name, changed",
      "name",
      false,
      (v) => send("PATCH", `/api/v1/keys/${key.id}`, owner.token, { name: v }),
    ),
    field(
      "webhook description",
      "description",
      true,
      (v) =>
        send("POST", "/api/v1/webhooks", owner.token, {
          url: "https://93.184.215.14/hooks/tasks",
          events: ["task.created"],
          description: v,
        }),
    ),
  ];
}

async function problemPaths(res: Response): Promise<string[]> {
  const body = await res.json();
  return (body.errors ?? []).map((e: { path: string }) => e.path);
}

Deno.test("every text field answers 400 to control characters and invisible values", async (t) => {
  await using svc = await setup();
  const list = await fields(svc);
  const bad: Record<string, string> = {
    "bidi override": "Invoice \u202egpj.exe",
    "C0 control": "ring\u0007bell",
    "C1 control": "x\u009by",
    "lone surrogate": "half \ud83d here",
    "nothing visible": "\u200b\u200d\u3164",
  };
  for (const f of list) {
    await t.step(f.name, async () => {
      for (const [what, value] of Object.entries(bad)) {
        const res = await f.send(value);
        assert.equal(res.status, 400, `${f.name}: ${what}`);
        assert.ok((await problemPaths(res)).includes(f.path), `${f.name}: ${what} names ${f.path}`);
      }
      const lineBreak = await f.send("two\nlines");
      if (f.multiline) assert.notEqual(lineBreak.status, 400, `${f.name} keeps \\n`);
      else assert.equal(lineBreak.status, 400, `${f.name} is one line`);
      await lineBreak.body?.cancel();
    });
  }
});

Deno.test("text fields keep every script, emoji and ZWJ sequences", async () => {
  await using svc = await setup();
  const owner = await signUp(svc, { firstName: "👩🏽‍💻 Zoë" });
  for (const text of ALLOWED) {
    const res = await svc.request("/api/v1/tasks", {
      method: "POST",
      headers: bearer(owner.token),
      json: taskBody({
        title: text,
        description: `${text}\n\t${text}\r\n${text}`,
        location: { ...taskBody().location as object, name: text },
      }),
    });
    assert.equal(res.status, 201, `${text}: ${await res.clone().text()}`);
    const task = await res.json();
    assert.equal(task.title, text);
    assert.equal(task.description, `${text}\n\t${text}\r\n${text}`);
  }
});
