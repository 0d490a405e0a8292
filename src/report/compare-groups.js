/**
 * `rqbench compare` on groups of runs, the way Go's benchstat compares benchmark runs: for every
 * figure, each group's median with its 95% interval, the change of B relative to A with its
 * interval, the exact Mann–Whitney p, and "~" where the difference is not significant. A run is
 * the unit: each run's figures are its own (a p99 from its own HdrHistogram over its own window),
 * never percentiles averaged across runs. A group is given as run directories, or as a directory
 * holding them (an experiment step's `trial-<k>/` directories).
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError } from '../usage-error.js';
import { compareGroups, noiseWords, trialWarnings } from '../stats/stats.js';
import { stats } from '../measure/histogram.js';
import { checkOneKind, readRunDir } from './read/run-dirs.js';
import { histogramName, mergeHistograms, mergeRuns } from './merge-runs.js';
import { summarizeMerged } from './merged-summary.js';
import { pickHistogram } from './main-op.js';
import { cpuBasis, latencyWords, runFigures } from './compare-table.js';
import { READABLE_KINDS, readKind } from '../runs/kinds.js';
import { fixed, grouped, mdTable } from '../record/format.js';

/** How deep a directory of trials is searched for run directories (runs/<stamp>/<step>/trial-k/<run>). */
const DEPTH = 4;

/**
 * @param {string} dir
 * @returns {boolean} it is a run directory (it has a manifest)
 */
export const isRunDir = (dir) => fs.existsSync(path.join(dir, 'manifest.json'));

/**
 * A group as given: run directories, each directory that is not one read as the runs beneath it
 * (runs set aside as interrupted left out). Several kinds beneath: `kind` picks, else the kind
 * compared by default when there (the producer's: runs/kinds.js), else one line naming what is there.
 * Group B, when no --kind was typed, is read for group A's kind (`asA`): a group without it is
 * of another kind than A, and the line says so rather than quote a --kind the user never gave.
 * @param {string[]} given
 * @param {string} label 'A' or 'B'
 * @param {string|undefined} kind
 * @param {string} [asA] group A's kind, when it is what `kind` is (no --kind given)
 * @returns {import('./read/run-dirs.js').RunDir[]}
 */
export function readGroup(given, label, kind, asA) {
  const dirs = given.flatMap((d) => {
    if (!fs.existsSync(d) || !fs.statSync(d).isDirectory()) throw new UsageError(`${d}: no such directory`);
    if (isRunDir(d)) return [d];
    const found = runDirsUnder(d, DEPTH);
    if (!found.length) throw new UsageError(`${d}: no run directory in it (group ${label})`);
    return found;
  });
  const runs = dirs.map(readRunDir);
  const kinds = [...new Set(runs.map((r) => r.kind))];
  const preferred = READABLE_KINDS.find((k) => k.compareDefault && kinds.includes(k.name))?.name ?? null;
  const want = kind ?? (kinds.length === 1 ? kinds[0] : preferred);
  if (!want) throw new UsageError(`group ${label} holds runs of several kinds (${kinds.join(', ')}): pick one with --kind`);
  const picked = runs.filter((r) => r.kind === want);
  if (!picked.length && asA !== undefined)
    throw new UsageError(
      `groups A and B hold runs of different kinds (A: ${readKind(asA).words}, B: ${kinds.map((k) => readKind(k).words).join(', ')}): compare runs of one kind`,
    );
  if (!picked.length)
    throw new UsageError(`--kind must be a kind of run group ${label} holds (${kinds.join(', ')}) (got ${JSON.stringify(want)})`);
  return checkOneKind(picked);
}

/** Run directories beneath `dir`, in name order, not inside a directory set aside as interrupted. */
function runDirsUnder(dir, depth) {
  if (depth < 0) return [];
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries
    .filter((e) => e.isDirectory() && !/\.interrupted-\d+$/.test(e.name))
    .sort((a, b) => a.name.localeCompare(b.name, 'en', { numeric: true }))
    .flatMap((e) => {
      const p = path.join(dir, e.name);
      return isRunDir(p) ? [p] : runDirsUnder(p, depth - 1);
    });
}

/**
 * @param {import('./read/run-dirs.js').RunDir[]} a
 * @param {import('./read/run-dirs.js').RunDir[]} b
 * @param {{ op?: string, tag?: string, alpha: number, threshold: number }} o threshold: relative (0.02 = ±2 %)
 */
export function compareRunGroups(a, b, { op, tag, alpha, threshold }) {
  const all = checkOneKind([...a, ...b]);
  const latency = pickHistogram(all, { op, tag, opFlag: '--op' });
  const figures = (run) => {
    const merged = mergeRuns([run]);
    const h = mergeHistograms([run], { fromSec: merged.warmupS, toSec: merged.durationS, ops: [latency.op] }).get(
      histogramName(latency.op, latency.tag),
    );
    const summary = summarizeMerged(merged);
    return { summary, rows: runFigures({ summary, latency: h?.totalCount ? stats(h) : null }, all[0].kind, latency.op) };
  };
  const fa = a.map(figures);
  const fb = b.map(figures);
  const rows = fa[0].rows.flatMap((row, i) => {
    const va = fa.map((f) => f.rows[i].value).filter((v) => v !== null);
    const vb = fb.map((f) => f.rows[i].value).filter((v) => v !== null);
    // a figure no run of either group has (run directories from before rqbench measured it) is left out
    if (!va.length && !vb.length) return [];
    const g = compareGroups(va, vb, { alpha, threshold });
    return {
      metric: row.metric,
      decimals: row.decimals,
      aValues: va,
      bValues: vb,
      ...g,
      warnings: { a: trialWarnings(va), b: trialWarnings(vb) },
    };
  });
  return { kind: all[0].kind, latency, rows, summaries: { a: fa.map((f) => f.summary), b: fb.map((f) => f.summary) } };
}

/**
 * @param {ReturnType<typeof compareRunGroups>} r
 * @param {{ a: string[], b: string[], alpha: number, threshold: number }} o the groups' directories
 */
export function groupsJson(r, o) {
  return {
    kind: r.kind,
    groups: { a: o.a, b: o.b },
    latency: { op: r.latency.op, tag: r.latency.tag },
    alpha: o.alpha,
    threshold: o.threshold * 100,
    metrics: r.rows.map(({ decimals, ...row }) => row),
  };
}

/**
 * @param {ReturnType<typeof compareRunGroups>} r
 * @param {{ a: string[], b: string[], alpha: number, threshold: number }} o
 */
export function renderGroupsMd(r, o) {
  const show = (v, d) => (v === null || v === undefined ? '-' : d ? fixed(v, d) : grouped(v));
  const side = (g, d) =>
    !g.n
      ? '-'
      : g.ci
        ? `${show(g.median, d)} [${show(g.ci.lo, d)}, ${show(g.ci.hi, d)}]`
        : g.n === 1
          ? show(g.median, d)
          : `${show(g.median, d)} (${show(g.min, d)}–${show(g.max, d)})`;
  const pct = (v) => `${v > 0 ? '+' : ''}${fixed(v, 1)}%`;
  const change = (row) => {
    const c = row.change;
    if (row.p === null) return c.pct === null ? '-' : `${pct(c.pct)} (${row.note})`;
    if (!row.significant) return '~';
    const rel = c.pct !== null;
    const est = rel ? pct(c.pct) : show(c.estimate, row.decimals);
    const interval =
      c.lo === null
        ? ` (${c.why})`
        : rel
          ? ` [${pct(c.pctLo)}, ${pct(c.pctHi)}]`
          : ` [${show(c.lo, row.decimals)}, ${show(c.hi, row.decimals)}]`;
    const noise = () =>
      c.pctLo !== null && c.pctHi !== null
        ? noiseWords(c.pctLo, c.pctHi, o.threshold * 100, `${o.threshold * 100}%`)
        : `within ±${o.threshold * 100}%`;
    return `${est}${interval}${row.beyondNoise ? '' : ` (${noise()})`}`;
  };
  const notes = [];
  for (const row of r.rows) {
    for (const g of ['a', 'b']) for (const w of row.warnings[g]) notes.push(`- ${row.metric}, ${g.toUpperCase()}: ${w}`);
    if (row.note && row.p !== null) notes.push(`- ${row.metric}: ${row.note}`);
  }
  const few = r.rows.find((row) => row.a.why || row.b.why);
  const out = [
    '# Comparison of groups',
    '',
    `- **A** (${o.a.length === 1 ? '' : `${o.a.length} given, `}${r.summaries.a.length} ${readKind(r.kind).words} run${r.summaries.a.length === 1 ? '' : 's'}): ${o.a.join(' ')}`,
    `- **B** (${o.b.length === 1 ? '' : `${o.b.length} given, `}${r.summaries.b.length} run${r.summaries.b.length === 1 ? '' : 's'}): ${o.b.join(' ')}`,
    '',
    mdTable(
      ['Metric', 'A median [95% CI]', 'B median [95% CI]', 'Change [95% CI]', 'p', 'n'],
      r.rows.map((row) => [
        row.metric,
        side(row.a, row.decimals),
        side(row.b, row.decimals),
        change(row),
        row.p === null ? '-' : pValue(row.p),
        `${row.a.n}+${row.b.n}`,
      ]),
    ),
    '',
    ...(notes.length ? ['Warnings (every run is kept and counted):', '', ...notes, ''] : []),
    `How to read this: each run is one sample, and its figures are its own (a percentile from its own histogram, a count, or an average over its own seconds; never pooled across runs). A median's [95% CI] is distribution-free${few ? `; with fewer than 6 runs there is none, and the range (min–max) is shown instead` : ''}. p is the exact two-sided Mann–Whitney U test: the chance of groups this far apart if A and B did not differ. "~" means not significant at ${o.alpha}. The change of B relative to A is the Hodges–Lehmann estimate (the median of every B/A ratio, or B − A for figures that can be 0) with its exact 95% interval; "within ±${o.threshold * 100}%" marks a significant change whose whole interval lies inside the noise threshold, "its interval reaches inside ±${o.threshold * 100}%" one whose interval is only partly beyond it: neither is called a difference. With one run a side there is a delta but no interval, and nothing is called significant.`,
    '',
    `${latencyWords(r.latency)} CPU is % of one core, averaged over each run's window${cpuBasis([...r.summaries.a.map((s) => ({ label: 'A', summary: s })), ...r.summaries.b.map((s) => ({ label: 'B', summary: s }))].slice(0, 2))}.`,
    '',
  ];
  return out.join('\n');
}

/** 0.00216 → "0.0022". */
function pValue(p) {
  return p < 0.001 ? '<0.001' : String(Number(p.toPrecision(2)));
}
