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
import { newEvent } from "../../domain/webhooks/event.ts";
import { commit, MAX_CHECK_ROUNDS } from "../commit.ts";
import { raiseEvent, type Subscription, subscriptionKey } from "../effects.ts";
import { logCost } from "../live/event_log.ts";
import { alerts } from "../keyspace.ts";
import { getAll } from "../store/get_all.ts";
import { encodedKeyBytes, encodedValueBytes, GETMANY_MAX, KV_LIMITS } from "../store/limits.ts";
import { pendingPurges } from "../users/users.ts";
import { hearingAmong, hearsMatches, listenersBuilt } from "../webhooks/listeners.ts";

/** Halvings at most: a part's atomic checks its own marker and each ancestor's. */
const MAX_DEPTH = KV_LIMITS.checks - 1;
/** Markers outlive any run of the job again (a failing job retries every 10 minutes at worst). */
const MARKER_TTL_MS = 30 * 24 * 3600_000;
/** An alert's matches are listed this long (docs/alerts.md), then leave by themselves. */
export const MATCH_RETENTION_MS = 90 * 24 * 3600_000;
/** Room kept in every atomic for the markers, and slack on sizes estimated rather than counted. */
const ROOM = { mutations: KV_LIMITS.checks, bytes: 32 * 1024, keyBytes: 4 * 1024 };
/** A match's keys (match, event body, job) and the job's record, over its event's body. */
const PER_MATCH = { keyBytes: 240, bytes: 1024 };
/** Event body bytes per stored part (kv/webhooks/webhook_event_bodies.ts). */
const BODY_PART_BYTES = 60_000;
/** A match's live log keys (its pending entry, its owner's raised mark). */
const LOG_KEY_BYTES = 200;

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

/** What a match adds to an atomic, or what one atomic may hold beside its markers. */
interface Cost {
  mutations: number;
  bytes: number;
  keyBytes: number;
}

const BUDGET: Cost = {
  mutations: KV_LIMITS.mutations - ROOM.mutations,
  bytes: KV_LIMITS.totalBytes - ROOM.bytes,
  keyBytes: KV_LIMITS.totalKeyBytes - ROOM.keyBytes,
};

/**
 * What one match of `task` costs an atomic: its match key and its event in the owner's live log,
 * and with `event` also the event's webhook body and job (the body at its largest), when its
 * owner's endpoints select `task.matched`.
 */
function matchCosts(task: TaskRecord): { event: Cost; plain: Cost } {
  const alertId = crypto.randomUUID();
  const item = { ...exploreItemOf(task), distanceKm: 20_037.51 };
  const sample = newEvent("task.matched", { alertId, task: item }, 0);
  const body = encoder.encode(JSON.stringify(sample)).byteLength;
  const key = encodedKeyBytes(alerts.match(alertId, task.orderKey));
  const logged = logCost(body);
  return {
    event: {
      mutations: 2 + Math.ceil(body / BODY_PART_BYTES) + logged.mutations,
      bytes: body + PER_MATCH.bytes + logged.bytes,
      keyBytes: PER_MATCH.keyBytes + LOG_KEY_BYTES,
    },
    plain: {
      mutations: 1 + logged.mutations,
      bytes: key + encodedValueBytes(task.id) + logged.bytes,
      keyBytes: key + LOG_KEY_BYTES,
    },
  };
}

/** Matches one atomic holds at most for `task` when every one raises an event. */
export function matchesPerAtomic(task: TaskRecord): number {
  const { event } = matchCosts(task);
  return Math.max(
    1,
    Math.min(
      Math.floor(BUDGET.mutations / event.mutations),
      Math.floor(BUDGET.bytes / event.bytes),
      Math.floor(BUDGET.keyBytes / event.keyBytes),
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
  /** Whether each owner's endpoints select `task.matched`, read once for the whole recording. */
  listens: Map<string, boolean> | null = null;
  readonly costs: { event: Cost; plain: Cost };

  constructor(
    readonly kv: Deno.Kv,
    readonly run: { task: TaskRecord; now: number; perAtomic: number; matched: Hashed[] },
  ) {
    this.costs = matchCosts(run.task);
  }

  /**
   * The task's markers and the purges under way (two reads); the first time, with whether each
   * owner hears `task.matched` (its listeners' shard, ten to a `getMany`), all at once.
   */
  async readMarkers(): Promise<void> {
    const prefix = alerts.matchPartsPrefix(this.run.task.id);
    const listed = async () => {
      const found: Deno.KvEntry<Marker>[] = [];
      for await (const entry of this.kv.list<Marker>({ prefix })) found.push(entry);
      return found;
    };
    const subscriptions = async () => {
      if (this.listens) return;
      const owners = [...new Set(this.run.matched.map((m) => m.alert.userId))];
      // By the listeners' shards once this instance knows them complete; else, and for the
      // owners of a shard too full to hold ids, by each owner's subscription.
      const sharded = listenersBuilt(this.kv) ? await hearingAmong(this.kv, owners) : null;
      const unknown = sharded?.unknown ?? owners;
      const read = await getAll<Subscription>(this.kv, unknown.map(subscriptionKey));
      this.done.reads += (sharded?.reads ?? 0) + Math.ceil(read.length / GETMANY_MAX);
      this.listens = sharded?.hears ?? new Map();
      unknown.forEach((userId, i) => this.listens!.set(userId, hearsMatches(read[i]?.events)));
    };
    const [markers, purging] = await Promise.all([
      listed(),
      pendingPurges(this.kv),
      subscriptions(),
    ]);
    this.markers.clear();
    for (const entry of markers) this.markers.set(entry.key[2] as string, entry);
    this.purging = purging;
    this.done.reads += 2;
  }

  marker(part: string): Deno.KvEntryMaybe<Marker> {
    const key = alerts.matchPart(this.run.task.id, part);
    return this.markers.get(part) ?? { key, value: null, versionstamp: null };
  }

  /** True when one atomic holds `matches` with their events (the owners being purged apart). */
  fits(matches: Hashed[]): boolean {
    if (matches.length > this.run.perAtomic) return false;
    const sum: Cost = { mutations: 0, bytes: 0, keyBytes: 0 };
    for (const { alert } of matches) {
      if (this.purging.has(alert.userId)) continue;
      const cost = this.listens!.get(alert.userId) ? this.costs.event : this.costs.plain;
      sum.mutations += cost.mutations;
      sum.bytes += cost.bytes;
      sum.keyBytes += cost.keyBytes;
    }
    return sum.mutations <= BUDGET.mutations && sum.bytes <= BUDGET.bytes &&
      sum.keyBytes <= BUDGET.keyBytes;
  }

  /** Records what `part` holds unless done; false when a check failed (markers changed). */
  async settle(part: string, matches: Hashed[]): Promise<boolean> {
    if (matches.length === 0) return true;
    const marker = this.marker(part).value;
    if (marker === "whole") return true;
    if (marker === null && this.fits(matches)) {
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
   * One atomic: `part`'s matches, each with its event for an owner whose endpoints select it;
   * the part marked whole, its ancestors split.
   */
  async write(part: string, matches: Hashed[]): Promise<boolean> {
    const { kv } = this;
    const { task, now } = this.run;
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
      if (this.purging.has(userId)) continue;
      const listening = this.listens!.get(userId);
      op.set(alerts.match(alertId, task.orderKey), task.id, { expireIn: MATCH_RETENTION_MS });
      recorded++;
      const event = newEvent("task.matched", { alertId, task: item }, now);
      raiseEvent(op, userId, event, { webhooks: listening === true });
      if (listening) events++;
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
  if (run.matched.length === 0) return { recorded: 0, events: 0, commits: 0, reads: 0 };
  const hashed = run.matched.map((m) => ({ ...m, hash: hashOf(m.alert.id) }));
  const perAtomic = run.perAtomic ?? Infinity;
  const recording = new Recording(kv, { task: run.task, now: run.now, perAtomic, matched: hashed });
  for (let round = 0; round < MAX_CHECK_ROUNDS; round++) {
    await recording.readMarkers();
    if (await recording.settle("", hashed)) return recording.done;
  }
  throw new AppError("CONFLICT", "The task's matching changed too often to record");
}
