/**
 * Merges the run directories of one run (several writers, readers or hosts) exactly: histograms
 * are added from the .hlog files, counters summed per second, and each Redis node's CPU (process
 * and main thread alike) is taken once per second (a node sampled by two hosts is averaged,
 * never added).
 */
import { eachHlogInterval } from '../record/hlog.js';
import { readKind } from '../runs/kinds.js';
import { clientOf, engineColumn, parseNodeColumn } from '../record/timeline.js';
import { round } from '../record/numbers.js';
import { newHistogram } from '../measure/histogram.js';
import { fromSparse, toSparse } from '../measure/sparse.js';

/** @typedef {import('../runs/common/merging.js').RunDir} RunDir */
/** @typedef {import('hdr-histogram-js').Histogram} Histogram */
/** @typedef {import('../runs/common/merging.js').MergedSecond} MergedSecond */
/** @typedef {import('../runs/common/merging.js').MergedRuns} MergedRuns */

/**
 * @param {RunDir[]} runs of one kind (readRunDirs checks it)
 * @returns {MergedRuns}
 */
export function mergeRuns(runs) {
  const warmups = runs.map((r) => r.window.fromSecond);
  const warmupS = Math.max(...warmups);
  const durationS = Math.max(...runs.map((r) => r.window.toSecond));
  const sharedT0 = runs.every((r) => r.manifest.t0 === runs[0].manifest.t0);
  const { rows, nodes, nodeColumns } = mergeTimelines(runs);
  const kind = readKind(runs[0].kind);
  const notes = [];
  // queue runs have no --start-at: publishers and consumers of one queue start when they are started
  const together = kind.startAt ? `share a start (${kind.startAt})` : 'start together';
  if (!sharedT0) notes.push(`the runs did not ${together}: their seconds are aligned from each run's own start`);
  if (new Set(warmups).size > 1) notes.push(`the warm-ups differ (${warmups.join(', ')} s): the merged window starts at second ${warmupS}`);
  const ids = [...new Set(runs.map((r) => r.manifest.runId ?? null))];
  if (ids.length > 1) notes.push(`the run ids differ (${ids.map(String).join(', ')})`);
  const modes = [...new Set(runs.map((r) => r.manifest.mode ?? null))];
  if (modes.length > 1) notes.push(`the data models differ (${modes.join(', ')})`);
  notes.push(...(kind.mergeNotes?.(runs, sharedT0) ?? []));
  return {
    kind: kind.name,
    runs,
    warmupS,
    durationS,
    rows,
    nodes,
    nodeColumns,
    sharedT0,
    notes,
    histograms: (window) => mergeHistograms(runs, window),
    perSecond: (names) => perSecondHistograms(runs, names),
  };
}

/**
 * Timelines added up second by second: the command's counters summed, the load generators'
 * CPU and memory summed (their worst event-loop delay, busiest process and shortest interval
 * kept), each node's CPU (process, and main thread where it has a column) averaged over the runs
 * that sampled it.
 * @param {Array<Pick<RunDir, 'kind'|'timeline'>>} runs
 * @returns {{ rows: MergedSecond[], nodes: Array<{ addr: string, role: string, shard: number }>, nodeColumns: import('../record/timeline.js').NodeColumnOf[] }}
 */
export function mergeTimelines(runs) {
  const spec = readKind(runs[0].kind).rows;
  /** @type {Map<number, any>} */
  const seconds = new Map();
  /** @type {Map<string, { addr: string, role: string, shard: number }>} process CPU column → node */
  const nodes = new Map();
  /** @type {Map<string, import('../record/timeline.js').NodeColumnOf>} every node column, in file order */
  const nodeColumns = new Map();
  for (const run of runs) {
    // a node and role: a replica promoted during a run has a column for each
    const ofRun = run.timeline.columns.flatMap((column) => {
      const c = parseNodeColumn(column);
      return c ? [{ column, c }] : [];
    });
    for (const { column, c } of ofRun) {
      if (!nodeColumns.has(column)) nodeColumns.set(column, c);
      if (!c.engine && !nodes.has(column)) nodes.set(column, { addr: c.addr, role: c.role, shard: c.shard });
    }
    for (const row of run.timeline.rows) {
      const index = /** @type {number} readTimeline checked: a whole number */ (row.second);
      let m = seconds.get(index);
      if (!m)
        seconds.set(
          index,
          (m = {
            index,
            time: row.time,
            intended: 0,
            counters: {},
            client: { cpuPct: 0, cpuPctMax: null, loopP99Ms: null, rssMb: 0, wallMs: null },
            cpu: new Map(),
            gaps: new Set(),
            events: [],
          }),
        );
      // listed by the sampler but not sampled: a gap (older timelines have no such column)
      for (const g of String(row.unsampled ?? '').split(' ')) if (g) m.gaps.add(g);
      if ('unsampled' in row) m.hasGapColumn = true;
      if (row.time < m.time) m.time = row.time;
      // several hosts saw the same action: once is enough
      for (const e of String(row.events ?? '').split('; ')) if (e && !m.events.includes(e)) m.events.push(e);
      const { intended, counters } = spec.countsOf(row);
      m.intended += intended;
      for (const [k, v] of Object.entries(counters)) m.counters[k] = (m.counters[k] || 0) + v;
      const c = clientOf(row);
      m.client.cpuPct += c.cpuPct ?? 0;
      // rounded as a run's own column is: a sum of floats would print 181.89999999999998
      m.client.rssMb = round(m.client.rssMb + (c.rssMb ?? 0), 1);
      m.client.cpuPctMax = maxOf(m.client.cpuPctMax, c.cpuPctMax);
      m.client.loopP99Ms = maxOf(m.client.loopP99Ms, c.loopP99Ms);
      m.client.wallMs = c.wallMs === null ? m.client.wallMs : Math.min(m.client.wallMs ?? Infinity, c.wallMs);
      for (const { column } of ofRun) {
        const v = row[column];
        if (typeof v !== 'number') continue;
        const s = m.cpu.get(column);
        if (s) s.push(v);
        else m.cpu.set(column, [v]);
      }
    }
  }
  const rows = [...seconds.values()]
    .sort((a, b) => a.index - b.index)
    .map(({ gaps, hasGapColumn, ...m }) => ({
      ...m,
      events: m.events.join('; '),
      // wallMs unknown (a run from before client_wall_ms): undefined, so the second counts as full
      client: { ...m.client, wallMs: m.client.wallMs ?? undefined },
      // a node that second: sampled (by one run or several: one run's value comes back as it was, an
      // average of two keeps its second decimal), or listed without a figure (a gap); a node no run
      // listed that second is not in it, as in the run's own summary (older timelines cannot tell);
      // a node with a main-thread column has that figure, or a gap, beside
      cpu: [...nodes.entries()].flatMap(([column, n]) => {
        const v = m.cpu.get(column);
        if (!v && !gaps.has(column) && hasGapColumn) return [];
        const engine = engineColumn(n);
        const e = m.cpu.get(engine);
        return [{ ...n, cpuPct: averaged(v), ...(nodeColumns.has(engine) && { enginePct: averaged(e) }) }];
      }),
    }));
  return { rows, nodes: [...nodes.values()], nodeColumns: [...nodeColumns.values()] };
}

/**
 * @param {number[]|undefined} values one node's figures of one second, a run's each
 * @returns {number|null} their average (one run's value as it was), null for none
 */
function averaged(values) {
  return values ? round(values.reduce((a, b) => a + b, 0) / values.length, 2) : null;
}

/**
 * The runs' histograms added up over the window, exactly, by name as summaries name them
 * ('<op>.<tag>', or the tag alone when it is the operation's name, as for 'lag').
 * @param {Array<Pick<RunDir, 'hlogs'>>} runs
 * @param {{ fromSec: number, toSec: number, ops?: string[] }} window the seconds [fromSec, toSec)
 *   the summary's rows cover: intervals starting before (the warm-up) or at toSec and after (a
 *   second cut short by Ctrl-C, the drain after the planned end) are left out, as the run's own
 *   summary left them out; ops: only these operations' files are read
 * @returns {Map<string, Histogram>}
 */
export function mergeHistograms(runs, { fromSec, toSec, ops }) {
  if (!Number.isFinite(fromSec) || !(toSec >= fromSec))
    throw new RangeError(`mergeHistograms: a window [fromSec, toSec) is needed (got ${fromSec}, ${toSec})`);
  const out = new Map();
  eachInterval(runs, ops, (name, interval) => {
    if (interval.startSec < fromSec || interval.startSec >= toSec) return;
    let h = out.get(name);
    if (!h) out.set(name, (h = newHistogram()));
    h.add(interval.histogram);
  });
  return out;
}

/**
 * Some histograms second by second, across runs. They are kept as non-empty buckets only (a
 * decoded histogram is ~190 kB, an hour of seconds of them would not fit) and rebuilt on demand.
 * @param {RunDir[]} runs
 * @param {string[]} names e.g. ['batch.intended', 'lag']
 * @returns {(index: number) => Map<string, Histogram>}
 */
export function perSecondHistograms(runs, names) {
  const wanted = new Set(names);
  /** @type {Map<number, Map<string, number[][]>>} */
  const bySecond = new Map();
  const ops = [...new Set(names.map((n) => n.split('.')[0]))];
  eachInterval(runs, ops, (name, interval) => {
    if (!wanted.has(name)) return;
    const index = Math.round(interval.startSec);
    let m = bySecond.get(index);
    if (!m) bySecond.set(index, (m = new Map()));
    const parts = m.get(name);
    if (parts) parts.push(toSparse(interval.histogram));
    else m.set(name, [toSparse(interval.histogram)]);
  });
  return (index) => {
    const out = new Map();
    for (const [name, parts] of bySecond.get(index) ?? []) {
      const h = fromSparse(parts[0]);
      for (const p of parts.slice(1)) h.add(fromSparse(p));
      out.set(name, h);
    }
    return out;
  };
}

/**
 * Every interval of the runs' .hlog files (of `ops`, or all), with its summary name.
 * @param {Array<Pick<RunDir, 'hlogs'>>} runs
 * @param {string[]|undefined} ops
 * @param {(name: string, interval: import('../record/hlog.js').HlogInterval) => void} fn
 */
function eachInterval(runs, ops, fn) {
  for (const run of runs) {
    for (const [op, file] of run.hlogs) {
      if (ops && !ops.includes(op)) continue;
      eachHlogInterval(file, (interval) => fn(histogramName(op, interval.tag), interval));
    }
  }
}

/**
 * A histogram's name in summaries: '<op>.<tag>', or the operation alone for its own tag ('lag').
 * @param {string} op
 * @param {string|null} tag
 */
export function histogramName(op, tag) {
  return !tag || tag === op ? op : `${op}.${tag}`;
}

function maxOf(a, b) {
  if (b === null) return a;
  return a === null || b > a ? b : a;
}
