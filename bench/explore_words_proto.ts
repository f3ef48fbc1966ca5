/**
 * `deno task bench:explore-words [--sizes=20000,100000] [--queries=100] [--epochs=7,30,91]`: a
 * word index split by epoch (issue 28), measured on a model, not built: what a first page's word
 * search reads per kind under layout 8 and under epochs of each size, and what its counters cost.
 * Layout 8's modelled reads are checked against the same pages run on the cached store, if any.
 */
import { exploreFilters } from "../domain/explore.ts";
import { INDEX_LAYOUT } from "../kv/tasks/index_layout.ts";
import { readManifest } from "./explore_cache.ts";
import { COMMON_WORDS, RARE_WORDS } from "./explore_data_words.ts";
import { everydayTask } from "./everyday_data.ts";
import { queryKinds } from "./explore_data_queries.ts";
import {
  buildIndex,
  counterKeys,
  docsScan,
  NEED,
  type Reads,
  type WordIndex,
  wordSize,
} from "./explore_words_model.ts";
import { epochReads, todayReads } from "./explore_words_reads.ts";
import { measure, type Query } from "./explore_words_measure.ts";
import { FIRST_BATCH } from "../kv/explore/scan/stream.ts";
import { DOC_COST, LIST_COST } from "../kv/explore/scan/work.ts";
import { DOCS_TRIP_COST } from "../kv/explore/plan/price.ts";
import { loadAverage, markdownTable, writeResults } from "./results.ts";
import { numberFlag } from "./flags.ts";
import { indexCovers } from "../kv/explore/index/indexed_words.ts";

const KINDS = ["search, rare word", "search, common word", "geo 100 km + search + payment"];
const GEO_WORDS = ["mov", "paint", "garden", "clean", "help"];
/** Layout 8's mutations a create writes (bench/results/explore_layout_8.md, everyday tasks). */
const LAYOUT_8_MUTATIONS = 52;
const LAYOUT_8_WORDS = 18.2;
const LAYOUT_8_ENTRIES = 29.8;
const EVERYDAY = 10_000;

function listFlag(name: string, fallback: number[]): number[] {
  const arg = Deno.args.find((a) => a.startsWith(`--${name}=`));
  return arg ? arg.slice(name.length + 3).split(",").map(Number) : fallback;
}

const mean = (rows: Reads[], f: (r: Reads) => number) =>
  rows.reduce((n, r) => n + f(r), 0) / Math.max(1, rows.length);

const f0 = (v: number) => v.toFixed(0);
const f1 = (v: number) => v.toFixed(1);
/** dictionary + word entries (= their sum), documents, lists */
const cell = (dict: number, entries: number, docs: number, lists: number) =>
  `${f0(dict)} + ${f0(entries)} = **${f0(dict + entries)}**, ${f0(docs)}, ${f1(lists)}`;

function modelRows(
  ix: WordIndex,
  kinds: Map<string, Query[]>,
  { epochs, phases }: { epochs: number[]; phases: number },
) {
  const rows: string[][] = [];
  for (const [name, queries] of kinds) {
    const prefixOf = (q: Query) => q.search!.toLowerCase();
    const filtersOf = (q: Query) => exploreFilters(q);
    const common = name === "search, common word";
    const today = queries.map((q) => {
      const reads = todayReads(ix, filtersOf(q), prefixOf(q));
      return common ? docsScan(ix, filtersOf(q), reads.dict) : reads;
    });
    const row = [
      name,
      cell(
        mean(today, (r) => r.dict),
        mean(today, (r) => r.entries),
        mean(today, (r) => r.docs),
        mean(today, (r) => r.lists),
      ),
    ];
    for (const days of epochs) {
      for (const counters of ["zone", "total"] as const) {
        // Every query at each phase: "now" anywhere in the newest epoch, evenly.
        const runs = queries.flatMap((q) =>
          Array.from({ length: phases }, (_, k) => ({ q, phase: k / phases }))
        );
        const reads = runs.map(({ q, phase }) => {
          const word = epochReads(ix, filtersOf(q), {
            prefix: prefixOf(q),
            days,
            counters,
            phase,
          });
          if (!common) return word;
          // The planner's price of the word driver against the documents scan it keeps today.
          const wordCost = word.entries + NEED * DOC_COST +
            (word.lists - 1) * (LIST_COST + FIRST_BATCH) + DOCS_TRIP_COST;
          const scan = docsScan(ix, filtersOf(q), word.dict);
          return wordCost < scan.docs + 2 * LIST_COST ? word : scan;
        });
        row.push(cell(
          mean(reads, (r) => r.dict),
          mean(reads, (r) => r.entries),
          mean(reads, (r) => r.docs),
          mean(reads, (r) => r.lists),
        ));
      }
    }
    rows.push(row);
  }
  return rows;
}

async function main() {
  const sizes = listFlag("sizes", [20_000, 100_000]);
  const count = numberFlag("queries", 100);
  const epochs = listFlag("epochs", [7, 30, 91]);
  const phases = numberFlag("phases", 6);
  // A query word the index does not cover (`help`, `the`: function or very common words) is
  // driven by the documents or the geo cells, which epochs do not change: left out.
  const kinds = new Map(
    queryKinds(count).filter((k) => KINDS.includes(k.name)).map((k) => [
      k.name,
      k.queries.filter((q) => indexCovers(q.search!.toLowerCase())),
    ]),
  );
  const prefixes = [...RARE_WORDS, ...COMMON_WORDS, ...GEO_WORDS];
  const sections: string[] = [];
  const keyRows: string[][] = [];
  for (const n of sizes) {
    const started = performance.now();
    const ix = buildIndex(n, prefixes, epochs, console.error);
    console.error(`${n}: modelled in ${((performance.now() - started) / 1000).toFixed(0)} s`);
    const head = ["kind", "layout 8, model"];
    for (const d of epochs) {
      head.push(`${d} d, (word, epoch, zone)`, `${d} d, (word, zone) + (word, epoch)`);
    }
    const rows = modelRows(ix, kinds, { epochs, phases });
    const validation: string[][] = [];
    if (await readManifest(n)) {
      const measured = await measure(n, kinds);
      for (const row of rows) {
        const m = measured.get(row[0])!;
        validation.push([row[0], row[1], cell(m.dict, m.entries, m.docs, m.lists), f0(m.other)]);
      }
    }
    const rare = RARE_WORDS.map((w) => wordSize(ix, w));
    sections.push(
      `### ${n.toLocaleString("en")} tasks (a rare word: ${
        f0(mean(rare.map((e) => ({ dict: e, entries: 0, docs: 0, lists: 0, refills: 0 })), (r) =>
          r.dict))
      } entries)`,
      "",
      markdownTable(head, rows),
      "",
      validation.length === 0
        ? "No cached store at this size: the model is not checked here."
        : "Layout 8's model against the same pages on the cached store (`exploreTasks`, warm handle; other: entries of other families, counters included):\n\n" +
          markdownTable(["kind", "model", "measured", "other"], validation),
      "",
    );
    keyRows.push([
      n.toLocaleString("en"),
      f1(ix.wordsPerTask),
      String(ix.keys.zone),
      ...epochs.map((_, k) =>
        `${ix.keys.epochZone[k]} (${f1(ix.keys.epochZone[k] / ix.keys.zone)}x)`
      ),
      ...epochs.map((_, k) => String(ix.keys.epochTotal[k])),
    ]);
  }
  const keys = markdownTable(
    [
      "tasks",
      "indexed words a task",
      "(word, zone) keys, layout 8",
      ...epochs.map((d) => `(word, epoch, zone), ${d} d`),
      ...epochs.map((d) => `(word, epoch), ${d} d`),
    ],
    keyRows,
  );
  // bench:layout's store: 10,000 everyday tasks over 30 days, 29.8 entries a task at layout 8.
  const everyday = counterKeys(
    (function* () {
      for (let i = 0; i < EVERYDAY; i++) yield everydayTask(i, EVERYDAY);
    })(),
    epochs,
  );
  const perTask = (keys: number) => LAYOUT_8_ENTRIES + (keys - everyday.zone) / EVERYDAY;
  const writes = markdownTable(
    [
      "word counters",
      "mutations a create (everyday tasks)",
      `entries a task, ${EVERYDAY} everyday tasks (30 days; counters shared)`,
      "counter keys a task, bench tasks (one year): " +
      sizes.map((n) => n.toLocaleString("en")).join(" / "),
    ],
    [
      [
        "layout 8: (word, zone)",
        String(LAYOUT_8_MUTATIONS),
        f1(LAYOUT_8_ENTRIES),
        keyRows.map((r) => (Number(r[2]) / Number(r[0].replaceAll(",", ""))).toFixed(2)).join(
          " / ",
        ),
      ],
      ...epochs.flatMap((d, k) => [
        [
          `(word, epoch, zone), ${d} d`,
          String(LAYOUT_8_MUTATIONS),
          f1(perTask(everyday.epochZone[k])),
          keyRows.map((r) => (parseInt(r[3 + k]) / Number(r[0].replaceAll(",", ""))).toFixed(2))
            .join(" / "),
        ],
        [
          `(word, zone) + (word, epoch), ${d} d`,
          f0(LAYOUT_8_MUTATIONS + LAYOUT_8_WORDS),
          f1(perTask(everyday.zone + everyday.epochTotal[k])),
          keyRows.map((r) =>
            ((Number(r[2]) + Number(r[3 + epochs.length + k])) /
              Number(r[0].replaceAll(",", ""))).toFixed(2)
          ).join(" / "),
        ],
      ]),
    ],
  );
  const body = [
    `Layout ${INDEX_LAYOUT} against a word index split by epoch (a bucket of the order key's ` +
    `time: ${epochs.join(", ")} days), modelled from bench/explore_data.ts's tasks (one year ` +
    `end to end), ${count} first pages of ${NEED - 1} a kind (bench/explore_data_queries.ts). ` +
    "A cell: dictionary entries + word entries = **their sum**, documents, lists of the two " +
    "(the dictionary's one included); means a page. The model reads what the planner would ask " +
    "for: without a circle, layout 8's zones split into whole ranges and zones alone at their " +
    "expected share (plan/words/word_ranges.ts), epochs read whole newest first down to the one " +
    "where the page fills; with a circle, both read each reached zone (each reached epoch and " +
    "zone) down to the page's last candidate (ideal: no overshoot, no range merged). " +
    "(word, epoch, zone) counters (instead of (word, zone)): listed newest epoch first, " +
    "stopping past the page's last epoch (one word; several are listed whole). (word, zone) + " +
    "(word, epoch): layout 8's counters kept and (word, epoch) totals added; a search without " +
    "a circle lists the totals alone, one with a circle both. A common word: the planner's price of the word driver against " +
    "the documents scan (today's choice), the cheaper shown.",
    "",
    ...sections,
    "Counter keys (shared by all tasks; a key per (word, zone) today):",
    "",
    keys,
    "",
    "Write side: the task's entries are the same (one per indexed word, keyed by an epoch fixed " +
    "by the order key, so an edit moves no entry between epochs); the counter keys are shared " +
    `by all tasks and counted a task as bench:layout does (layout 8: ${LAYOUT_8_ENTRIES} ` +
    "entries a task in all, bench/results/explore_layout_8.md):",
    "",
    writes,
    "",
    `Load average after the run: ${loadAverage()}.`,
  ].join("\n");
  console.log(body);
  const path = await writeResults({
    name: "explore_words_proto",
    command: `deno task bench:explore-words --sizes=${sizes.join(",")} --queries=${count} ` +
      `--epochs=${epochs.join(",")}`,
    comparedWith: "layout 8's reads of the same pages, modelled and measured on the cached store",
    body,
  });
  console.log(`written to ${path}`);
}

if (import.meta.main) await main();
