/**
 * A seeded run of cancellations racing applications, acceptances, declines, withdrawals, edits
 * and completions, a few moves at once on one hot task, through any number of service instances
 * (in-process or real processes): the callers give the transport, the checks after each round.
 */
import assert from "node:assert/strict";
import { seededRandom } from "../../scripts/seeded_random.ts";
import { taskBody } from "../tasks/task_fixtures.ts";

export interface Answer {
  status: number;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Sends one request through member `member` of the instances, as `token`. */
export type Send = (
  member: number,
  request: { method: string; path: string; token: string; json?: unknown },
) => Promise<Answer>;

export interface Person {
  id: string;
  token: string;
}

/** What the run did, counted from the answers, for checks against the store afterwards. */
export interface Tally {
  /** Task id to its owner. */
  tasks: Map<string, Person>;
  /** Acceptances answered 200, by task. */
  accepted: Map<string, number>;
  /** Answers by move and status, to see that the races happened. */
  answers: Map<string, number>;
}

interface App {
  id: string;
  taskId: string;
  applicant: Person;
  /** As the answers left it: false once declined or withdrawn. */
  open: boolean;
}

/** Explore's search word of the run's tasks, so that checks list exactly them. */
export const SCENARIO_WORD = "scenariojob";

/**
 * Runs `rounds` rounds of `parallel` moves at once. Every answer is one the contract allows for
 * that move (never a 5xx); `afterRound` runs once a round's moves have all answered.
 */
export async function runScenario(options: {
  seed: number;
  people: Person[];
  send: Send;
  rounds: number;
  parallel: number;
  afterRound: (round: number, tally: Tally) => Promise<void>;
}): Promise<Tally> {
  const { seed, people, send, parallel } = options;
  const rnd = seededRandom(seed);
  const pick = <T>(items: T[]): T => items[Math.floor(rnd() * items.length)];
  const tally: Tally = { tasks: new Map(), accepted: new Map(), answers: new Map() };
  const apps: App[] = [];
  let member = 0;
  const call = async (move: string, request: Parameters<Send>[1], allowed: number[]) => {
    const answer = await send(member++, request);
    const label = `seed ${seed}: ${move} ${request.method} ${request.path}`;
    assert.ok(allowed.includes(answer.status), `${label}: ${JSON.stringify(answer.body)}`);
    const key = `${move} ${answer.status}${answer.body?.code ? ` ${answer.body.code}` : ""}`;
    tally.answers.set(key, (tally.answers.get(key) ?? 0) + 1);
    return answer;
  };
  const newTask = async () => {
    const owner = pick(people);
    const res = await call("create", {
      method: "POST",
      path: "/api/v1/tasks",
      token: owner.token,
      json: taskBody({
        title: `${SCENARIO_WORD} ${tally.tasks.size}`,
        maxPeople: 1 + Math.floor(rnd() * 3),
      }),
    }, [201]);
    tally.tasks.set(res.body.id, owner);
    return res.body.id as string;
  };
  const ownerOf = (taskId: string) => tally.tasks.get(taskId)!;
  const closed = new Set<string>();
  const openApp = (taskId: string) => pick(apps.filter((a) => a.taskId === taskId && a.open));
  const moves: Record<string, (taskId: string) => Promise<void>> = {
    async apply(taskId) {
      const applicant = pick(people.filter((p) => p.id !== ownerOf(taskId).id));
      const res = await call("apply", {
        method: "POST",
        path: `/api/v1/tasks/${taskId}/applications`,
        token: applicant.token,
        json: { message: "I can" },
      }, [201, 404, 409]);
      if (res.status === 201) apps.push({ id: res.body.id, taskId, applicant, open: true });
    },
    async accept(taskId) {
      const app = openApp(taskId);
      if (!app) return;
      const res = await call("accept", {
        method: "PATCH",
        path: `/api/v1/applications/${app.id}`,
        token: ownerOf(taskId).token,
        json: { status: "accepted" },
      }, [200, 409]);
      if (res.status === 200) tally.accepted.set(taskId, (tally.accepted.get(taskId) ?? 0) + 1);
    },
    async decline(taskId) {
      const app = openApp(taskId);
      if (!app) return;
      const res = await call("decline", {
        method: "PATCH",
        path: `/api/v1/applications/${app.id}`,
        token: ownerOf(taskId).token,
        json: { status: "declined" },
      }, [200, 409]);
      if (res.status === 200) app.open = false;
    },
    async withdraw(taskId) {
      const app = openApp(taskId);
      if (!app) return;
      const res = await call("withdraw", {
        method: "PATCH",
        path: `/api/v1/applications/${app.id}`,
        token: app.applicant.token,
        json: { status: "withdrawn" },
      }, [200, 409]);
      if (res.status === 200) app.open = false;
    },
    async edit(taskId) {
      await call("edit", {
        method: "PATCH",
        path: `/api/v1/tasks/${taskId}`,
        token: ownerOf(taskId).token,
        json: { maxPeople: 1 + Math.floor(rnd() * 4), budget: Math.floor(rnd() * 100) },
      }, [200, 409]);
    },
    async complete(taskId) {
      const res = await call("complete", {
        method: "PATCH",
        path: `/api/v1/tasks/${taskId}`,
        token: ownerOf(taskId).token,
        json: { status: "completed" },
      }, [200, 409]);
      if (res.status === 200) closed.add(taskId);
    },
    async cancel(taskId) {
      const res = await call("cancel", {
        method: "POST",
        path: `/api/v1/tasks/${taskId}/cancel`,
        token: ownerOf(taskId).token,
        json: { reason: pick(["no_longer_needed", "found_someone_else", "other"]) },
      }, [200, 409]);
      if (res.status === 200) closed.add(taskId);
    },
  };
  // How often each move is drawn: applications and acceptances fill a task before it closes.
  const weights: [string, number][] = [
    ["apply", 5],
    ["accept", 4],
    ["withdraw", 2],
    ["decline", 1],
    ["edit", 2],
  ];
  const total = weights.reduce((sum, [, w]) => sum + w, 0);
  const draw = () => {
    let at = rnd() * total;
    for (const [name, w] of weights) if ((at -= w) < 0) return name;
    return weights[0][0];
  };
  for (let i = 0; i < 3; i++) await newTask();
  for (let round = 0; round < options.rounds; round++) {
    // One open task takes most of a round's moves, so that they race on its record.
    const open = [...tally.tasks.keys()].filter((id) => !closed.has(id));
    const hot = open.length === 0 || rnd() < 0.15 ? await newTask() : pick(open);
    const chosen = Array.from({ length: parallel }, () => draw());
    // A task lives a few rounds: then a cancellation (the point of the run) or a completion races
    // the round's other moves, now and then two closings at once.
    const closing = rnd();
    if (closing < 0.3) chosen[0] = "cancel";
    else if (closing < 0.38) chosen[0] = "complete";
    if (rnd() < 0.1) chosen[1] = rnd() < 0.5 ? "cancel" : "complete";
    await Promise.all(
      chosen.map((name) => moves[name](rnd() < 0.85 ? hot : pick([...tally.tasks.keys()]))),
    );
    await options.afterRound(round, tally);
  }
  return tally;
}
