/**
 * The write side of the alerts' inverted index (docs/alerts.md): an alert's anchors become its
 * place on one page per anchor (kv/alerts/pages.ts), written in the alert's own atomic.
 */
import { alertCriteria, type AlertRecord } from "../../domain/alerts/alert.ts";
import { anchorsOf } from "../../domain/alerts/anchors.ts";
import { pageCap, type Pages, type Place, placeOf, storedAlert } from "./pages.ts";

/** Where an enabled alert is filed, kept on its record so that a change removes exactly that. */
export interface Placement {
  /** The pages it is on. */
  pages?: { place: Place; page: number }[];
  /** Layout 1: its list entries, removed when it moves (kv/alerts/legacy.ts). */
  keys?: Deno.KvKey[];
  /** Layout 1: its word page, now one of `pages`. */
  word?: { prefix: string; page: number };
}

/** Files an enabled alert in `op` (through `pages`); returns where. */
export async function fileAlert(pages: Pages, alert: AlertRecord): Promise<Placement> {
  const indexed = storedAlert(alert);
  const places = anchorsOf(alertCriteria(alert.filters)).map(placeOf);
  await pages.loadTails(places);
  const filed: Placement["pages"] = [];
  const cap = pageCap(places.length);
  for (const place of places) filed.push({ place, page: await pages.add(place, indexed, cap) });
  return { pages: filed };
}

/** Removes an alert from where it was filed, in `op` (pages through `pages`). */
export async function unfileAlert(
  op: Deno.AtomicOperation,
  pages: Pages,
  alert: { id: string; placement?: Placement },
): Promise<void> {
  const placement = alert.placement;
  if (!placement) return;
  for (const key of placement.keys ?? []) op.delete(key);
  const on = [...placement.pages ?? []];
  if (placement.word) {
    on.push({ place: { family: "w", at: placement.word.prefix }, page: placement.word.page });
  }
  await pages.load(on.flatMap(({ place, page }) => [{ place, n: 0 }, { place, n: page }]));
  for (const { place, page } of on) await pages.remove(place, page, alert.id);
}
