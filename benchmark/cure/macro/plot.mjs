/**
 * The plots of `make bench-overhead` (tools/nodecure/bench_overhead.py):
 * per benchmark, the ratio new/old of the cost of one operation (time,
 * server CPU time or instructions; above 1: nodecure is slower) with its 95%
 * confidence interval, options off and options on (budgets that never fire),
 * and beside it the overhead the Node.cure paper (USENIX Security '18)
 * reports for the same benchmark, where it reports one.
 *
 * As test/ehp/lib/plot.mjs: Vega-Lite specs compiled to Vega, rendered
 * headlessly to SVG, which resvg rasterises to a PNG at twice the size.
 *
 *   node plot.mjs plot.json out/overhead
 *
 * plot.json:
 *   { title, subtitle,
 *     xTitle: 'new/old time per operation',
 *     oursTitle: 'nodecure vs stock, 95% CI',        // the left panel's
 *     labels: ['Express 5 · 100 middleware', ...],   // the rows, in order
 *     series: ['options off', 'options on'],        // the legend, in order
 *     points: [{ label, series, ratio, lo, hi }],    // lo/hi: null if none
 *     paper: [{ label, value, text }],      // Node.cure's figures; text:
 *                                            // the label (default: value×)
 *     paperTitle: 'Node.cure (paper), lazy watchdog' }
 *
 * Writes `${outBase}.svg` and `${outBase}.png`, and prints their paths.
 */

import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile } from 'vega-lite';

const FONT = 'DejaVu Sans';
const SERIES_COLORS = ['#1f77b4', '#ff7f0e', '#2ca02c', '#9467bd'];
const PAPER_COLOR = '#d62728';

const config = {
  background: 'white',
  font: `${FONT}, Helvetica, Arial, sans-serif`,
  title: { fontSize: 15, subtitleFontSize: 12, anchor: 'start' },
  axis: { labelFontSize: 12, titleFontSize: 12, labelLimit: 320 },
  legend: { labelFontSize: 12, titleFontSize: 12, labelLimit: 0 },
  header: { labelFontSize: 12, titleFontSize: 12 },
};

async function render(vlSpec, outBase) {
  const { spec } = compile(vlSpec);
  // Fail loudly instead of logging the error and drawing an empty chart.
  const logger = { ...vega.logger(vega.Warn), error(err) { throw err; } };
  const view = new vega.View(vega.parse(spec), { renderer: 'none', logger });
  const svg = await view.toSVG();
  view.finalize();
  const png = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: 2 },
    font: { loadSystemFonts: true, defaultFontFamily: FONT },
  }).render().asPng();
  const paths = [`${outBase}.svg`, `${outBase}.png`];
  await mkdir(dirname(outBase), { recursive: true });
  await writeFile(paths[0], svg);
  await writeFile(paths[1], png);
  return paths;
}

/**
 * The x domain of our ratios: every point and interval, and 1.00, with a
 * margin, so that a 1% difference stays visible.
 */
function ratioDomain(points) {
  const centres = [1];
  const xs = [1];
  for (const p of points) {
    if (Number.isFinite(p.ratio)) centres.push(p.ratio);
    for (const v of [p.ratio, p.lo, p.hi]) {
      if (Number.isFinite(v)) xs.push(v);
    }
  }
  // An interval far wider than the ratios (a run of 2 samples) is cut at
  // the edge rather than squeeze every other row into a line.
  const lo = Math.max(Math.min(...xs), Math.min(...centres) - 0.15);
  const hi = Math.min(Math.max(...xs), Math.max(...centres) + 0.15);
  const pad = Math.max(0.005, (hi - lo) * 0.08);
  return [lo - pad, hi + pad];
}

export async function plotRatios(data, outBase) {
  const { labels, series } = data;
  const points = data.points.filter((p) => Number.isFinite(p.ratio));
  const intervals = points.filter(
    (p) => Number.isFinite(p.lo) && Number.isFinite(p.hi));
  const paper = (data.paper ?? []).filter((p) => Number.isFinite(p.value))
    .map((p) => ({ ...p, text: p.text ?? `${p.value.toFixed(2)}×` }));
  const y = {
    field: 'label', type: 'nominal', sort: labels, title: null,
    scale: { domain: labels }, axis: { labelLimit: 0 },
  };
  const yOffset = { field: 'series', type: 'nominal', sort: series,
                    scale: { domain: series } };
  const color = {
    field: 'series', type: 'nominal',
    scale: { domain: series, range: SERIES_COLORS.slice(0, series.length) },
    legend: { title: null, orient: 'top', direction: 'horizontal' },
  };
  const domain = ratioDomain(points);
  // 11 px a series in each row, plus the padding between rows.
  const height = labels.length * (11 * series.length + 10);

  const ours = {
    title: { text: data.oursTitle ?? 'nodecure vs stock, 95% CI',
             fontSize: 13 },
    width: 420,
    height,
    layer: [
      {
        data: { values: [{ x: 1 }] },
        mark: { type: 'rule', color: 'black', strokeDash: [4, 3] },
        encoding: { x: { field: 'x', type: 'quantitative' } },
      },
      {
        data: { values: intervals },
        mark: { type: 'rule', strokeWidth: 2, clip: true },
        encoding: {
          y, yOffset, color,
          x: { field: 'lo', type: 'quantitative',
               scale: { domain, zero: false, nice: false },
               axis: { format: '.3f' }, title: data.xTitle },
          x2: { field: 'hi' },
        },
      },
      {
        data: { values: points },
        mark: { type: 'point', filled: true, size: 45, clip: true },
        encoding: {
          y, yOffset, color,
          x: { field: 'ratio', type: 'quantitative',
               scale: { domain, zero: false, nice: false },
               axis: { format: '.3f' }, title: data.xTitle },
          tooltip: [{ field: 'ratio', format: '.3f' }],
        },
      },
    ],
  };

  const paperMax = Math.max(1.1, ...paper.map((p) => p.value)) * 1.25;
  const theirs = {
    title: { text: data.paperTitle ?? 'Node.cure (paper)', fontSize: 13 },
    width: 230,
    height,
    layer: [
      {
        data: { values: [{ x: 1 }] },
        mark: { type: 'rule', color: 'black', strokeDash: [4, 3] },
        encoding: { x: { field: 'x', type: 'quantitative' } },
      },
      {
        data: { values: paper },
        mark: { type: 'bar', color: PAPER_COLOR, opacity: 0.75, height: 8 },
        encoding: {
          y: { ...y, axis: null },
          x: { field: 'value', type: 'quantitative',
               scale: { domain: [1, paperMax], zero: false, nice: false },
               title: 'overhead (× slower)' },
          x2: { datum: 1 },
        },
      },
      {
        data: { values: paper },
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 11 },
        encoding: {
          y: { ...y, axis: null },
          x: { field: 'value', type: 'quantitative' },
          text: { field: 'text' },
        },
      },
    ],
  };

  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: data.title, subtitle: data.subtitle },
    config,
    hconcat: paper.length ? [ours, theirs] : [ours],
    resolve: { scale: { y: 'shared', x: 'independent' } },
  }, outBase);
}

async function main() {
  const [input, outBase] = process.argv.slice(2);
  if (!input || !outBase) {
    console.error('usage: node plot.mjs plot.json OUT_BASE');
    process.exit(2);
  }
  const data = JSON.parse(await readFile(input, 'utf8'));
  for (const path of await plotRatios(data, outBase)) console.log(path);
}

await main();
