/**
 * How long a cluster action disturbed the run: from the timeline's seconds, the first and last
 * second after the action started that shows redirects, retries, errors, a p99 far above the
 * run's calm p99 before any action, or (writers) a second whose items were not all acknowledged.
 */

/** Seconds after an action's end still looked at (clients settle after the cluster does). */
const SETTLE_S = 10;
/** A second's p99 this many times the calm p99 counts as disturbed. */
const P99_FACTOR = 3;
/** ...and at least this much above it, so a 0.2 ms → 0.7 ms wobble is not a disturbance. */
const P99_MIN_RISE_MS = 5;

/**
 * @typedef {object} DisturbanceInput
 * @property {import('./summary.js').SecondRow[]} rows every second, with `row` (the timeline row)
 * @property {Array<{ text: string, startMs?: number, endMs?: number, skipped?: boolean }>} actions
 * @property {number} t0 epoch ms of second 0
 * @property {string} p99Column the timeline column holding the main operation's p99, ms
 * @property {string[]} countColumns timeline counters whose non-zero values mark a disturbed second
 * @property {Map<number, number>} [ackedDue] writers: items acknowledged by the second they were due in
 */

/**
 * @param {DisturbanceInput} p
 * @returns {Array<{ action: string, startS: number, tookS: number, disturbedS: number, fromS: number|null, toS: number|null,
 *   counts: Record<string, number>, p99MaxMs: number|null, p99CalmMs: number|null, minAckedPct: number|null }>}
 */
export function disturbances({ rows, actions, t0, p99Column, countColumns, ackedDue }) {
  const ran = actions.filter((x) => !x.skipped && x.startMs !== undefined);
  if (!ran.length) return [];
  const firstStartS = (ran[0].startMs - t0) / 1000;
  const calm = median(rows.filter((r) => r.index >= 1 && r.index + 1 <= firstStartS).map((r) => r.row?.[p99Column]).filter(isNum));
  return ran.map((action, i) => {
    const startS = (action.startMs - t0) / 1000;
    const endS = (action.endMs - t0) / 1000;
    const nextS = i + 1 < ran.length ? (ran[i + 1].startMs - t0) / 1000 : Infinity;
    const from = Math.floor(startS);
    const to = Math.min(Math.ceil(endS) + SETTLE_S, Math.floor(nextS) - 1);
    const window = rows.filter((r) => r.index >= from && r.index <= to);
    const counts = Object.fromEntries(countColumns.map((c) => [c, 0]));
    let first = null;
    let last = null;
    let p99Max = null;
    let minAcked = null;
    for (const r of window) {
      let bad = false;
      for (const c of countColumns) {
        const v = Number(r.row?.[c]) || 0;
        counts[c] += v;
        if (v > 0) bad = true;
      }
      const p99 = r.row?.[p99Column];
      if (isNum(p99)) {
        p99Max = Math.max(p99Max ?? 0, p99);
        if (calm !== null && p99 > calm * P99_FACTOR && p99 - calm >= P99_MIN_RISE_MS) bad = true;
      }
      if (ackedDue && r.intended > 0) {
        const pct = (100 * (ackedDue.get(r.index) ?? 0)) / r.intended;
        minAcked = Math.min(minAcked ?? 100, pct);
        if (pct < 99.9) bad = true;
      }
      if (bad) {
        first ??= r.index;
        last = r.index;
      }
    }
    return {
      action: action.text,
      startS: round1(startS),
      tookS: round1(endS - startS),
      disturbedS: first === null ? 0 : last - first + 1,
      fromS: first,
      toS: last,
      counts,
      p99MaxMs: p99Max,
      p99CalmMs: calm,
      minAckedPct: minAcked === null ? null : round1(minAcked),
    };
  });
}

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
