/**
 * Disturbed seconds, scripted or not. A second is disturbed when the timeline shows redirects,
 * retries, errors or failures in it, a p99 far above the run's calm p99, (writers) items due in it
 * that were not all acknowledged, or none acknowledged while items were due, or (a kind's levels:
 * a consumer's staleness and read rate) a level far from its own calm one: a tail far above it by
 * the p99's rule, a rate far below it.
 *
 * Two views of the same rule: episodes() finds every stretch of disturbed seconds in the run —
 * a master frozen by someone else, every connection dropped, a failover nobody scripted — and
 * disturbances() says, for each --at action, how long after its start the run was disturbed.
 */

/** Seconds after an action's end still looked at (clients settle after the cluster does). */
const SETTLE_S = 10;
/** A second's p99 this many times the calm p99 counts as disturbed. */
const P99_FACTOR = 3;
/** ...and at least this much above it, so a 0.2 ms → 0.7 ms wobble is not a disturbance. */
const P99_MIN_RISE_MS = 5;
/** Disturbed seconds this close (calm seconds between them) are one episode. */
const JOIN_GAP_S = 2;
/** A rate this many times below its calm level counts as disturbed (the p99's factor, the other way). */
const RATE_FACTOR = 3;
/**
 * A rate is judged over the seconds that hold this many of the run's calm cycles: a consumer whose
 * cycles take longer than a second ends none in some seconds, and that rhythm is its calm.
 */
const RATE_SPAN_CYCLES = 2;

/**
 * @typedef {object} Level a timeline column judged against its own calm level (the median of the
 *   seconds no counter marks): a `tail` (a p99) far above it by the p99's rule, a `rate` (a count per
 *   second) far below it. Judged only from the second the run first stood at that level: a consumer's
 *   staleness and read rate follow a producer that may start with it or before it, and that start
 *   is no departure.
 * @property {string} column
 * @property {'tail'|'rate'} kind
 * @property {string} [cycles] a rate's column of cycles: its spans hold RATE_SPAN_CYCLES of them
 */

/**
 * A level as one run judges it.
 * @typedef {object} LevelJudge
 * @property {string} column
 * @property {'tail'|'rate'} kind
 * @property {number} calm
 * @property {Map<number, number>} values by second: the column's value (a rate's, over its span)
 * @property {number} fromS the first second the level is judged in
 * @property {number} minRiseMs a tail's least rise above its calm level to count, ms
 */

/**
 * @typedef {object} DisturbanceInput
 * @property {import('../../record/run-recorder.js').SecondRow[]} rows every second, with `row` (the timeline row)
 * @property {number} t0 epoch ms of second 0
 * @property {string} p99Column the timeline column holding the main operation's p99, ms
 * @property {string[]} countColumns timeline counters whose non-zero values mark a disturbed second
 * @property {Map<number, number>} [ackedDue] writers: items acknowledged by the second they were due in
 * @property {string} [ackedColumn] writers: the timeline column of items acknowledged in the second
 * @property {Level[]} [levels] more columns judged against their own calm level (a consumer's staleness and read rate)
 * @property {number} [minRiseMs] how far above its calm level a tail must rise to count, ms (default P99_MIN_RISE_MS)
 */

/**
 * @typedef {object} SecondVerdict
 * @property {boolean} bad
 * @property {number|null} ackedPct writers: share of the second's due items acknowledged
 * @property {boolean} noneAcked writers: items were due and nothing was acknowledged in the second
 */

/** @typedef {DisturbanceInput & { calm: number|null, judged: LevelJudge[], minRiseMs: number }} Judging the input, its calm levels and the tails' least rise */

/**
 * The rule for one second.
 * @param {import('../../record/run-recorder.js').SecondRow} r
 * @param {Judging} p
 * @returns {SecondVerdict}
 */
function judge(r, { calm, judged, p99Column, countColumns, ackedDue, ackedColumn, minRiseMs }) {
  let bad = countColumns.some((c) => (Number(r.row?.[c]) || 0) > 0);
  // second 0 holds the connecting and the first, unoptimized calls: its tail is the run's start, not a
  // disturbance (as it is no calm second either); its errors and failures still are
  if (r.index >= 1 && farAbove(r.row?.[p99Column], calm, minRiseMs)) bad = true;
  if (judged.some((l) => departs(l, r.index))) bad = true;
  let ackedPct = null;
  let noneAcked = false;
  if (ackedDue && r.intended > 0) {
    ackedPct = (100 * (ackedDue.get(r.index) ?? 0)) / r.intended;
    if (ackedPct < 99.9) bad = true;
    noneAcked = ackedColumn !== undefined && Number(r.row?.[ackedColumn]) === 0;
    if (noneAcked) bad = true;
  }
  return { bad, ackedPct, noneAcked };
}

/**
 * A tail far above its calm level: this many times it, and by this much at least.
 * @param {unknown} v
 * @param {number|null} calm
 * @param {number} minRiseMs
 */
function farAbove(v, calm, minRiseMs) {
  return isNum(v) && calm !== null && v > calm * P99_FACTOR && v - calm >= minRiseMs;
}

/**
 * The level departs from its calm one in second `index`.
 * @param {LevelJudge} l
 * @param {number} index
 */
function departs(l, index) {
  if (index < l.fromS) return false;
  const v = l.values.get(index);
  if (v === undefined) return false;
  return l.kind === 'tail' ? farAbove(v, l.calm, l.minRiseMs) : l.calm > 0 && v < l.calm / RATE_FACTOR;
}

/**
 * The seconds calm levels are taken from: the seconds no counter marks (or, given `beforeS`, of
 * the seconds before it: the calm before the first action); second 0 (connecting) is not one.
 * @param {import('../../record/run-recorder.js').SecondRow[]} rows
 * @param {DisturbanceInput} p
 */
function quietRows(rows, { countColumns }, beforeS = Infinity) {
  return rows.filter((r) => r.index >= 1 && r.index + 1 <= beforeS && !countColumns.some((c) => (Number(r.row?.[c]) || 0) > 0));
}

/**
 * The input with its calm levels: the calm p99 (the median p99 of the quiet seconds) and each level's.
 * @param {DisturbanceInput} p
 * @param {number} [beforeS]
 * @returns {Judging}
 */
function judging(p, beforeS = Infinity) {
  const quiet = quietRows(p.rows, p, beforeS);
  const calm = median(quiet.map((r) => r.row?.[p.p99Column]).filter(isNum));
  const minRiseMs = p.minRiseMs ?? P99_MIN_RISE_MS;
  const judged = (p.levels ?? []).map((l) => judgeOf(p.rows, quiet, l, minRiseMs)).filter((l) => l !== null);
  return { ...p, calm, judged, minRiseMs };
}

/**
 * A level's values and calm level; null when the quiet seconds have none to go by.
 * @param {import('../../record/run-recorder.js').SecondRow[]} rows
 * @param {import('../../record/run-recorder.js').SecondRow[]} quiet
 * @param {Level} level
 * @param {number} minRiseMs a tail's least rise above its calm level to count, ms
 * @returns {LevelJudge|null}
 */
function judgeOf(rows, quiet, level, minRiseMs) {
  const values = level.kind === 'rate' ? spanRates(rows, quiet, level) : cellsOf(rows, level.column);
  if (!values) return null;
  const calm = median(quiet.map((r) => values.get(r.index)).filter(isNum));
  if (calm === null) return null;
  const l = { column: level.column, kind: level.kind, calm, values, fromS: -Infinity, minRiseMs };
  // the run's start, up to the first second at its calm level, is not judged
  const first = rows.find((r) => values.has(r.index) && !departs(l, r.index));
  l.fromS = first ? first.index : Infinity;
  return l;
}

/** @returns {Map<number, number>} the column's numbers by second */
function cellsOf(rows, column) {
  const out = new Map();
  for (const r of rows) if (isNum(r.row?.[column])) out.set(r.index, r.row[column]);
  return out;
}

/**
 * A rate per second over the span of seconds (ending at each) that holds RATE_SPAN_CYCLES of the
 * quiet seconds' cycles; null when they had none. Seconds before the first whole span have none.
 * @param {import('../../record/run-recorder.js').SecondRow[]} rows
 * @param {import('../../record/run-recorder.js').SecondRow[]} quiet
 * @param {Level} level
 * @returns {Map<number, number>|null}
 */
function spanRates(rows, quiet, { column, cycles = column }) {
  const cyclesPerS = quiet.reduce((n, r) => n + (Number(r.row?.[cycles]) || 0), 0) / quiet.length;
  if (!(cyclesPerS > 0)) return null;
  const span = Math.ceil(RATE_SPAN_CYCLES / cyclesPerS);
  const count = new Map(rows.map((r) => [r.index, Number(r.row?.[column]) || 0]));
  const out = new Map();
  for (const r of rows) {
    if (r.index < span - 1) continue;
    let n = 0;
    for (let s = r.index - span + 1; s <= r.index; s++) n += count.get(s) ?? 0;
    out.set(r.index, n / span);
  }
  return out;
}

/**
 * Sums and extremes over some seconds.
 * @param {import('../../record/run-recorder.js').SecondRow[]} rows
 * @param {Judging} p
 */
function tally(rows, p) {
  const counts = Object.fromEntries(p.countColumns.map((c) => [c, 0]));
  let p99Max = null;
  let minAcked = null;
  let noneAckedS = 0;
  let first = null;
  let last = null;
  for (const r of rows) {
    for (const c of p.countColumns) counts[c] += Number(r.row?.[c]) || 0;
    const p99 = r.row?.[p.p99Column];
    if (isNum(p99)) p99Max = Math.max(p99Max ?? 0, p99);
    const v = judge(r, p);
    if (v.ackedPct !== null) minAcked = Math.min(minAcked ?? 100, v.ackedPct);
    if (v.noneAcked) noneAckedS++;
    if (v.bad) {
      first ??= r.index;
      last = r.index;
    }
  }
  return {
    counts,
    p99MaxMs: p99Max,
    minAckedPct: minAcked === null ? null : round1(minAcked),
    noneAckedS,
    first,
    last,
    levels: levelsIn(rows, p),
  };
}

/**
 * The levels that departed in some of these seconds: the worst value (a tail's highest, a rate's
 * lowest) and the calm one. Undefined when the kind judges no level (its summaries keep their shape).
 * @param {import('../../record/run-recorder.js').SecondRow[]} rows
 * @param {Judging} p
 * @returns {Array<{ column: string, kind: 'tail'|'rate', worst: number, calm: number }>|undefined}
 */
function levelsIn(rows, p) {
  if (!p.levels?.length) return undefined;
  const out = [];
  for (const l of p.judged) {
    const off = rows.filter((r) => departs(l, r.index)).map((r) => /** @type {number} */ (l.values.get(r.index)));
    if (!off.length) continue;
    const worst = l.kind === 'tail' ? Math.max(...off) : Math.min(...off);
    out.push({ column: l.column, kind: l.kind, worst: round1(worst), calm: round1(l.calm) });
  }
  return out;
}

/**
 * Every episode of disturbed seconds in the run, each with what the timeline shows and what
 * happened meanwhile (the events column: topology changes, nodes not answering, actions).
 * @param {DisturbanceInput & { actions?: Array<{ text: string, startMs?: number, endMs?: number, skipped?: boolean }> }} p
 * @returns {Array<{ fromS: number, toS: number, seconds: number, counts: Record<string, number>, noneAckedS: number,
 *   minAckedPct: number|null, p99MaxMs: number|null, p99CalmMs: number|null, levels?: ReturnType<typeof levelsIn>,
 *   events: string[], actions: string[] }>}
 */
export function episodes(p) {
  const q = judging(p);
  const calm = q.calm;
  const bad = p.rows.filter((r) => judge(r, q).bad).map((r) => r.index);
  const spans = [];
  for (const s of bad) {
    const last = spans[spans.length - 1];
    if (last && s - last[1] <= JOIN_GAP_S + 1) last[1] = s;
    else spans.push([s, s]);
  }
  const ran = (p.actions ?? []).filter((x) => !x.skipped && x.startMs !== undefined);
  return spans.map(([from, to]) => {
    const within = p.rows.filter((r) => r.index >= from && r.index <= to);
    const t = tally(within, q);
    // what happened from the second before it began: the change often shows a second before its effect
    const events = p.rows
      .filter((r) => r.index >= from - 1 && r.index <= to && r.row?.events)
      .flatMap((r) =>
        String(r.row.events)
          .split('; ')
          .map((e) => `+${r.index} s: ${e}`),
      );
    const actions = ran
      .filter((x) => (x.startMs - p.t0) / 1000 <= to + 1 && ((x.endMs ?? x.startMs) - p.t0) / 1000 + SETTLE_S >= from)
      .map((x) => x.text);
    return {
      fromS: from,
      toS: to,
      seconds: to - from + 1,
      counts: t.counts,
      noneAckedS: t.noneAckedS,
      minAckedPct: t.minAckedPct,
      p99MaxMs: t.p99MaxMs,
      p99CalmMs: calm,
      ...(t.levels && { levels: t.levels }),
      events,
      actions,
    };
  });
}

/**
 * How long each --at action disturbed the run: the first and last disturbed second from its
 * start to 10 s after its end (or the next action's start).
 * @param {DisturbanceInput & { actions: Array<{ text: string, startMs?: number, endMs?: number, skipped?: boolean }> }} p
 * @returns {Array<{ action: string, startS: number, tookS: number, disturbedS: number, fromS: number|null, toS: number|null,
 *   counts: Record<string, number>, p99MaxMs: number|null, p99CalmMs: number|null, minAckedPct: number|null,
 *   levels?: ReturnType<typeof levelsIn> }>}
 */
export function disturbances(p) {
  const ran = p.actions.filter((x) => !x.skipped && x.startMs !== undefined);
  if (!ran.length) return [];
  const q = judging(p, (ran[0].startMs - p.t0) / 1000);
  const calm = q.calm;
  return ran.map((action, i) => {
    const startS = (action.startMs - p.t0) / 1000;
    const endS = (action.endMs - p.t0) / 1000;
    const nextS = i + 1 < ran.length ? (ran[i + 1].startMs - p.t0) / 1000 : Infinity;
    const from = Math.floor(startS);
    const to = Math.min(Math.ceil(endS) + SETTLE_S, Math.floor(nextS) - 1);
    const t = tally(
      p.rows.filter((r) => r.index >= from && r.index <= to),
      q,
    );
    return {
      action: action.text,
      startS: round1(startS),
      tookS: round1(endS - startS),
      disturbedS: t.first === null ? 0 : t.last - t.first + 1,
      fromS: t.first,
      toS: t.last,
      counts: t.counts,
      p99MaxMs: t.p99MaxMs,
      p99CalmMs: calm,
      minAckedPct: t.minAckedPct,
      ...(t.levels && { levels: t.levels }),
    };
  });
}

/**
 * @param {unknown} v
 * @returns {v is number}
 */
function isNum(v) {
  return typeof v === 'number' && Number.isFinite(v);
}

function median(xs) {
  if (!xs.length) return null;
  const s = xs.slice().sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

function round1(x) {
  return Math.round(x * 10) / 10;
}
