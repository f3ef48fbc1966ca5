// @ts-check
/// <reference lib="dom" />
// The API Keys view's usage dialog: a key's requests by hour or day, as a chart and a table. A
// part of the page's one script module (see dom.js).

import { $, $$input, $input } from "./dom.js";
import { api, ApiProblem } from "./api.js";
import { dateFormat, el, fullFormat } from "./format.js";
import { openDialog } from "./dialogs.js";
import { usageChart, usageTotals } from "./chart.js";

/** @typedef {import("./api.js").Json} Json */
/** @typedef {import("./chart.js").UsagePoint} UsagePoint */

const usageDialog = $("#usage-dialog");
/** @type {Record<string, string>} */
const RANGE_WORDS = { "24h": "24 hours", "7d": "7 days", "90d": "90 days" };
/** @type {Json} */
let usageKey = null;

/**
 * @param {Json} key
 * @param {HTMLElement} button
 */
export function openUsage(key, button) {
  usageKey = key;
  $("#usage-dialog-title").textContent = `Usage of “${key.name}”`;
  $input("input[name=usage-range][value='24h']", usageDialog).checked = true;
  openDialog(usageDialog, $("input[name=usage-range]:checked", usageDialog), button);
  loadUsage();
}

for (const radio of $$input("input[name=usage-range]", usageDialog)) {
  radio.addEventListener("change", loadUsage);
}

async function loadUsage() {
  const key = usageKey;
  const range = $input("input[name=usage-range]:checked", usageDialog).value;
  const chart = $("#usage-chart");
  chart.setAttribute("aria-busy", "true");
  $("#usage-error").textContent = "";
  try {
    const usage = await api("GET", `/api/v1/keys/${key.id}/usage?range=${range}`);
    if (key !== usageKey) return;
    const sums = usageTotals(usage.series);
    const all = sums.ok + sums.clientError + sums.rateLimited + sums.serverError;
    const summary = `${all} ${all === 1 ? "request" : "requests"} in the last ${
      RANGE_WORDS[range]
    }: ${sums.ok} 2xx, ${sums.clientError} 4xx, ${sums.rateLimited} 429, ${sums.serverError} 5xx.`;
    $("#usage-totals").textContent = summary;
    const label = `Requests per ${usage.bucket}. ${summary}`;
    chart.replaceChildren(usageChart(usage, label, chart.clientWidth || 720));
    const when = usage.bucket === "day" ? dateFormat : fullFormat;
    /** @type {UsagePoint[]} */
    const series = usage.series;
    const used = series.filter((p) => p.ok + p.clientError + p.rateLimited + p.serverError);
    const none = el("tr", {}, [el("td", { colspan: "5", text: "No requests in this period." })]);
    $("#usage-table tbody").replaceChildren(
      ...(used.length === 0 ? [none] : used.map((p) =>
        el("tr", {}, [
          el("th", { scope: "row", text: when.format(new Date(p.start)) }),
          ...[p.ok, p.clientError, p.rateLimited, p.serverError].map((n) =>
            el("td", { text: String(n) })
          ),
        ])
      )),
    );
  } catch (error) {
    if (!(error instanceof ApiProblem)) throw error;
    $("#usage-error").textContent = error.text;
  } finally {
    chart.setAttribute("aria-busy", "false");
  }
}
