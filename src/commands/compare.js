/**
 * `rqbench compare <A> <B>`: two runs side by side with absolute and relative deltas
 * (throughput, Redis CPU per role, latency percentiles of one operation), and the seed's instance
 * table when the runs carry instance facts. Given capacity searches (two or more), the instance
 * table with each one's maximum, cost per 100k items/s and shards for --for-rate.
 */
import fs from 'node:fs';
import path from 'node:path';
import { bad } from '../usage-error.js';
import { checkOneKind, readRunDir } from '../report/read/run-dirs.js';
import { histogramName, mergeHistograms, mergeRuns } from '../report/merge-runs.js';
import { stats } from '../measure/histogram.js';
import { summarizeMerged } from '../report/merged-summary.js';
import { pickHistogram } from '../report/main-op.js';
import { compareRows, renderCompareMd } from '../report/compare-table.js';
import { printOutput } from './report-run.js';
import { instanceRows, instanceTableMd, seedTableMd } from '../report/capacity/cost-table.js';
import { engineCores, rateAt } from '../report/capacity/projection.js';
import { compareRunGroups, groupsJson, isRunDir, readGroup, renderGroupsMd } from '../report/compare-groups.js';
import { READABLE_KINDS } from '../runs/kinds.js';

const PROG = 'rqbench compare';
const FORMATS = ['md', 'json'];

export const command = 'compare <a> [b] [more..]';
export const describe =
  'two runs, or two groups of runs (benchstat-style: medians, intervals, p), side by side: throughput, CPU per role, latency p50/p99/p99.9';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return y
    .positional('a', {
      type: 'string',
      describe: "run directory A (the baseline), or a directory holding A's runs (an experiment step's trials)",
    })
    .positional('b', { type: 'string', describe: "run directory B, or a directory holding B's runs; with --vs: more of A's runs" })
    .positional('more', {
      type: 'string',
      array: true,
      describe: "with --vs: more of A's runs; else more capacity directories (rqbench capacity): one row each",
    })
    .option('vs', { type: 'string', array: true, requiresArg: true, describe: "group B's runs (everything before --vs is group A)" })
    .option('kind', {
      type: 'string',
      requiresArg: true,
      describe: `groups: which kind of run to compare when a directory holds several (${READABLE_KINDS.map((k) => k.name).join(', ')})`,
      defaultDescription: 'the only kind there, else produce',
    })
    .option('alpha', {
      type: 'number',
      requiresArg: true,
      describe: 'groups: significance level of the Mann–Whitney test',
      defaultDescription: '0.05',
    })
    .option('threshold', {
      type: 'number',
      requiresArg: true,
      describe: 'groups: noise threshold, %: a significant change inside it is marked so',
      defaultDescription: '2',
    })
    .option('for-rate', {
      type: 'number',
      requiresArg: true,
      describe: 'capacity directories: shards each needs for this many items/s, and the cheapest',
    })
    .option('headroom', {
      type: 'number',
      requiresArg: true,
      describe: 'capacity directories: engine CPU % to plan at',
      defaultDescription: "the searches' own --headroom",
    })
    .option('format', { alias: 'f', type: 'string', requiresArg: true, describe: 'md or json', defaultDescription: 'md' })
    .option('op', {
      type: 'string',
      requiresArg: true,
      describe: 'the operation whose latency is compared',
      defaultDescription: 'batch (producer), cycle (consumer), publish (queue publisher), e2e (queue consumer), all (kv)',
    })
    .option('tag', {
      type: 'string',
      requiresArg: true,
      describe: 'intended (from the intended start, corrected) or sent (from the actual send, uncorrected)',
      defaultDescription: 'intended',
    })
    .example('$0 compare runs/<zset-run> runs/<list-run>', 'sorted set vs list at the same rate')
    .example(
      '$0 compare runs/a1 runs/a2 runs/a3 runs/a4 runs/a5 runs/a6 --vs runs/b1 runs/b2 runs/b3 runs/b4 runs/b5 runs/b6',
      'two groups of six runs: medians with 95% intervals, the change with its interval, p, "~" where not significant',
    )
    .example('$0 compare experiments/x/runs/<stamp>/zset experiments/x/runs/<stamp>/list', "an experiment's steps: every trial of each")
    .example('$0 compare <A> <B> --op setex --tag sent --format json', 'SETEX latency, uncorrected, as JSON')
    .example(
      '$0 compare runs/*-capacity-r6g runs/*-capacity-r5 runs/*-capacity-m6g --for-rate 300000',
      'instance types side by side: cost per 100k items/s, shards for 300k items/s',
    );
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export async function handler(a) {
  printOutput(PROG, () => compare(a));
}

/**
 * @param {Record<string, any>} a
 * @returns {string} what goes to stdout
 */
function compare(a) {
  const format = a.format ?? 'md';
  if (!FORMATS.includes(format)) throw bad('--format', FORMATS.join(' or '), format);
  if (
    a.vs !== undefined ||
    [a.a, a.b].some(
      (d) =>
        d !== undefined &&
        fs.existsSync(d) &&
        fs.statSync(d).isDirectory() &&
        !isRunDir(d) &&
        !fs.existsSync(path.join(d, 'capacity.json')),
    )
  )
    return compareGroupsOf(a, format);
  if (a.b === undefined) throw bad('<b>', "a second run directory (or --vs and group B's runs)");
  for (const f of ['kind', 'alpha', 'threshold'])
    if (a[f] !== undefined) throw bad(`--${f}`, 'used with groups of runs (--vs, or directories holding runs)');
  const dirs = [a.a, a.b, ...(a.more ?? [])];
  const searches = dirs.filter((d) => fs.existsSync(path.join(d, 'capacity.json')));
  if (searches.length) {
    if (searches.length !== dirs.length)
      throw bad(
        '<a> <b> [more..]',
        'all capacity directories (rqbench capacity) or two run directories',
        dirs.find((d) => !searches.includes(d)),
      );
    return compareCapacity(searches, a, format);
  }
  if (a.more?.length) throw bad('[more..]', 'capacity directories only: run directories are compared two at a time', a.more[0]);
  if (a.forRate !== undefined || a.headroom !== undefined)
    throw bad(a.forRate !== undefined ? '--for-rate' : '--headroom', 'used with capacity directories');
  const runs = checkOneKind([readRunDir(a.a), readRunDir(a.b)]);
  const latency = pickHistogram(runs, { op: a.op, tag: a.tag, opFlag: '--op' });
  // each side through the report's merge, so compare and report agree on every number; the
  // compared histogram over the side's window, as `report --spectrum` reads it, for every kind
  const sides = runs.map((run, i) => {
    const merged = mergeRuns([run]);
    const h = mergeHistograms([run], { fromSec: merged.warmupS, toSec: merged.durationS, ops: [latency.op] }).get(
      histogramName(latency.op, latency.tag),
    );
    return { label: 'AB'[i], dir: run.dir, summary: summarizeMerged(merged), latency: h?.totalCount ? stats(h) : null };
  });
  const rows = compareRows(sides[0], sides[1], runs[0].kind, latency);
  if (format === 'json') {
    const side = (s) => ({ dir: s.dir, name: s.summary.name, runId: s.summary.merged.runId, interrupted: s.summary.interrupted });
    return `${JSON.stringify({ kind: runs[0].kind, a: side(sides[0]), b: side(sides[1]), latency: { op: latency.op, tag: latency.tag }, metrics: rows.map(({ decimals, ...r }) => r) }, null, 2)}\n`;
  }
  const seed = seedTableMd(sides.map((x, i) => ({ label: x.label, instance: runs[i].manifest.flags, cpu: x.summary.cpu })));
  return `${renderCompareMd(sides, rows, latency)}\n${seed ? `\n${seed}\n` : ''}`;
}

/**
 * Two groups: `A… --vs B…`, or two directories holding runs.
 * @param {Record<string, any>} a
 * @param {string} format
 * @returns {string}
 */
function compareGroupsOf(a, format) {
  const alpha = a.alpha ?? 0.05;
  const threshold = a.threshold ?? 2;
  if (!(Number.isFinite(alpha) && alpha > 0 && alpha < 1)) throw bad('--alpha', 'a number between 0 and 1', a.alpha);
  if (!(Number.isFinite(threshold) && threshold >= 0 && threshold < 100))
    throw bad('--threshold', 'a percentage from 0 to below 100', a.threshold);
  if (a.forRate !== undefined || a.headroom !== undefined)
    throw bad(a.forRate !== undefined ? '--for-rate' : '--headroom', 'used with capacity directories');
  const kinds = READABLE_KINDS.map((k) => k.name);
  if (a.kind !== undefined && !kinds.includes(a.kind)) throw bad('--kind', kinds.join(', '), a.kind);
  let groupA;
  let groupB;
  if (a.vs !== undefined) {
    if (!a.vs.length) throw bad('--vs', "followed by group B's run directories");
    groupA = [a.a, a.b, ...(a.more ?? [])].filter((d) => d !== undefined);
    groupB = a.vs;
  } else {
    if (a.b === undefined) throw bad('<b>', "a second directory of runs (or --vs and group B's runs)");
    if (a.more?.length) throw bad('[more..]', 'left out: two directories of runs are compared, or use --vs', a.more[0]);
    groupA = [a.a];
    groupB = [a.b];
  }
  const runsA = readGroup(groupA, 'A', a.kind);
  const runsB = readGroup(groupB, 'B', a.kind ?? runsA[0].kind, a.kind === undefined ? runsA[0].kind : undefined);
  const o = { a: groupA, b: groupB, alpha, threshold: threshold / 100 };
  const r = compareRunGroups(runsA, runsB, { op: a.op, tag: a.tag, alpha, threshold: threshold / 100 });
  if (format === 'json') return `${JSON.stringify(groupsJson(r, o), null, 2)}\n`;
  return `${renderGroupsMd(r, o)}\n`;
}

/**
 * @param {string[]} dirs capacity directories
 * @param {Record<string, any>} a
 * @param {string} format
 */
function compareCapacity(dirs, a, format) {
  if (a.forRate !== undefined && !(Number.isFinite(a.forRate) && a.forRate > 0))
    throw bad('--for-rate', 'a rate in items/s > 0', a.forRate);
  if (a.headroom !== undefined && !(Number.isFinite(a.headroom) && a.headroom > 0 && a.headroom <= 100))
    throw bad('--headroom', 'a percentage > 0 and <= 100', a.headroom);
  const docs = dirs.map((d) => {
    try {
      return { label: path.basename(d), doc: JSON.parse(fs.readFileSync(path.join(d, 'capacity.json'), 'utf8')) };
    } catch (e) {
      throw bad('<a> <b> [more..]', 'capacity directories with a readable capacity.json', `${d}: ${e.message}`);
    }
  });
  // a kv search's rates are operations, a producer's items: one table holds one of them
  const units = [...new Set(docs.map((x) => x.doc.criteria?.unit ?? 'items'))];
  if (units.length > 1)
    throw bad(
      '<a> <b> [more..]',
      "capacity searches of one kind: a producer's (items/s) or a kv workload's (operations/s)",
      dirs.join(' '),
    );
  const headroom = a.headroom ?? docs[0].doc.criteria?.headroom ?? 60;
  const rows = instanceRows(
    docs.map((x) => ({ ...x, doc: withHeadroom(x.doc, headroom) })),
    { forRate: a.forRate },
  );
  if (format === 'json') return `${JSON.stringify({ kind: 'capacity', headroom, forRate: a.forRate ?? null, rows }, null, 2)}\n`;
  return `# Capacity comparison\n\n${docs.map((x, i) => `- **${rows[i].instance?.type ?? x.label}**: ${dirs[i]} — ${x.doc.answer}`).join('\n')}\n\n${instanceTableMd(rows, { forRate: a.forRate, headroom, unit: units[0] })}\n`;
}

/** A search's projection read again at another headroom: the line is the same, the rate on it moves. */
function withHeadroom(doc, headroom) {
  const full = 100 * engineCores(doc.criteria?.nodeCpus ?? 1);
  const projection = (doc.projection ?? []).map((p) => ({ ...p, atHeadroom: rateAt(p.fit, (headroom / 100) * full) }));
  return { ...doc, projection };
}
