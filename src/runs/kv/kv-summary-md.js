/**
 * A kv run's summary.md: the rate, latency per operation (from the intended start and from the
 * send), each node's share of the operations beside its CPU, the hot shard named, the cost per
 * operation on each node, and how the run ended.
 */
import { anyThin, pctCell, thinNote } from '../common/thin-percentiles.js';
import { fixed, grouped, mdTable } from '../../record/format.js';
import { actionsMd, episodesMd } from '../common/actions-md.js';
import { dropsMd } from '../common/drops-md.js';
import { costMd } from '../common/cost-md.js';
import { basisNote, coverageNote, nodeCpuMd, outcomeMd } from '../common/cpu-md.js';
import { errorList } from '../produce/produce-summary-md.js';

/**
 * @param {{ name: string, description: string, interrupted: boolean }} run
 * @param {Record<string, any>} s summarizeKv()'s, with its outcome
 */
export function renderKvMd(run, s) {
  const out = [`# ${run.name}`, '', `${run.description}${run.interrupted ? ' **Interrupted** before the planned end.' : ''}`, ''];
  out.push(...outcomeMd(s.outcome));
  const r = s.rate;
  out.push(
    `**Rate:** ${grouped(r.intendedPerSec ?? 0)} operations/s due, ${grouped(r.achievedPerSec ?? 0)} answered (${s.clients} client process${s.clients === 1 ? '' : 'es'}) — ${s.verdict}.`,
    '',
  );
  const t = s.totals;
  out.push(
    `**Operations:** sent ${grouped(t.sent || 0)}, answered ${grouped(t.acked || 0)}, failed ${grouped(t.failed || 0)}, unanswered at the end ${grouped(t.unacked || 0)}; MOVED ${grouped(t.moved || 0)}, ASK ${grouped(t.ask || 0)}, retries ${grouped(t.retries || 0)}, error replies ${grouped(t.errors || 0)}${errorList(s.errorKinds)}.`,
    '',
  );
  if (s.hot) out.push(`**Hot shard:** ${s.hot.words}.`, '');
  out.push(...latencyMd(s));
  out.push(...sharesMd(s.nodes));
  out.push(...dropsMd(s.connectionDrops.map((d) => ({ ...d, writer: d.client }))));
  out.push(...actionsMd(s.actions, s.disturbance, 'operations'));
  out.push(...episodesMd(s.disturbances, 'operations'));
  out.push(...basisNote(s.cpu), ...coverageNote(s.cpu), ...nodeCpuMd(s.cpu));
  out.push(...costMd(s.cost));
  out.push(...(s.warnings ?? []).map((x) => `**Warning:** ${x}\n`));
  return `${out.join('\n').trimEnd()}\n`;
}

/** Latency per operation, ms, from the intended start and from the send. */
function latencyMd(s) {
  const rows = [];
  for (const [op, o] of [...Object.entries(s.operations), ['all', { intended: s.latency.all?.intended, sent: s.latency.all?.sent }]]) {
    for (const [from, label] of [
      ['intended', 'intended start'],
      ['sent', 'send'],
    ]) {
      const st = o[from];
      if (!st?.count) continue;
      rows.push([
        op,
        label,
        grouped(st.count),
        pctCell(fixed(st.p50, 3), st.count, 0.5),
        pctCell(fixed(st.p99, 3), st.count, 0.99),
        pctCell(fixed(st.p999, 3), st.count, 0.999),
        fixed(st.max, 3),
      ]);
    }
  }
  if (!rows.length) return [];
  return [
    'Latency per operation (ms; from its intended start, coordinated omission corrected, and from its send):',
    '',
    mdTable(['Operation', 'From', 'Answered', 'p50', 'p99', 'p99.9', 'max'], rows),
    '',
    ...(anyThin(rows) ? [thinNote('answers'), ''] : []),
  ];
}

/** Each node's share of the operations beside its CPU. */
function sharesMd(nodes) {
  if (!nodes.length) return [];
  const rows = nodes.map((n) => [
    n.addr,
    n.role ?? '-',
    n.shard ?? '-',
    grouped(n.ops),
    n.opsShare === null ? '-' : `${fixed(n.opsShare * 100)}%`,
    n.cpuAvg === null ? '-' : fixed(n.cpuAvg),
  ]);
  return [
    "Operations per node (each node's share of the operations sent in the window, and its CPU: the main thread's where reported, % of one core):",
    '',
    mdTable(['Node', 'Role', 'Shard', 'Operations', 'Share', 'CPU avg'], rows),
    '',
  ];
}
