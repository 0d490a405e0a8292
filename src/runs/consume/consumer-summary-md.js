/**
 * A consumer run's summary.md, in the seed's words first (Cardinality | Responses received |
 * Batch processed), then the phases, staleness and the CPU of every node.
 */
import { actionsMd, episodesMd } from '../common/actions-md.js';
import { basisNote, nodeCpuMd, outcomeMd } from '../common/cpu-md.js';
import { fixed, grouped, mdTable } from '../../record/format.js';
import { dropsMd } from '../common/drops-md.js';
import { costMd } from '../common/cost-md.js';

const PHASES = [
  ['cycle', 'whole cycle'],
  ['card', 'cardinality'],
  ['range', 'range'],
  ['values', 'values'],
  ['staleness', 'staleness (now − newest score)'],
];

/**
 * @param {{ name: string, description: string, interrupted: boolean }} run
 * @param {ReturnType<import('./consumer-summary.js').summarizeConsumer>} s
 */
export function renderConsumerMd(run, s) {
  const out = [`# ${run.name}`, '', `${run.description}${run.interrupted ? ' **Interrupted** before the planned end.' : ''}`, ''];
  const cycle = s.latency.cycle?.sent;
  out.push(
    mdTable(
      ['Cardinality', 'Responses received', 'Batch processed p50 ms', 'Batch processed p99 ms'],
      [[grouped(s.perCycle.cardinality), grouped(s.perCycle.fetched), fixed(cycle?.p50, 1), fixed(cycle?.p99, 1)]],
    ),
    '',
  );
  out.push(...(s.warnings ?? []).map((w) => `**Warning:** ${w}\n`), ...outcomeMd(s.outcome));
  const pc = s.perCycle;
  out.push(
    `**Cycles:** ${grouped(s.cycles.count)} of ${grouped(s.cycles.expected)} scheduled (${s.readers} reader(s)), ${grouped(s.cycles.overruns)} overran their period — ${s.verdict}.`,
    '',
  );
  out.push(
    `**Per cycle:** items returned ${grouped(pc.items)}, values fetched ${grouped(pc.fetched)}, missing ${grouped(pc.missing)}, duplicates ${grouped(pc.duplicates)}, mismatched ${grouped(pc.mismatched)}${pc.uniques !== null ? `, unique count (previous minute) ${grouped(pc.uniques)}` : ''}.`,
    '',
  );
  if (s.missingWhy) out.push(`**Missing values:** ${s.missingWhy}.`, '');
  out.push(...fallbackMd(s), ...dropsMd(s.connectionDrops));
  out.push(...actionsMd(s.actions, s.disturbance, 'reads'));
  out.push(...episodesMd(s.disturbances, 'reads'));
  const rows = [];
  for (const [op, label] of PHASES) {
    for (const [from, fromLabel] of [
      ['sent', 'actual start'],
      ['intended', 'intended start'],
    ]) {
      const st = s.latency[op]?.[from];
      if (st?.count)
        rows.push([label, fromLabel, fixed(st.p50, 3), fixed(st.p99, 3), fixed(st.p999, 3), fixed(st.max, 3), grouped(st.count)]);
    }
  }
  if (rows.length) out.push('Times in ms:', '', mdTable(['Phase', 'From', 'p50', 'p99', 'p99.9', 'max', 'count'], rows), '');
  out.push(...nodeCpuMd(s.cpu), ...basisNote(s.cpu));
  out.push(...costMd(s.cost));
  const c = s.client;
  out.push(
    `**Readers:** CPU ${fixed(c.cpuPct)}% of a core in total, up to ${fixed(c.cpuPctMaxWriter)}% for one reader; event-loop delay p99 up to ${fixed(c.loopP99MsMax)} ms; memory up to ${fixed(c.rssMbMax)} MB.`,
    '',
  );
  out.push(
    `Window: seconds ${s.window.fromSecond}–${s.window.toSecond} (${s.window.seconds} s after the warm-up, up to the planned end or the stop): cycles, times and CPU all cover these seconds.`,
    '',
  );
  return out.join('\n');
}

/** Reads moved off a replica that stopped answering, and the seconds they were (the timeline has each). */
function fallbackMd(s) {
  if (!s.replicaFallbacks) return [];
  const span = s.replicaFallbackSeconds;
  const when = span ? ` in seconds ${span[0]}–${span[1]}` : '';
  return [
    `**Replica fallbacks:** ${grouped(s.replicaFallbacks)} reads went to another node of their shard${when}, as the replica meant to serve them stopped answering (the timeline's replica_fallbacks column has them per second; no cycle failed for it unless said above).`,
    '',
  ];
}
