/**
 * Charts for the EHP attack suite, in the style of Fig. 3 of the Node.cure
 * paper (USENIX Security '18): the throughput of legitimate clients over time
 * while an evil request poisons the server.
 *
 * The specs are Vega-Lite, compiled to Vega and rendered headlessly to SVG,
 * which resvg then rasterises to a PNG at twice the size.
 *
 * Data format:
 *
 *   attack = { id: 'redos', title: 'ReDoS in validator.rtrim (CVE-2021-3765)',
 *              category: 'language', control: false }
 *   run = { binary: 'nodecure' | 'baseline',
 *           label: 'stock Node 22.22.2',  // shown in the legend
 *           binMs: 100,         // width of each throughput bin
 *           attackAtMs: 1000,   // when the evil request(s) were sent
 *           durationMs: 6000,   // how long the legitimate load ran
 *           series: [12, 11, 0, ...],  // legitimate responses in each bin
 *           verdict: 'survived' | 'DoS' | 'crashed' | 'failed',
 *           maxGapMs: 123 }     // longest time without a legitimate response,
 *                               // or null if the run produced no data
 *
 * plotAttack(attack, runs, outBase) draws one attack: responses per second
 * over time, one line per run (up to one per binary), with a rule at the
 * moment of the attack.
 *
 * plotSummary(results, outBase) draws all attacks ([{ attack, runs }]): one
 * row per attack, titled with attack.title, holding one bar per binary for the
 * longest gap without a legitimate response (log scale), with the verdict and
 * the gap at the end of the bar. Controls are marked "(control)" and drawn
 * paler.
 *
 * Both write `${outBase}.svg` and `${outBase}.png` and resolve to the list of
 * paths written.
 */

import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Resvg } from '@resvg/resvg-js';
import * as vega from 'vega';
import { compile } from 'vega-lite';

const FONT = 'DejaVu Sans';
const COLORS = { nodecure: '#1f77b4', baseline: '#d62728' };
const OTHER_COLOR = '#7f7f7f';

const config = {
  background: 'white',
  font: `${FONT}, Helvetica, Arial, sans-serif`,
  title: { fontSize: 15, subtitleFontSize: 12, anchor: 'start' },
  axis: { labelFontSize: 12, titleFontSize: 12 },
  legend: { labelFontSize: 12, titleFontSize: 12, labelLimit: 0 },
};

function displayTitle(attack) {
  return attack.control ? `${attack.title} (control)` : attack.title;
}

function formatMs(ms) {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

function colorScale(runs) {
  const domain = [];
  const range = [];
  for (const { binary, key } of runs) {
    if (domain.includes(key)) continue;
    domain.push(key);
    range.push(COLORS[binary] ?? OTHER_COLOR);
  }
  return { domain, range };
}

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
 * Plot legitimate throughput over time for one attack.
 * @param {object} attack
 * @param {object[]} runs
 * @param {string} outBase
 * @returns {Promise<string[]>}
 */
export async function plotAttack(attack, runs, outBase) {
  const lines = runs.map((run) => ({
    ...run,
    key: `${run.label} — ${run.verdict}`,
  }));
  // One point per bin, at its midpoint.
  const points = lines.flatMap(({ key, binMs, series }) =>
    series.map((n, i) => ({
      run: key,
      t: (i + 0.5) * binMs / 1000,
      rps: n * 1000 / binMs,
    })));
  const attacks = [...new Set(runs.map((run) => run.attackAtMs))]
    .map((ms) => ({ t: ms / 1000 }));
  const end = Math.max(0, ...runs.map((run) => run.durationMs)) / 1000;

  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: displayTitle(attack),
      subtitle: `${attack.id} · ${attack.category}`,
    },
    width: 640,
    height: 260,
    config,
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', strokeWidth: 2, clip: true },
        encoding: {
          x: {
            field: 't', type: 'quantitative',
            title: 'seconds since load start',
            scale: { domain: [0, end], nice: false },
          },
          y: {
            field: 'rps', type: 'quantitative',
            title: 'legitimate responses / s',
          },
          color: {
            field: 'run', type: 'nominal',
            scale: colorScale(lines),
            legend: { title: null, orient: 'bottom', direction: 'vertical' },
          },
        },
      },
      {
        data: { values: attacks },
        mark: { type: 'rule', color: 'black', strokeDash: [4, 3] },
        encoding: { x: { field: 't', type: 'quantitative' } },
      },
      {
        data: { values: attacks },
        mark: {
          type: 'text', text: 'attack', baseline: 'bottom', dy: -3,
          fontSize: 12,
        },
        encoding: {
          x: { field: 't', type: 'quantitative' },
          y: { value: 0 },
        },
      },
    ],
  }, outBase);
}

/**
 * Plot the longest gap without a legitimate response for every attack.
 * @param {{ attack: object, runs: object[] }[]} results
 * @param {string} outBase
 * @returns {Promise<string[]>}
 */
export async function plotSummary(results, outBase) {
  // Name each binary after the first label seen for it.
  const names = new Map();
  for (const { runs } of results) {
    for (const { binary, label } of runs) {
      if (!names.has(binary)) names.set(binary, label);
    }
  }
  const colors = colorScale(
    [...names].map(([binary, key]) => ({ binary, key })));
  const titles = results.map(({ attack }) => displayTitle(attack));
  const rows = results.flatMap(({ attack, runs }) =>
    runs.map((run) => ({
      attack: displayTitle(attack),
      control: Boolean(attack.control),
      run: names.get(run.binary),
      // A log scale has no zero.
      gap: Number.isFinite(run.maxGapMs) ? Math.max(1, run.maxGapMs) : null,
      note: Number.isFinite(run.maxGapMs) ?
        `${run.verdict} · ${formatMs(run.maxGapMs)}` : run.verdict,
    })));
  const y = { field: 'run', type: 'nominal', axis: null };
  const note = { type: 'text', align: 'left', dx: 3, fontSize: 10 };

  return render({
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: {
      text: 'Longest gap without a legitimate response',
      subtitle: 'per attack and binary, with the verdict; controls are paler',
    },
    config,
    data: { values: rows },
    facet: {
      row: {
        field: 'attack', type: 'nominal', sort: titles, title: null,
        header: {
          labelAngle: 0, labelOrient: 'top', labelAnchor: 'start',
          labelAlign: 'left', labelBaseline: 'top', labelPadding: 2,
          labelFontSize: 12,
        },
      },
    },
    spacing: 2,
    spec: {
      width: 560,
      height: { step: 11 },
      layer: [
        {
          transform: [{ filter: 'isValid(datum.gap)' }],
          mark: { type: 'bar' },
          encoding: {
            y,
            opacity: {
              condition: { test: 'datum.control', value: 0.4 }, value: 1,
            },
            x: {
              field: 'gap', type: 'quantitative', stack: null,
              title: 'longest gap (ms, log scale)',
              scale: { type: 'log' },
              axis: { grid: true, format: '~s' },
            },
            color: {
              field: 'run', type: 'nominal',
              scale: colors,
              legend: { title: null, orient: 'top', direction: 'vertical' },
            },
          },
        },
        {
          transform: [{ filter: 'isValid(datum.gap)' }],
          mark: note,
          encoding: {
            y,
            x: { field: 'gap', type: 'quantitative' },
            text: { field: 'note' },
          },
        },
        {
          transform: [{ filter: '!isValid(datum.gap)' }],
          mark: note,
          encoding: { y, x: { value: 0 }, text: { field: 'note' } },
        },
      ],
    },
  }, outBase);
}
