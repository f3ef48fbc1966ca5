// @ts-check
/// <reference lib="dom" />
// A key's usage as a stacked bar chart in inline SVG (nothing loaded from another host), served
// at /dashboard/chart.js and imported by key_usage.js.

/** @typedef {"ok" | "clientError" | "rateLimited" | "serverError"} Outcome */
/** @typedef {{ start: string } & Record<Outcome, number>} UsagePoint */
/** @typedef {{ bucket: "hour" | "day", series: UsagePoint[] }} Usage */

const SVG_NS = "http://www.w3.org/2000/svg";
const CHART = { height: 240, left: 44, right: 8, top: 10, bottom: 28 };
/** Stacked bottom up; the classes carry the colours (styles/key_details.css), as the legend does. */
/** @type {[Outcome, string, string][]} */
const LAYERS = [
  ["ok", "ok", "2xx"],
  ["clientError", "client-error", "4xx"],
  ["rateLimited", "rate-limited", "429"],
  ["serverError", "server-error", "5xx"],
];

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @param {string | number} [text]
 */
function svgEl(tag, attrs = {}, text) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, String(value));
  if (text !== undefined) node.textContent = String(text);
  return node;
}

/**
 * 0, then a round step (1, 2 or 5 times a power of ten) that fits `max` in about four steps.
 * @param {number} max
 * @returns {number}
 */
function niceStep(max) {
  const rough = Math.max(1, max / 4);
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((m) => m * power).find((step) => step >= rough) ?? 10 * power;
}

const hourLabel = new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit" });
const dayLabel = new Intl.DateTimeFormat(undefined, { month: "short", day: "numeric" });
const fullLabel = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });

/**
 * Which bars get an axis label: on round boundaries, about one per 110 units of width (six on a
 * laptop, three on a phone).
 * @param {number} index
 * @param {number} count
 * @param {Usage["bucket"]} bucket
 * @param {string} start
 * @param {number} width
 */
function labelled(index, count, bucket, start, width) {
  const wide = width >= 560;
  if (bucket === "day") return (count - 1 - index) % (wide ? 15 : 30) === 0;
  const date = new Date(start);
  if (count <= 24) return date.getHours() % (wide ? 4 : 8) === 0;
  return date.getHours() === 0 && (wide || date.getDate() % 2 === 0);
}

/** @param {UsagePoint} point */
function total(point) {
  return point.ok + point.clientError + point.rateLimited + point.serverError;
}

/**
 * The chart of a usage answer: an SVG (role img, labelled with the totals) whose bars carry a
 * title each with the bucket's figures. Drawn `width` units wide, the width it is shown at, so
 * that its labels keep their size on a phone.
 * @param {Usage} usage
 * @param {string} label
 * @param {number} [width]
 */
export function usageChart(usage, label, width = 720) {
  const chartWidth = Math.max(280, Math.round(width));
  const { series, bucket } = usage;
  const max = Math.max(0, ...series.map(total));
  const step = niceStep(max);
  const top = Math.max(step, Math.ceil(max / step) * step);
  const plotWidth = chartWidth - CHART.left - CHART.right;
  const plotHeight = CHART.height - CHART.top - CHART.bottom;
  const slot = plotWidth / series.length;
  const barWidth = Math.max(1, slot * 0.78);
  const y = (/** @type {number} */ value) => CHART.top + plotHeight - (value / top) * plotHeight;

  const svg = svgEl("svg", {
    viewBox: `0 0 ${chartWidth} ${CHART.height}`,
    role: "img",
    "aria-label": label,
    class: "chart",
  });
  for (let tick = 0; tick <= top; tick += step) {
    svg.append(
      svgEl("line", {
        x1: CHART.left,
        x2: chartWidth - CHART.right,
        y1: y(tick),
        y2: y(tick),
        class: "grid",
      }),
      svgEl(
        "text",
        { x: CHART.left - 6, y: y(tick) + 4, class: "axis", "text-anchor": "end" },
        tick,
      ),
    );
  }
  series.forEach((point, i) => {
    const x = CHART.left + i * slot + (slot - barWidth) / 2;
    const group = svgEl("g", { class: "bar", "data-start": point.start });
    const figures = LAYERS.map(([field, , name]) => `${point[field]} ${name}`).join(", ");
    const when = bucket === "day"
      ? dayLabel.format(new Date(point.start))
      : fullLabel.format(new Date(point.start));
    group.append(svgEl("title", {}, `${when}: ${figures}`));
    let base = 0;
    for (const [field, cls] of LAYERS) {
      const value = point[field];
      if (value <= 0) continue;
      group.append(svgEl("rect", {
        x,
        y: y(base + value),
        width: barWidth,
        height: y(base) - y(base + value),
        class: `layer ${cls}`,
      }));
      base += value;
    }
    // An invisible full-height target, so that a thin or empty bar still shows its title.
    group.append(svgEl("rect", {
      x: CHART.left + i * slot,
      y: CHART.top,
      width: slot,
      height: plotHeight,
      class: "hit",
    }));
    svg.append(group);
    if (labelled(i, series.length, bucket, point.start, chartWidth)) {
      const date = new Date(point.start);
      svg.append(svgEl("text", {
        x: x + barWidth / 2,
        y: CHART.height - 8,
        class: "axis",
        "text-anchor": "middle",
      }, bucket === "day" || series.length > 24 ? dayLabel.format(date) : hourLabel.format(date)));
    }
  });
  return svg;
}

/**
 * Sums of a series by outcome.
 * @param {UsagePoint[]} series
 * @returns {Record<Outcome, number>}
 */
export function usageTotals(series) {
  const sums = { ok: 0, clientError: 0, rateLimited: 0, serverError: 0 };
  for (const point of series) {
    for (const [field] of LAYERS) sums[field] += point[field];
  }
  return sums;
}
