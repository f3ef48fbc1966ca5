/**
 * Recording a new task's matches in few atomics (docs/alerts.md): the alerts' hash space is cut in
 * halves until each part's matches fit one atomic, and each part is written whole (match keys,
 * events and their jobs) under a check of its marker and its ancestors', so a job run again, two
 * runs at once or a run after a crash mid-way record every part once and skip none.
 */
import { exploreItemOf } from "../../domain/alerts/match.ts";
import { AppError } from "../../domain/errors.ts";
import type { ExploreItem } from "../../domain/explore.ts";
import type { TaskRecord } from "../../domain/tasks/task.ts";
import { newEvent, selects } from "../../domain/webhooks/event.ts";
import { commit, MAX_CHECK_ROUNDS } from "../commit.ts";
import { queueEvent, type Subscription, subscriptionKey } from "../effects.ts";
import { alerts } from "../keyspace.ts";
import { getAll } from "../store/get_all.ts";
import { GETMANY_MAX, KV_LIMITS } from "../store/limits.ts";
import { pendingPurges } from "../users/users.ts";

/** Halvings at most: a part's atomic checks its own marker and each ancestor's. */
const MAX_DEPTH = KV_LIMITS.checks - 1;
/** Markers outlive any run of the job again (a failing job retries every 10 minutes at worst). */
const MARKER_TTL_MS = 30 * 24 * 3600_000;
/** Room kept in every atomic for the markers, and slack on sizes estimated rather than counted. */
const ROOM = { mutations: KV_LIMITS.checks, bytes: 32 * 1024, keyBytes: 4 * 1024 };
/** A match's keys (match, event body, job) and the job's record, over its event's body. */
const PER_MATCH = { keyBytes: 240, bytes: 1024 };
/** Event body bytes per stored part (kv/webhooks/webhook_event_bodies.ts). */
const BODY_PART_BYTES = 60_000;

/** "whole": the part and everything under it is recorded; "split": its halves hold markers. */
type Marker = "whole" | "split";

/** An alert the index matched (its entry is written with its record), and the event's task. */
export interface Match {
  alert: { id: string; userId: string };
  item: ExploreItem;
}

/** What recording a task's matches took. */
export interface RecordedMatches {
  /** Matches written (those of accounts being purged apart). */
  recorded: number;
  events: number;
  commits: number;
  reads: number;
}

const encoder = new TextEncoder();

/** 32 bits of FNV-1a: where an alert sits in the hash space, the same in every run. */
function hashOf(id: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/** Bit `depth` (from the top) of `hash`: which half of a part at that depth it falls in. */
const bitAt = (hash: number, depth: number) => (hash >>> (31 - depth)) & 1;

/** Matches one atomic holds at most for `task`, from the size of its event. */
export function matchesPerAtomic(task: TaskRecord): number {
  const item = { ...exploreItemOf(task), distanceKm: 20_037.51 };
  const sample = newEvent("task.matched", { alertId: crypto.randomUUID(), task: item }, 0);
  const body = encoder.encode(JSON.stringify(sample)).byteLength;
  const mutations = 2 + Math.ceil(body / BODY_PART_BYTES);
  return Math.max(
    1,
    Math.min(
      Math.floor((KV_LIMITS.mutations - ROOM.mutations) / mutations),
      Math.floor((KV_LIMITS.totalBytes - ROOM.bytes) / (body + PER_MATCH.bytes)),
      Math.floor((KV_LIMITS.totalKeyBytes - ROOM.keyBytes) / PER_MATCH.keyBytes),
    ),
  );
}

interface Hashed extends Match {
  hash: number;
}

/** One recording: the task, its markers as last read, and what it cost. */
class Recording {
  readonly markers = new Map<string, Deno.KvEntryMaybe<Marker>>();
  readonly done: RecordedMatches = { recorded: 0, events: 0, commits: 0, reads: 0 };
  /** Accounts being purged: they hear nothing and keep no match. */
  purging = new Set<string>();

  constructor(
    readonly kv: Deno.Kv,
    readonly run: { task: TaskRecord; now: number; perAtomic: number },
  ) {}

  /** The task's markers and the purges under way, read at once (two reads). */
  async readMarkers(): Promise<void> {
    const prefix = alerts.matchPartsPrefix(this.run.task.id);
    const listed = async () => {
      const found: Deno.KvEntry<Marker>[] = [];
      for await (const entry of this.kv.list<Marker>({ prefix })) found.push(entry);
      return found;
    };
    const [markers, purging] = await Promise.all([listed(), pendingPurges(this.kv)]);
    this.markers.clear();
    for (const entry of markers) this.markers.set(entry.key[2] as string, entry);
    this.purging = purging;
    this.done.reads += 2;
  }

  marker(part: string): Deno.KvEntryMaybe<Marker> {
    const key = alerts.matchPart(this.run.task.id, part);
    return this.markers.get(part) ?? { key, value: null, versionstamp: null };
  }

  /** Records what `part` holds unless done; false when a check failed (markers changed). */
  async settle(part: string, matches: Hashed[]): Promise<boolean> {
    if (matches.length === 0) return true;
    const marker = this.marker(part).value;
    if (marker === "whole") return true;
    if (marker === null && matches.length <= this.run.perAtomic) {
      return await this.write(part, matches);
    }
    if (part.length >= MAX_DEPTH) {
      throw new Error(`A task matched more alerts than ${2 ** MAX_DEPTH} atomics can record`);
    }
    const halves: Hashed[][] = [[], []];
    for (const m of matches) halves[bitAt(m.hash, part.length)].push(m);
    return await this.settle(`${part}0`, halves[0]) && await this.settle(`${part}1`, halves[1]);
  }

  /**
   * One atomic: `part`'s matches, each with its event for an owner whose endpoints select it (the
   * owners' subscriptions read first); the part marked whole, its ancestors split.
   */
  async write(part: string, matches: Hashed[]): Promise<boolean> {
    const { kv } = this;
    const { task, now } = this.run;
    const owners = [...new Set(matches.map((m) => m.alert.userId))]
      .filter((userId) => !this.purging.has(userId));
    const read = await getAll<Subscription>(kv, owners.map(subscriptionKey));
    this.done.reads += Math.ceil(read.length / GETMANY_MAX);
    const listens = new Map(owners.map((userId, i) => {
      return [userId, selects(read[i]?.events ?? [], "task.matched")];
    }));
    const op = kv.atomic();
    const marks: Deno.KvEntryMaybe<Marker>[] = [];
    for (let depth = 0; depth <= part.length; depth++) {
      marks.push(this.marker(part.slice(0, depth)));
    }
    for (const mark of marks) op.check(mark);
    for (const mark of marks.slice(0, -1)) {
      if (mark.value !== "split") op.set(mark.key, "split", { expireIn: MARKER_TTL_MS });
    }
    op.set(marks[marks.length - 1].key, "whole", { expireIn: MARKER_TTL_MS });
    let recorded = 0;
    let events = 0;
    for (const { alert: { id: alertId, userId }, item } of matches) {
      const listening = listens.get(userId);
      if (listening === undefined) continue; // being purged
      op.set(alerts.match(alertId, task.orderKey), task.id);
      recorded++;
      if (!listening) continue;
      queueEvent(op, userId, newEvent("task.matched", { alertId, task: item }, now));
      events++;
    }
    const result = await commit(op);
    if (!result.ok) return false;
    this.done.commits++;
    this.done.recorded += recorded;
    this.done.events += events;
    for (const mark of marks) {
      const value: Marker = mark === marks[marks.length - 1] ? "whole" : "split";
      this.markers.set(mark.key[2] as string, {
        key: mark.key,
        value,
        versionstamp: mark.value === value ? mark.versionstamp : result.versionstamp,
      });
    }
    return true;
  }
}

/**
 * Records `task`'s matches (found by the index) once each, with their `task.matched` events,
 * in as few atomics as their size allows. Parts another run recorded are skipped; a check that
 * fails (a run at the same time) reads the markers again and goes on.
 */
export async function recordMatches(
  kv: Deno.Kv,
  run: { task: TaskRecord; matched: Match[]; now: number; perAtomic?: number },
): Promise<RecordedMatches> {
  const perAtomic = run.perAtomic ?? matchesPerAtomic(run.task);
  const recording = new Recording(kv, { task: run.task, now: run.now, perAtomic });
  if (run.matched.length === 0) return recording.done;
  const hashed = run.matched.map((m) => ({ ...m, hash: hashOf(m.alert.id) }));
  for (let round = 0; round < MAX_CHECK_ROUNDS; round++) {
    await recording.readMarkers();
    if (await recording.settle("", hashed)) return recording.done;
  }
  throw new AppError("CONFLICT", "The task's matching changed too often to record");
}
