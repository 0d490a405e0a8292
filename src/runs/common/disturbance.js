/**
 * Disturbed seconds, scripted or not. A second is disturbed when the timeline shows redirects,
 * retries, errors or failures in it, a p99 far above the run's calm p99, or (writers) items due
 * in it that were not all acknowledged, or none acknowledged while items were due.
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

/**
 * @typedef {object} DisturbanceInput
 * @property {import('../../record/run-recorder.js').SecondRow[]} rows every second, with `row` (the timeline row)
 * @property {number} t0 epoch ms of second 0
 * @property {string} p99Column the timeline column holding the main operation's p99, ms
 * @property {string[]} countColumns timeline counters whose non-zero values mark a disturbed second
 * @property {Map<number, number>} [ackedDue] writers: items acknowledged by the second they were due in
 * @property {string} [ackedColumn] writers: the timeline column of items acknowledged in the second
 */

/**
 * @typedef {object} SecondVerdict
 * @property {boolean} bad
 * @property {number|null} ackedPct writers: share of the second's due items acknowledged
 * @property {boolean} noneAcked writers: items were due and nothing was acknowledged in the second
 */

/**
 * The rule for one second.
 * @param {import('../../record/run-recorder.js').SecondRow} r
 * @param {DisturbanceInput & { calm: number|null }} p
 * @returns {SecondVerdict}
 */
function judge(r, { calm, p99Column, countColumns, ackedDue, ackedColumn }) {
  let bad = countColumns.some((c) => (Number(r.row?.[c]) || 0) > 0);
  const p99 = r.row?.[p99Column];
  if (isNum(p99) && calm !== null && p99 > calm * P99_FACTOR && p99 - calm >= P99_MIN_RISE_MS) bad = true;
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
 * The calm p99: the median p99 of the seconds no counter marks (or, given `beforeS`, of the
 * seconds before it: the calm before the first action).
 */
function calmP99(rows, { p99Column, countColumns }, beforeS = Infinity) {
  const quiet = rows.filter((r) => r.index >= 1 && r.index + 1 <= beforeS && !countColumns.some((c) => (Number(r.row?.[c]) || 0) > 0));
  return median(quiet.map((r) => r.row?.[p99Column]).filter(isNum));
}

/**
 * Sums and extremes over some seconds.
 * @param {import('../../record/run-recorder.js').SecondRow[]} rows
 * @param {DisturbanceInput & { calm: number|null }} p
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
  return { counts, p99MaxMs: p99Max, minAckedPct: minAcked === null ? null : round1(minAcked), noneAckedS, first, last };
}

/**
 * Every episode of disturbed seconds in the run, each with what the timeline shows and what
 * happened meanwhile (the events column: topology changes, nodes not answering, actions).
 * @param {DisturbanceInput & { actions?: Array<{ text: string, startMs?: number, endMs?: number, skipped?: boolean }> }} p
 * @returns {Array<{ fromS: number, toS: number, seconds: number, counts: Record<string, number>, noneAckedS: number,
 *   minAckedPct: number|null, p99MaxMs: number|null, p99CalmMs: number|null, events: string[], actions: string[] }>}
 */
export function episodes(p) {
  const calm = calmP99(p.rows, p);
  const q = { ...p, calm };
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
 *   counts: Record<string, number>, p99MaxMs: number|null, p99CalmMs: number|null, minAckedPct: number|null }>}
 */
export function disturbances(p) {
  const ran = p.actions.filter((x) => !x.skipped && x.startMs !== undefined);
  if (!ran.length) return [];
  const calm = calmP99(p.rows, p, (ran[0].startMs - p.t0) / 1000);
  const q = { ...p, calm };
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
