/**
 * The summary's account of --at cluster actions (what each did, how long it took, and how long
 * the run was disturbed around it) and of every disturbed episode, scripted or not
 * (disturbance.js).
 */
import { fixed, grouped } from '../../record/format.js';

/** Counter columns as the summary names them. */
const COUNT_NAMES = {
  moved: 'MOVED',
  ask: 'ASK',
  retries: 'retries',
  tryagain: 'TRYAGAIN',
  clusterdown: 'CLUSTERDOWN',
  conn_retries: 'connection lost',
  failed: 'failed',
  errors: 'errors',
  overruns: 'overruns',
  failed_cycles: 'failed cycles',
  replica_fallbacks: 'replica fallbacks',
};

/** Level columns (disturbance.js) as the summary names them. */
const LEVEL_NAMES = {
  staleness_p99_ms: 'staleness p99',
  items: 'items read',
};

/**
 * @param {Array<object>} actions ActionResult plus text/atSec, or skipped entries
 * @param {ReturnType<import('./disturbance.js').disturbances>} disturbed
 * @param {string} what 'writes' or 'reads'
 * @returns {string[]} markdown lines
 */
export function actionsMd(actions, disturbed, what) {
  if (!actions?.length) return [];
  const out = ['**Cluster actions:**', ''];
  for (const a of actions) {
    if (a.skipped) {
      out.push(`- \`${a.text}\`: ${a.error}.`);
      continue;
    }
    const took = ((a.endMs - a.startMs) / 1000).toFixed(1);
    const d = disturbed.find((x) => x.action === a.text && x.startS !== undefined);
    // an action due while the previous one still ran started when that one ended
    const late = d && d.startS - a.atSec >= 0.5 ? ` (started at +${d.startS} s, after the previous action)` : '';
    const head = `- \`${a.text}\` at +${a.atSec} s${late}: ${a.ok ? `done in ${took} s` : `**failed** after ${took} s: ${a.error}`}${facts(a.detail)}.`;
    out.push(head + (d ? ` ${disturbedText(d, what)}` : ''));
  }
  out.push('');
  return out;
}

/**
 * @param {ReturnType<import('./disturbance.js').episodes>|undefined} list
 * @param {string} what 'writes' or 'reads'
 * @returns {string[]} markdown lines
 */
export function episodesMd(list, what) {
  if (!list) return [];
  if (!list.length)
    return [
      `**Disturbances:** none: no second with redirects, retries, errors${what === 'writes' ? ', unacknowledged items' : ''} or a p99 far above the calm one${what === 'reads' ? ', nor a staleness far above or a read rate far below its calm level' : ''}.`,
      '',
    ];
  const out = [`**Disturbances:** ${list.length} episode(s) when ${what} were disturbed:`, ''];
  for (const e of list) {
    const counts = Object.entries(e.counts)
      .filter(([, n]) => n > 0)
      .map(([k, n]) => `${COUNT_NAMES[k] ?? k} ${grouped(n)}`);
    const parts = [];
    if (counts.length) parts.push(counts.join(', '));
    if (e.noneAckedS) parts.push(`nothing acknowledged in ${e.noneAckedS} s`);
    if (e.minAckedPct !== null && e.minAckedPct < 99.9) parts.push(`worst second ${fixed(e.minAckedPct, 1)}% of its items acknowledged`);
    if (e.p99MaxMs !== null)
      parts.push(`p99 up to ${fixed(e.p99MaxMs, 1)} ms${e.p99CalmMs === null ? '' : ` (calm: ${fixed(e.p99CalmMs, 1)} ms)`}`);
    parts.push(...levelsText(e.levels, (v) => `calm: ${v}`));
    const cause = e.actions.length ? ` During \`${e.actions.join('`, `')}\`.` : ' Not scripted.';
    const seen = e.events.length ? ` Seen meanwhile: ${e.events.join('; ')}.` : '';
    out.push(`- seconds ${e.fromS}–${e.toS} (${e.seconds} s): ${parts.join('; ') || 'slow'}.${cause}${seen}`);
  }
  out.push('');
  return out;
}

function disturbedText(d, what) {
  const counts = Object.entries(d.counts)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${COUNT_NAMES[k] ?? k} ${grouped(n)}`);
  const p99 =
    d.p99MaxMs === null
      ? ''
      : `; p99 up to ${fixed(d.p99MaxMs, 1)} ms${d.p99CalmMs === null ? '' : ` (${fixed(d.p99CalmMs, 1)} ms before any action)`}`;
  const acked =
    d.minAckedPct === null || d.minAckedPct >= 99.9 ? '' : `; worst second ${fixed(d.minAckedPct, 1)}% of its items acknowledged`;
  const levels = levelsText(d.levels, (v) => `${v} before any action`)
    .map((t) => `; ${t}`)
    .join('');
  if (!d.disturbedS) return `${cap(what)} undisturbed${counts.length ? ` (${counts.join(', ')})` : ''}${p99}.`;
  return `${cap(what)} disturbed for ${d.disturbedS} s (seconds ${d.fromS}–${d.toS})${counts.length ? `: ${counts.join(', ')}` : ''}${p99}${acked}${levels}.`;
}

/**
 * The levels that departed from their calm one (disturbance.js): a tail up to its worst, a rate down to it.
 * @param {Array<{ column: string, kind: 'tail'|'rate', worst: number, calm: number }>|undefined} levels
 * @param {(value: string) => string} calmText the calm level in words
 * @returns {string[]}
 */
function levelsText(levels, calmText) {
  return (levels ?? []).map((l) => {
    const name = LEVEL_NAMES[l.column] ?? l.column;
    return l.kind === 'tail'
      ? `${name} up to ${fixed(l.worst, 1)} ms (${calmText(`${fixed(l.calm, 1)} ms`)})`
      : `${name} down to ${grouped(Math.round(l.worst))}/s (${calmText(`${grouped(Math.round(l.calm))}/s`)})`;
  });
}

/** The action's headline facts (slots and keys moved, nodes, unreplicated bytes at a kill). */
function facts(d) {
  if (!d) return '';
  const parts = [];
  if (d.slotsMoved !== undefined) parts.push(`${grouped(d.slotsMoved)} slots`);
  if (d.keysMigrated !== undefined) parts.push(`${grouped(d.keysMigrated)} keys migrated`);
  if (d.from?.addr && d.to?.addr) parts.push(`${d.from.addr} → ${d.to.addr}`);
  if (d.added?.length) parts.push(`added ${d.added.map((n) => n.addr).join(', ')}`);
  if (d.shutDown?.length) parts.push(`shut down ${d.shutDown.map((n) => n.addr).join(', ')}`);
  if (d.promoted?.addr) parts.push(`promoted ${d.promoted.addr} after ${grouped(d.recoverMs)} ms`);
  if (d.replication?.lagBytes !== undefined)
    parts.push(`${grouped(d.replication.lagBytes)} bytes of the master's replication stream not yet on its replica at the kill`);
  return parts.length ? ` (${parts.join('; ')})` : '';
}

function cap(s) {
  return s[0].toUpperCase() + s.slice(1);
}
