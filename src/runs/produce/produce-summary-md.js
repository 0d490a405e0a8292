/**
 * summary.md: the seed's table layout (Writers | Items per writer per sec | master CPU |
 * replica CPU — the main thread's, with the process's beside), then what the seed could not
 * show: achieved vs target, per-node CPU and the latency percentiles.
 */
import { anyThin, pctCell, thinNote } from '../common/thin-percentiles.js';
import { fixed, grouped, mdTable, short } from '../../record/format.js';
import { actionsMd, episodesMd } from '../common/actions-md.js';
import { dropsMd } from '../common/drops-md.js';
import { costMd } from '../common/cost-md.js';
import { basisNote, coverageNote, nodeCpuMd, outcomeMd, roleCpuColumns } from '../common/cpu-md.js';

const LATENCY_ORDER = ['batch', 'setex', 'zadd', 'lpush', 'ltrim', 'pfadd', 'sadd', 'expire', 'evalsha', 'purge'];

/**
 * @param {object} run manifest-like facts: name, dir, mode, flags line, topology text
 * @param {ReturnType<import('./produce-summary.js').summarize>} s
 */
export function renderSummaryMd(run, s) {
  const out = [];
  out.push(`# ${run.name}`, '');
  out.push(`${run.description}${run.interrupted ? ' **Interrupted** before the planned end.' : ''}`, '');
  const cpu = roleCpuColumns(s.cpu);
  out.push(
    mdTable(['Writers', 'Items per writer per sec', ...cpu.header], [[s.writers, short(s.target.itemsPerWriterPerSec), ...cpu.cells]]),
    '',
  );
  out.push(...basisNote(s.cpu), ...coverageNote(s.cpu), ...outcomeMd(s.outcome));
  out.push(
    `**Rate:** target ${grouped(s.target.itemsPerSec)} items/s, achieved ${grouped(s.achieved.itemsPerSec)} items/s — ${s.verdict}.`,
    '',
  );
  const t = s.totals;
  out.push(
    `**Items:** due by the schedule ${grouped(t.intended)}, sent ${grouped(t.sent)}, acknowledged ${grouped(t.acked)}, failed ${grouped(t.failed)}, unacknowledged at the end ${grouped(t.unacked || 0)}; MOVED ${grouped(t.moved)}, ASK ${grouped(t.ask)}, retries ${grouped(t.retries)}${retryKinds(t)}, error replies ${grouped(t.errors)}${errorList(s.errorKinds)}.`,
    '',
  );
  out.push(...dropsMd(s.connectionDrops));
  out.push(...actionsMd(s.actions, s.disturbance, 'writes'));
  out.push(...episodesMd(s.disturbances, 'writes'));
  if (s.verify) out.push(verifyLine(s.verify), '');
  out.push(...nodeCpuMd(s.cpu));
  out.push(...costMd(s.cost));
  const ops = Object.keys(s.latency).sort((a, b) => rank(a) - rank(b));
  const rows = [];
  for (const op of ops) {
    for (const [from, label] of [
      ['intended', 'intended start'],
      ['sent', 'actual send'],
      ['lag', 'schedule lag'],
    ]) {
      const st = s.latency[op][from];
      if (!st || !st.count) continue;
      rows.push([
        op === 'lag' ? 'schedule lag' : op,
        label,
        pctCell(fixed(st.p50, 3), st.count, 0.5),
        pctCell(fixed(st.p99, 3), st.count, 0.99),
        pctCell(fixed(st.p999, 3), st.count, 0.999),
        fixed(st.max, 3),
        grouped(st.count),
      ]);
    }
  }
  if (rows.length) {
    out.push('Latency in ms (from the intended start: corrected for coordinated omission; from the actual send: uncorrected):', '');
    out.push(mdTable(['Operation', 'From', 'p50', 'p99', 'p99.9', 'max', 'count'], rows), '');
    if (anyThin(rows)) out.push(thinNote(), '');
  }
  const c = s.client;
  out.push(
    `**Load generator:** CPU ${fixed(c.cpuPct)}% of a core in total, up to ${fixed(c.cpuPctMaxWriter)}% for one writer; event-loop delay p99 up to ${fixed(c.loopP99MsMax)} ms; memory up to ${fixed(c.rssMbMax)} MB.`,
    '',
  );
  out.push(
    `Window: seconds ${s.window.fromSecond}–${s.window.toSecond} (${s.window.seconds} s; the first ${s.window.fromSecond} s of warm-up, and any second after the planned end or the stop, are in timeline.csv and the .hlog files but not in these figures): the rate counts the items due in these seconds, the latency the replies that arrived in them, the CPU their samples. CPU is % of one core: on a 2-vCPU ElastiCache node, CloudWatch's CPUUtilization shows about half of it; master and replica CPU are the main thread's where the server reports it (CloudWatch's EngineCPUUtilization), the thread that runs every command and saturates first.`,
    '',
  );
  return out.join('\n');
}

function rank(op) {
  const i = LATENCY_ORDER.indexOf(op);
  return op === 'lag' ? 100 : i < 0 ? 50 : i;
}

export function errorList(kinds) {
  const e = Object.entries(kinds || {});
  return e.length ? ` (${e.map(([k, n]) => `${k} ${n}`).join(', ')})` : '';
}

/** Why the writers retried, when they did: TRYAGAIN, CLUSTERDOWN, lost connections. */
function retryKinds(t) {
  const kinds = [
    ['TRYAGAIN', t.tryagain],
    ['CLUSTERDOWN', t.clusterdown],
    ['connection lost', t.connRetries],
  ].filter(([, n]) => n > 0);
  return kinds.length ? ` (${kinds.map(([k, n]) => `${k} ${grouped(n)}`).join(', ')})` : '';
}

/** --verify's result in one line. */
function verifyLine(v) {
  if (v.skipped) return `**Verify:** did not run to the end: ${v.skipped}.`;
  if (v.error) return `**Verify:** could not read the items back: ${v.error}.`;
  const bySecond = Object.entries(v.lostBySecond ?? {})
    .map(([sec, n]) => `${grouped(n)} written in second ${sec}`)
    .join(', ');
  const lost = v.lost ? ` (${bySecond}; first lost ids: ${v.lostSample.join(', ')})` : '';
  const mismatched = v.mismatched ? `, holding another item's value ${grouped(v.mismatched)}` : '';
  return `**Verify:** acknowledged ${grouped(v.acked)}, present ${grouped(v.present)}, lost ${grouped(v.lost)}${lost}${mismatched}; read back in ${grouped(v.ms)} ms.`;
}
