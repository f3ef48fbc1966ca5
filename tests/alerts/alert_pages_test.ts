/**
 * The alerts' index pages for every family (kv/alerts/pages.ts): geo pages written at once by many
 * alerts lose none (their shard's lock is checked), an alert over every quarter of the world stays
 * within an atomic's 10 checks, and a store filed in layout 1 (list entries, word pages without
 * stamps) is read as such, then brought up to layout 2.
 */
import assert from "node:assert/strict";
import { alertCriteria, AlertFilters, type AlertRecord } from "../../domain/alerts/alert.ts";
import { anchorsOf, taskProbes } from "../../domain/alerts/anchors.ts";
import type { UserRecord } from "../../domain/users/user.ts";
import { findCandidates } from "../../kv/alerts/candidates.ts";
import {
  ALERT_INDEX_LAYOUT,
  legacyPresent,
  lookForLegacyAlerts,
  moveLegacyAlerts,
} from "../../kv/alerts/legacy.ts";
import {
  encodePage,
  PAGE_BYTES,
  pageKey,
  placeOf,
  stampKey,
  type StoredAlert,
  storedAlert,
} from "../../kv/alerts/pages.ts";
import { changeAlert, createAlert, deleteAlert } from "../../kv/alerts/alerts.ts";
import { alerts, users } from "../../kv/keyspace.ts";
import { openTestKv } from "../helpers.ts";
import { indexPlaces } from "./alert_fixtures.ts";

const at = "2026-11-27T00:00:00.000Z";

async function account(kv: Deno.Kv, n: number): Promise<string> {
  const id = `00000000-0000-4000-b000-${n.toString(16).padStart(12, "0")}`;
  const user: UserRecord = {
    id,
    email: `u${n}@example.com`,
    firstName: "U",
    lastName: null,
    profilePic: null,
    passwordHash: "x",
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
  };
  await kv.set(users.record(id), user);
  return id;
}

function alertOf(n: number, userId: string, filters: Record<string, unknown>): AlertRecord {
  return {
    id: `00000000-0000-4000-8000-${n.toString(16).padStart(12, "0")}`,
    userId,
    name: `alert ${n}`,
    filters: AlertFilters.parse(filters),
    enabled: true,
    createdAt: at,
    updatedAt: at,
  };
}

const PARIS = { latitude: 48.85, longitude: 2.35, radiusKm: 5 };
const parisTask = {
  title: "Piano moving",
  description: "A piano to move",
  location: {
    type: "city" as const,
    name: "Paris",
    countryCode: "FR",
    coordinates: [2.3522, 48.8566] as [number, number],
  },
};

Deno.test("geo alerts filed at once share pages and lose none; one over every quarter of the world keeps within 10 checks", async () => {
  await using kv = await openTestKv();
  const created = await Promise.all(Array.from({ length: 12 }, async (_, n) => {
    const userId = await account(kv, n);
    return await createAlert(kv, alertOf(n, userId, { ...PARIS, radiusKm: 5 + n }));
  }));
  const found = await findCandidates(kv, taskProbes(parisTask));
  assert.deepEqual(found.alerts.map((a) => a.id).sort(), created.map((a) => a.id).sort());
  for (const alert of created) {
    const places = await indexPlaces(kv, alert.id);
    assert.equal(places.length, alert.placement!.pages!.length, places.join());
    assert.ok(places.every((p) => p.startsWith("g/")), places.join());
  }
  // Centred where the four quarters meet: its pages take every lock; created, then moved
  // to another such circle and to Paris, each one atomic under the guard's 10 checks.
  const userId = await account(kv, 99);
  const wide = alertOf(99, userId, { latitude: 0.5, longitude: 0.5, radiusKm: 500 });
  await createAlert(kv, wide);
  const quarters = new Set((await indexPlaces(kv, wide.id)).map((p) => p.split(":")[1][0]));
  assert.ok(quarters.size >= 4, [...quarters].join());
  const move = (filters: Record<string, unknown>) =>
    changeAlert(kv, {
      userId,
      alertId: wide.id,
      change: (a) => ({ ...a, filters: AlertFilters.parse(filters) }),
    });
  await move({ latitude: -0.5, longitude: -0.5, radiusKm: 400 });
  await move(PARIS);
  assert.ok((await findCandidates(kv, taskProbes(parisTask))).alerts.some((a) => a.id === wide.id));
});

Deno.test("a geo alert on 31 places whose last pages are full starts new pages, within an atomic's 800 KiB to file, move and delete", async () => {
  await using kv = await openTestKv();
  const userId = await account(kv, 1);
  const wide = alertOf(1, userId, { latitude: 48.85, longitude: 2.35, radiusKm: 500 });
  const places = anchorsOf(alertCriteria(wide.filters)).map(placeOf);
  assert.equal(places.length, 31);
  // Each place's one page nearly full (by alerts on few places, so with no cap of their own).
  for (const [k, place] of places.entries()) {
    const entries: StoredAlert[] = [];
    for (let i = 0; encodePage({ entries }).byteLength < PAGE_BYTES - 600; i++) {
      entries.push(storedAlert({ id: `filler-${k}-${i}`, userId, filters: { payment: "Paid" } }));
    }
    await kv.set(pageKey(place, 0), encodePage({ entries }));
    await kv.set(stampKey(place), { seq: 1, pages: [1] });
  }
  const created = await createAlert(kv, wide);
  assert.ok(created.placement!.pages!.every((p) => p.page === 1), "each on a new page");
  await changeAlert(kv, {
    userId,
    alertId: wide.id,
    change: (a) => ({ ...a, filters: AlertFilters.parse({ ...PARIS, radiusKm: 400 }) }),
  });
  assert.ok(await deleteAlert(kv, userId, wide.id));
  assert.deepEqual(await indexPlaces(kv, wide.id), []);
});

/** Files `alert` as layout 1 did: list entries for names, countries and cells, word pages else. */
async function fileAsLayout1(kv: Deno.Kv, alert: AlertRecord): Promise<void> {
  // Layout 1 stored the filters as given.
  const indexed: StoredAlert = { id: alert.id, userId: alert.userId, filters: alert.filters };
  const placement: { keys: Deno.KvKey[]; word?: { prefix: string; page: number } } = { keys: [] };
  const op = kv.atomic();
  for (const anchor of anchorsOf(alertCriteria(alert.filters))) {
    if (anchor.kind === "word") {
      op.set(alerts.wordPage(anchor.prefix, 0), encodePage({ entries: [indexed] }));
      placement.word = { prefix: anchor.prefix, page: 0 };
      continue;
    }
    const key = anchor.kind === "name"
      ? alerts.byName(anchor.name, alert.id)
      : anchor.kind === "country"
      ? alerts.byCountry(anchor.code, alert.id)
      : anchor.kind === "geo"
      ? alerts.byCell(anchor.layer, anchor.cell, alert.id)
      : null;
    assert.ok(key, anchor.kind);
    op.set(key, indexed);
    placement.keys.push(key);
  }
  op.set(alerts.record(alert.userId, alert.id), { ...alert, placement });
  assert.ok((await op.commit()).ok);
}

Deno.test("a store filed in layout 1 is read as such while an instance knows of it, then brought up to layout 2", async () => {
  await using kv = await openTestKv();
  const userId = await account(kv, 1);
  const old = [
    alertOf(1, userId, { cityName: "Paris" }),
    alertOf(2, userId, { countryCode: "FR" }),
    alertOf(3, userId, PARIS),
    alertOf(4, userId, { search: "piano" }),
  ];
  for (const alert of old) await fileAsLayout1(kv, alert);
  await kv.set(alerts.count(userId), old.length);
  // An entry whose alert is gone: dropped by the move.
  const orphan = alertOf(5, userId, { cityName: "Paris" });
  await kv.set(alerts.byName("paris", orphan.id), { id: orphan.id, userId, filters: {} });
  const fresh = await createAlert(kv, alertOf(6, userId, { cityName: "Paris" }));
  const ids = async () =>
    (await findCandidates(kv, taskProbes(parisTask))).alerts.map((a) => a.id).sort();
  const everyone = [...old.map((a) => a.id), fresh.id].sort();

  // A handle that never looked reads layout 2 only: layout 1's lists and unstamped pages unseen.
  assert.deepEqual(await ids(), [fresh.id]);
  assert.equal(await lookForLegacyAlerts(kv), true);
  assert.deepEqual(await ids(), [...everyone, orphan.id].sort());

  assert.equal(await moveLegacyAlerts(kv), 4, "three alerts moved and the orphan's id tried");
  assert.equal(legacyPresent(kv), false);
  assert.equal((await kv.get(alerts.layout())).value, ALERT_INDEX_LAYOUT);
  for await (const entry of kv.list({ prefix: alerts.legacyRoot() })) {
    assert.fail(`layout 1 entry left: ${String(entry.key)}`);
  }
  assert.deepEqual(await indexPlaces(kv, old[0].id), ["n/paris"]);
  assert.deepEqual(await indexPlaces(kv, old[1].id), ["c/FR"]);
  assert.deepEqual(await indexPlaces(kv, old[3].id), ["w/pia"]);
  assert.ok((await indexPlaces(kv, old[2].id)).every((p) => p.startsWith("g/")));
  assert.deepEqual(await ids(), everyone);
  assert.equal(await lookForLegacyAlerts(kv), false);
  // Moved, an alert's later edit or deletion finds its pages through its record.
  await changeAlert(kv, {
    userId,
    alertId: old[2].id,
    change: (a) => ({ ...a, enabled: false }),
  });
  assert.deepEqual(await indexPlaces(kv, old[2].id), []);
});

Deno.test("workers starting together on a layout 1 store all bring it up, none fails", async () => {
  // `deno task dev` starts a worker per core on one file: each finds the store in layout 1.
  const dir = await Deno.makeTempDir();
  try {
    const path = `${dir}/kv.sqlite3`;
    const old: AlertRecord[] = [];
    {
      await using kv = await openTestKv(path);
      // Layout 1's lists (words were on pages already: fileAsLayout1 writes one alert a page).
      const kinds = [{ cityName: "Paris" }, { countryCode: "FR" }, PARIS];
      for (let a = 0; a < 3; a++) {
        const userId = await account(kv, a + 1);
        for (let i = 0; i < 8; i++) {
          const alert = alertOf(a * 100 + i + 1, userId, kinds[i % kinds.length]);
          await fileAsLayout1(kv, alert);
          old.push(alert);
        }
        await kv.set(alerts.count(userId), 8);
      }
    }
    const workers = await Promise.all([0, 1, 2].map(() => openTestKv(path)));
    try {
      for (const kv of workers) assert.equal(await lookForLegacyAlerts(kv), true);
      await Promise.all(workers.map((kv) => moveLegacyAlerts(kv)));
      for (const kv of workers) assert.equal(await lookForLegacyAlerts(kv), false);
      const found = (await findCandidates(workers[0], taskProbes(parisTask))).alerts.map((a) =>
        a.id
      );
      // The task's city, country and point: every alert is a candidate, each once.
      assert.deepEqual(found.sort(), old.map((a) => a.id).sort());
    } finally {
      for (const kv of workers) kv.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("an alert is filed with its criteria normalized; an entry filed before, with its filters only, is normalized when read", async () => {
  await using kv = await openTestKv();
  const userId = await account(kv, 1);
  // The older shape, as filed before the criteria were stored.
  const older: StoredAlert = {
    id: "00000000-0000-4000-8000-0000000000a1",
    userId,
    filters: { search: "Kitchen Sink", cityName: "Zürich", minBudget: 20 },
  };
  const place = { family: "w" as const, at: "kit" };
  await kv.set(pageKey(place, 0), encodePage({ entries: [older] }));
  await kv.set(stampKey(place), { seq: 1, pages: [1] });
  const newer = await createAlert(kv, alertOf(2, userId, { search: "kitten rescue" }));
  const noWords = await createAlert(kv, alertOf(3, userId, { ...PARIS, payment: "Paid" }));
  const entriesAt = async (key: Deno.KvKey) => {
    const page = await kv.get<Uint8Array>(key);
    return JSON.parse(new TextDecoder().decode(page.value!)).entries as StoredAlert[];
  };
  assert.deepEqual(await entriesAt(pageKey(place, 0)), [
    older,
    { id: newer.id, userId, search: ["kitten", "rescue"] },
  ], "the older entry kept as it was, the new one with its criteria and no filters");
  const cell = placeOf(anchorsOf(alertCriteria(noWords.filters))[0]);
  assert.deepEqual(await entriesAt(pageKey(cell, 0)), [{
    id: noWords.id,
    userId,
    payment: "Paid",
    geo: { lon: PARIS.longitude, lat: PARIS.latitude, radiusKm: PARIS.radiusKm },
  }], "no empty search stored");
  const found = await findCandidates(kv, { names: [], countries: [], geo: [], words: ["kit"] });
  const byId = new Map(found.alerts.map((a) => [a.id, a]));
  assert.deepEqual(byId.get(older.id), {
    id: older.id,
    userId,
    search: ["kitchen", "sink"],
    cityName: "zurich",
    minBudget: 20,
  });
  assert.deepEqual(byId.get(newer.id), { id: newer.id, userId, ...alertCriteria(newer.filters) });
  const [atCell] = (await findCandidates(kv, taskProbes(parisTask))).alerts;
  assert.deepEqual(atCell, { id: noWords.id, userId, ...alertCriteria(noWords.filters) });
});

Deno.test("a page read before another alert's filing, and its stamp after, is not written over it", async () => {
  await using kv = await openTestKv();
  const userId = await account(kv, 1);
  const first = await createAlert(kv, alertOf(1, userId, { cityName: "Paris" }));
  // Another account's: nothing else of the two writes is shared.
  const third = alertOf(3, await account(kv, 2), { cityName: "Paris", payment: "Paid" });
  // A writer whose stamp read comes after its page read and after another alert's commit (two
  // getMany calls, not one reading): the other alert must survive its write.
  let other: Promise<unknown> | null = null;
  let pageRead: Promise<unknown> = Promise.resolve();
  const late = new Proxy(kv, {
    get(target, name) {
      if (name !== "getMany") {
        const value = Reflect.get(target, name);
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (keys: Deno.KvKey[]) => {
        if (keys[0]?.[0] === "alert_pages") return pageRead = target.getMany(keys);
        if (keys[0]?.[0] !== "alert_stamps" || other) return target.getMany(keys);
        other = pageRead.then(() => createAlert(kv, third));
        return other.then(() => target.getMany(keys));
      };
    },
  });
  const second = await createAlert(late, alertOf(2, userId, { cityName: "Paris", minBudget: 5 }));
  assert.ok(other, "the other alert was filed in between");
  const ids = (await findCandidates(kv, taskProbes(parisTask))).alerts.map((a) => a.id).sort();
  assert.deepEqual(ids, [first.id, second.id, third.id].sort());
});
