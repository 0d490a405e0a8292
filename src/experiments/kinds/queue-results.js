/**
 * RESULTS.md for queue steps (seed 000): the seed's table per step — Percentile | Reading off SQS
 * | Server side processing | E2E, p50 and p999 (Pub/Sub without the reading column, as in the
 * seed) — with the seed's own figures beside the local ones; one row per step across them; and
 * who was busy, from the CPU measured around each step: the emulator's, and rqbench's publisher
 * and consumer together.
 */
import { fixed, grouped, mdTable } from '../../record/format.js';
import { seedDuration } from '../../runs/queue-consume/queue-consumer-summary.js';
import { FLAG, anyThin, pctCell, thinNote } from '../../runs/common/thin-percentiles.js';
import { DELIVERING } from '../../local/latency-proxy.js';

/** Metric name → what it is, for `check:`. */
export const QUEUE_METRICS = {
  e2e_sent_p50_ms: 'E2E p50 as the seed defines it: from right before the message is sent to the update applied, ms',
  e2e_sent_p999_ms: 'E2E p999 from right before the send, ms',
  e2e_p50_ms: "E2E p50 from the publisher's schedule (the intended send, corrected for coordinated omission) to the update applied, ms",
  e2e_p999_ms: "E2E p999 from the publisher's schedule, ms",
  read_p50_ms: 'reading off the queue (a receive call) p50, ms (SQS)',
  read_p999_ms: 'reading off the queue p999, ms (SQS)',
  processing_p50_ms: 'server side processing p50, ms',
  processing_p999_ms: 'server side processing p999, ms',
  e2e_sent_n: 'messages the E2E percentiles are read from',
  e2e_n: "messages the E2E percentiles from the publisher's schedule are read from",
  read_n: 'receive calls the reading percentiles are read from (SQS)',
  processing_n: 'messages the processing percentiles are read from',
  messages_per_sec: 'messages applied per second',
  rows_per_sec: 'updates (rows) applied per second',
  batch: 'updates per message',
  threads: "the consumer's thread pool",
  missing: 'messages published and never applied',
  duplicates: 'messages applied twice',
  publish_p99_ms: 'publish call p99 from the intended start, ms',
  kept_up: "messages applied per second over the publisher's rate (1: the consumer kept up)",
  complete: "1 when every message the publisher sent was applied before the consumer's end, else 0",
  emulator_cpu: "the emulator's CPU over the step, % of one core",
  rqbench_cpu: "the publisher's and consumer's CPU over the step together, % of one core",
};

/** Above this share of one core the emulator is called the busiest part of the step. */
const BUSY_PCT = 80;
/** Below this share of the publisher's rate the consumer did not keep up. */
const KEPT_UP = 0.95;

/**
 * A consumer that fell behind measured a backlog, not a latency at the rate asked (the seed gives
 * no applied rate to set beside it).
 * @param {any} _step
 * @param {Record<string, number|undefined>} m medians
 */
export function queueOutOfRegime(_step, m) {
  if (m.kept_up === undefined || m.kept_up >= KEPT_UP) return null;
  return `its consumer applied messages at ${Math.round(m.kept_up * 1000) / 10}% of the publisher's rate (median, over the span from its first to its last) and fell behind over the run (the seed gives no applied rate)`;
}
/** How long a queue step's consumer may read after the publisher's end (queue-kind.js). */
const DRAIN_NOTE = '30 s';

/**
 * A step's metrics come from its own directory (no step needs another's, unlike capacity's cost table).
 * @returns {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>}
 */
export function queueMetricsOf() {
  return (s) => {
    const c = s.r?.consumer;
    const p = s.r?.publisher;
    const L = c?.latency ?? {};
    const n = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
    return {
      e2e_sent_p50_ms: n(L.e2eSent?.p50),
      e2e_sent_p999_ms: n(L.e2eSent?.p999),
      e2e_p50_ms: n(L.e2e?.p50),
      e2e_p999_ms: n(L.e2e?.p999),
      read_p50_ms: n(L.read?.p50),
      read_p999_ms: n(L.read?.p999),
      processing_p50_ms: n(L.processing?.p50),
      processing_p999_ms: n(L.processing?.p999),
      e2e_sent_n: n(L.e2eSent?.count),
      e2e_n: n(L.e2e?.count),
      read_n: n(L.read?.count),
      processing_n: n(L.processing?.count),
      messages_per_sec: n(c?.messagesPerSec),
      rows_per_sec: n(c?.rowsPerSec),
      batch: n(c?.averageBatchSize),
      threads: n(c?.threads),
      missing: n(c?.nothingLost?.missing),
      duplicates: n(c?.nothingLost?.duplicates),
      publish_p99_ms: n(p?.latency?.publish?.intended?.p99),
      emulator_cpu: n(s.r?.meta?.cpu?.emulatorPct),
      rqbench_cpu: n(s.r?.meta?.cpu?.rqbenchPct),
      kept_up:
        n(c?.messagesPerSec) !== undefined && s.step.flags.rate
          ? Math.round((c.messagesPerSec / s.step.flags.rate) * 1000) / 1000
          : undefined,
      complete: c ? (c.nothingLost?.ok ? 1 : 0) : undefined,
    };
  };
}

/**
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {Promise<string[]>}
 */
export async function queueResults(spec, steps) {
  const metricsOf = queueMetricsOf();
  const rows = steps.map((s) => {
    if (!s.r?.complete)
      return [
        s.step.label,
        s.step.flags['batch-size'] ?? '-',
        s.step.flags.rate ?? '-',
        s.step.consumer.threads ?? '-',
        'not run yet',
        '',
        '',
        '',
        '',
        '',
        '',
      ];
    const m = metricsOf(s);
    return [
      s.step.label,
      grouped(m.batch),
      fixed(m.messages_per_sec, 1),
      m.threads ?? '-',
      grouped(m.rows_per_sec),
      pct(m.e2e_sent_p50_ms, m.e2e_sent_n, 0.5),
      pct(m.e2e_sent_p999_ms, m.e2e_sent_n, 0.999),
      `${pct(m.e2e_p50_ms, m.e2e_n, 0.5)} / ${pct(m.e2e_p999_ms, m.e2e_n, 0.999)}`,
      `${grouped(m.missing ?? NaN)} / ${grouped(m.duplicates ?? NaN)}${m.complete ? '' : ', unfinished'}`,
      fixed(m.emulator_cpu, 0),
      fixed(m.rqbench_cpu, 0),
    ];
  });
  const out = [
    mdTable(
      [
        'Step',
        'Batch size',
        'Messages/s',
        'Thread pool',
        'Updates/s',
        'E2E p50',
        'E2E p999',
        'E2E from the schedule p50 / p999',
        'Missing / duplicates',
        'Emulator CPU %',
        'rqbench CPU %',
      ],
      rows,
    ),
    '',
    ...(anyThin(rows) ? [thinNote('messages'), ''] : []),
    "E2E is the seed's: from right before the message is sent to the update applied. Beside it, E2E from the publisher's schedule (the intended send, corrected for coordinated omission): the same where the publisher kept its schedule, longer where a send was late. CPU is % of one core over each step, measured around it: the emulator's (in the runner's process for SQS/SNS, with the latency model's proxy when a step has one; its JVM for Pub/Sub) and the publisher's and consumer's together.",
    '',
    ...modelLines(steps),
  ];
  for (const s of steps) out.push(...stepTable(s, metricsOf));
  const unfinished = steps.filter((s) => s.r?.complete && metricsOf(s).complete === 0);
  if (unfinished.length)
    out.push(
      `Unfinished: ${unfinished.map((s) => s.step.label).join(', ')} — the consumer reached its end (the step's duration + ${DRAIN_NOTE}) before every message the publisher sent was applied; its missing count covers only the messages up to the last one it saw.`,
      '',
    );
  const behind = steps.filter((s) => s.r?.complete && (metricsOf(s).kept_up ?? 1) < KEPT_UP);
  for (const s of behind) {
    const m = metricsOf(s);
    const idle = (m.emulator_cpu ?? 100) < BUSY_PCT && (m.rqbench_cpu ?? 100) < BUSY_PCT;
    out.push(
      `${s.step.label}, in the trial shown: the consumer applied ${fixed(m.messages_per_sec, 1)} messages/s of the ${s.step.flags.rate} published (${Math.round((m.kept_up ?? 0) * 100)}%) and fell behind, so E2E grew with the backlog. ` +
        (idle
          ? `Neither the emulator (${fixed(m.emulator_cpu, 0)}% of a core) nor the publisher and consumer (${fixed(m.rqbench_cpu, 0)}%) was busy: the messages the consumer keeps in flight, not CPU, set the pace (a larger thread pool keeps more).`
          : 'A process was busy: see the CPU columns.'),
      '',
    );
  }
  const busy = steps.filter((s) => s.r?.complete && (metricsOf(s).emulator_cpu ?? 0) >= BUSY_PCT);
  if (busy.length) {
    out.push(
      `**The emulator, not rqbench, was the busiest part of ${busy.map((s) => s.step.label).join(', ')}**: it used ${busy.map((s) => `${fixed(metricsOf(s).emulator_cpu, 0)}%`).join(', ')} of a core while the publisher and consumer together used ${busy.map((s) => `${fixed(metricsOf(s).rqbench_cpu, 0)}%`).join(', ')}; those figures say more about the emulator than about the service.`,
      '',
    );
  }
  return out;
}

/**
 * The seed's table for one step, the seed's figure beside each local one.
 * @param {import('./kind-contract.js').StepRun} s
 * @param {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>} metricsOf
 */
function stepTable(s, metricsOf) {
  const f = s.step.flags;
  const title = `### ${s.step.label}: Batch size - ${grouped(f['batch-size'] ?? 1000)}, Rate - ${f.rate ?? 45} = ${grouped((f['batch-size'] ?? 1000) * (f.rate ?? 45))}, Thread pool size - ${s.step.consumer.threads ?? 4}${s.step.latencyModel ? ', under the latency model' : ''}`;
  if (!s.r?.complete) return [title, '', 'not run yet', ''];
  const m = metricsOf(s);
  const seed = s.step.seedFigures ?? {};
  const sqs = s.step.consumer.target === 'sqs';
  const q = (key) => (key === 'p50' ? 0.5 : 0.999);
  const cell = (what, row, i, key) => `${pct(m[`${what}_${key}_ms`], m[`${what}_n`], q(key))}${seed[row] ? ` (seed ${seed[row][i]})` : ''}`;
  const line = (label, i, key) => [
    label,
    ...(sqs ? [cell('read', 'read', i, key)] : []),
    cell('processing', 'processing', i, key),
    cell('e2e_sent', 'e2e', i, key),
    pct(m[`e2e_${key}_ms`], m.e2e_n, q(key)),
  ];
  const rows = [line('p50', 0, 'p50'), line('p999', 1, 'p999')];
  return [
    title,
    '',
    mdTable(
      ['Percentile', ...(sqs ? ['Reading off SQS'] : []), 'Server side processing', 'E2E', 'E2E from the schedule (CO-corrected)'],
      rows,
    ),
    '',
    ...(anyThin(rows)
      ? [
          thinNote(
            `samples (${grouped(m.e2e_sent_n ?? NaN)} messages${sqs ? `, ${grouped(m.read_n ?? NaN)} timed receive calls that returned messages` : ''})`,
          ),
          '',
        ]
      : []),
  ];
}

/**
 * The latency model of the steps that ran under it: what the spec asked for, what was drawn.
 * @param {import('./kind-contract.js').StepRun[]} steps
 */
function modelLines(steps) {
  const under = steps.filter((s) => s.step.latencyModel);
  if (!under.length) return [];
  const entries = Object.entries(under[0].step.latencyModel);
  const fitOf = ([a, f]) => `${a} p50 ${seedDuration(f.p50Ms)}, p999 ${seedDuration(f.p999Ms)}`;
  const answers = entries.filter(([a]) => !DELIVERING.has(a)).map(fitOf);
  const deliveries = entries.filter(([a]) => DELIVERING.has(a)).map(fitOf);
  const asked = [
    answers.length ? `holds each answer of ${answers.join('; ')} (the emulator's own time taken off)` : '',
    deliveries.length
      ? `holds each ${deliveries.join('; ')} before it reaches the emulator, which delivers it to the queue on receipt (so the draw is the SNS→SQS delivery's, and the publisher's call waits it too)`
      : '',
  ]
    .filter(Boolean)
    .join(', and ');
  const drawn = under
    .filter((s) => s.r?.meta?.latencyModel?.drawn)
    .map((s) => {
      const d = s.r.meta.latencyModel.drawn;
      const parts = Object.keys(s.step.latencyModel).map((a) => (d[a] ? `${a} ${heldWords(d[a])}` : `no ${a}`));
      return `${s.step.label}: ${parts.join('; ')}`;
    });
  return [
    `**Latency model** (steps ${under.map((s) => s.step.label).join(', ')}): the emulator answers in about a millisecond where the service took tens, so these steps reach it through a proxy that ${asked}; each draw is a log-normal through the two percentiles named (the spec's notes say which are the seed's); every other action passes at once. Stand-in: the model for AWS's own latency; it follows AWS only where a named percentile is the seed's, and the others are assumed. ${drawn.length ? `Held, in the trial shown: ${drawn.join('. ')}.` : ''}`,
    '',
    ...(drawn.some((x) => x.includes(FLAG)) ? [thinNote('draws'), ''] : []),
  ];
}

/**
 * What the proxy held an action's calls for: p50, and p999 unless fewer than 1,000 calls were held,
 * where the nearest-rank p999 (latency-proxy.js) is the largest draw and is named so; a p999 read
 * off fewer than 10 draws beyond it is flagged as the tables flag one.
 * @param {{ calls: number, delayMs: { count: number, p50: number, p999: number, max?: number }|null }} d
 */
export function heldWords(d) {
  const head = `${grouped(d.calls)} calls held`;
  const h = d.delayMs;
  if (!h) return `${head}, no delay drawn`;
  const tail = h.count < 1000 ? `the largest ${seedDuration(h.max ?? h.p999)}` : `p999 ${pctCell(seedDuration(h.p999), h.count, 0.999)}`;
  return `${head} p50 ${seedDuration(h.p50)}, ${tail}`;
}

/**
 * A percentile's cell as the seed writes a time, flagged when too few samples lie beyond it.
 * @param {number|undefined} ms
 * @param {number|undefined} n the samples it was read from
 * @param {number} q 0.5, 0.999
 */
function pct(ms, n, q) {
  const text = seedDuration(ms);
  return n === undefined ? text : pctCell(text, n, q);
}
