/**
 * RESULTS.md for ops steps (seeds 003 and 004): seed 003's per-operation table over every step's
 * services (n, min, avg, med, p90, p99, max in ms), seed 004's connect / first call / warm table,
 * who was busy in each step (each server's CPU and the ops process's, measured around the step),
 * and wrk2's "Detailed Percentile spectrum" of the warm calls of the operations `spectrum:` names,
 * from the operation's .hlog.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fixed, mdTable } from '../../record/format.js';
import { mergeHlogFiles } from '../../record/hlog.js';
import { percentileSpectrum, printfFixed } from '../../report/spectrum.js';
import { latencyTable, overheadTable, phasesTable } from '../../runs/ops/ops-table.js';
import { REDIS_OPS } from '../../workloads/single-ops/redis-ops.js';
import { opHlogName } from '../../workloads/single-ops/run-ops.js';
import { SERVICE_NAMES, overheadWords, phasesWords, roundTripWords, seedNumbers, spectrumWords, startedServer } from './ops-words.js';

export { SERVICE_NAMES };

/**
 * Each service's operations, by its `--only` word, in the order ops times them. Redis's come from
 * its operation list; the queue services make theirs when they open (after the SDK loads), so
 * their names are written here, for `check:` to know them before anything runs.
 * @type {Record<string, string[]>}
 */
export const OPS_OF = {
  redis: REDIS_OPS.map((o) => o.name),
  sqs: ['ReceiveMessage', 'SendMessage'],
  sns: ['GetTopicAttributes', 'Publish'],
  pubsub: ['Publish', 'Pull'],
  s3: ['HeadObject', 'PutObject'],
  sts: ['AssumeRole', 'GetCallerIdentity'],
  cloudwatch: ['GetMetricData', 'PutMetricData'],
  events: ['DescribeEventBus', 'PutEvents'],
  dynamodb: ['GetItem', 'PutItem'],
  pinpoint: ['GetEndpoint', 'PutEvents'],
  s3express: ['PutObject', 'GetObject'],
};

const WORD_OF = Object.fromEntries(Object.entries(SERVICE_NAMES).map(([w, n]) => [n, w]));

/** Per operation: `<service>_<operation>_<measure>`, e.g. redis_get_first_ms. */
const MEASURES = {
  connect_ms: 'connecting (a fresh connection, or making the client), ms',
  first_ms: 'the first call on it, ms',
  warm_n: 'warm calls measured',
  warm_avg_ms: 'warm calls, mean, ms',
  warm_p50_ms: 'warm calls, median, ms',
  warm_p90_ms: 'warm calls, p90, ms',
  warm_p99_ms: 'warm calls, p99, ms',
  warm_max_ms: 'warm calls, max, ms',
  first_over_warm: 'the first call / the warm median',
  overhead_n: 'warm calls whose client overhead was measured',
  overhead_avg_ms: 'client overhead of the warm calls (the call less its time on the wire), mean, ms',
  overhead_p50_ms: 'client overhead of the warm calls, median, ms',
  overhead_p90_ms: 'client overhead of the warm calls, p90, ms',
  overhead_p99_ms: 'client overhead of the warm calls, p99, ms',
  overhead_max_ms: 'client overhead of the warm calls, max, ms',
};

/** Metric name → what it is, for `check:`. */
export const OPS_METRICS = {
  ...Object.fromEntries(
    Object.entries(OPS_OF).flatMap(([w, ops]) =>
      ops.flatMap((op) =>
        Object.entries(MEASURES).map(([m, what]) => [`${w}_${op.toLowerCase()}_${m}`, `${SERVICE_NAMES[w]} ${op}: ${what}`]),
      ),
    ),
  ),
  min_first_over_warm: "the smallest first call / warm median over the step's operations",
  failed_ops: 'operations of the step that failed',
  redis_cpu: "the local Redis's CPU over the step, % of one core",
  sqs_sns_emulator_cpu: "the SQS/SNS emulator's CPU over the step (fauxqs, in the runner's process), % of one core",
  pubsub_emulator_cpu: "the Pub/Sub emulator's CPU over the step (its JVM), % of one core",
  moto_cpu: "moto's server's CPU over the step (its Python process), % of one core",
  not_emulated_ops: "operations of the step the endpoint does not implement (an emulator's gap, not a failure)",
  rqbench_cpu: "the ops process's CPU over the step, % of one core",
};

/**
 * Each server's CPU figure in step.json, how it is named, and whether it is an emulator.
 * @type {Array<[string, string, boolean]>}
 */
const SERVER_CPU = [
  ['redisPct', 'the local Redis', false],
  ['sqsEmulatorPct', 'the SQS/SNS emulator (fauxqs)', true],
  ['pubsubEmulatorPct', 'the Pub/Sub emulator', true],
  ['motoPct', "moto's server", true],
];

/**
 * A step's metrics, from its own summary.json and step.json.
 * @returns {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>}
 */
export function opsMetricsOf() {
  return (s) => {
    const out = /** @type {Record<string, number|undefined>} */ ({});
    const ratios = [];
    let failed = 0;
    let notEmulated = 0;
    for (const svc of s.r?.summary?.services ?? []) {
      for (const op of svc.ops) {
        if (op.notEmulated) notEmulated++;
        else if (op.error) failed++;
        const k = `${WORD_OF[svc.service] ?? svc.service.toLowerCase()}_${op.name.toLowerCase()}_`;
        const st = op.stats;
        const ratio = st && op.firstMs !== null && st.p50 > 0 ? op.firstMs / st.p50 : undefined;
        if (ratio !== undefined) ratios.push(ratio);
        Object.assign(out, {
          [`${k}connect_ms`]: op.connectMs ?? undefined,
          [`${k}first_ms`]: op.firstMs ?? undefined,
          [`${k}warm_n`]: st?.count,
          [`${k}warm_avg_ms`]: st?.mean,
          [`${k}warm_p50_ms`]: st?.p50,
          [`${k}warm_p90_ms`]: st?.p90,
          [`${k}warm_p99_ms`]: st?.p99,
          [`${k}warm_max_ms`]: st?.max,
          [`${k}first_over_warm`]: ratio,
        });
        const o = op.overhead;
        if (o) {
          Object.assign(out, {
            [`${k}overhead_n`]: o.count,
            [`${k}overhead_avg_ms`]: o.mean,
            [`${k}overhead_p50_ms`]: o.p50,
            [`${k}overhead_p90_ms`]: o.p90,
            [`${k}overhead_p99_ms`]: o.p99,
            [`${k}overhead_max_ms`]: o.max,
          });
        }
      }
    }
    const cpu = s.r?.meta?.cpu ?? {};
    const n = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
    return {
      ...out,
      min_first_over_warm: ratios.length ? Math.min(...ratios) : undefined,
      failed_ops: s.r?.summary ? failed : undefined,
      not_emulated_ops: s.r?.summary ? notEmulated : undefined,
      redis_cpu: n(cpu.redisPct),
      sqs_sns_emulator_cpu: n(cpu.sqsEmulatorPct),
      pubsub_emulator_cpu: n(cpu.pubsubEmulatorPct),
      moto_cpu: n(cpu.motoPct),
      rqbench_cpu: n(cpu.rqbenchPct),
    };
  };
}

/**
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {Promise<string[]>}
 */
export async function opsResults(spec, steps) {
  const done = steps.filter((s) => s.r?.complete);
  // a service timed by several steps is told apart by the step's label
  const counts = new Map();
  for (const s of done) for (const svc of s.r.summary.services) counts.set(svc.service, (counts.get(svc.service) ?? 0) + 1);
  const services = done.flatMap((s) =>
    s.r.summary.services.map((svc) => ({
      ...svc,
      service: counts.get(svc.service) > 1 ? `${svc.service} (${s.step.label})` : svc.service,
    })),
  );
  const notRun = steps.filter((s) => !s.r?.complete).map((s) => s.step.label);
  const lengths = [
    ...new Set(done.map((s) => `${s.r.summary.warmupS} s of warm-up calls (not recorded), then ${s.r.summary.durationS} s`)),
  ].join('; or ');
  // the seed's S3 Express table is E2E duration, apart from the overhead table
  const express = services.filter((x) => x.service.startsWith('S3Express'));
  const main = services.filter((x) => !express.includes(x));
  const words = [...new Set(done.flatMap((s) => /** @type {string[]} */ (s.step.services)))];
  const mainWords = words.filter((w) => w !== 's3express');
  const seeds = seedNumbers(spec.seed);
  const out = [
    main.length ? overheadTable(main) : 'No step has run yet.',
    '',
    ...(notRun.length ? [`Not run yet: ${notRun.join(', ')}.`, ''] : []),
    overheadWords(seeds, mainWords),
    '',
    '### Round trip',
    '',
    main.length ? latencyTable(main) : 'No step has run yet.',
    '',
    roundTripWords(spec, mainWords, lengths || 'warm-up calls, then measured calls'),
    '',
    ...(express.length
      ? [
          '### S3 Express',
          '',
          latencyTable(express, 'E2E Duration (ms)'),
          '',
          "E2E duration: each PutObject and GetObject (its body read) from send to reply, as the seed's S3 Express table. Stand-in: a general-purpose bucket of the run's own on the SQS/SNS/S3 emulator (fauxqs) for the seed's S3 Express One Zone directory bucket in AWS.",
          '',
        ]
      : []),
    '### Connect, first call, warm calls',
    '',
    services.length ? phasesTable(services) : 'No step has run yet.',
    '',
    phasesWords(words),
    '',
    ...cpuSection(done),
    ...spectra(steps, spec),
    ...opNotes(done),
  ];
  return out;
}

/**
 * Each step's CPU, and which side was busier: a server (an emulator above all) or the ops process.
 * A step none of whose calls was timed (every operation not emulated or failed) has no calls to
 * split: its CPU is the process starting.
 * @param {import('./kind-contract.js').StepRun[]} done
 */
export function cpuSection(done) {
  if (!done.length) return [];
  const rows = done.map((s) => {
    const c = s.r.meta?.cpu ?? {};
    const servers = SERVER_CPU.filter(([k]) => c[k] !== undefined)
      .map(([k, label]) => `${label} ${fixed(c[k], 0)}`)
      .join(', ');
    return [
      s.step.label,
      s.step.services.map((x) => SERVICE_NAMES[x]).join(', '),
      servers || '-',
      fixed(c.rqbenchPct, 0),
      fixed(c.wallS, 1),
    ];
  });
  const out = [
    '### Who was busy',
    '',
    mdTable(['Step', 'Services', 'Server CPU %', 'rqbench ops CPU %', 'Step s'], rows),
    '',
    "CPU is % of one core over each step, measured around it from /proc: each server the runner started (the SQS/SNS emulator runs in the runner's process, so that figure is the runner's own) and the ops process. With one call at a time, a call's time is split between the two sides: the busier one sets the latency.",
    '',
  ];
  for (const s of done) {
    const c = s.r.meta?.cpu ?? {};
    const names = s.step.services.map((x) => SERVICE_NAMES[x]).join(', ');
    const timed = s.r.summary.services.some((svc) => svc.ops.some((op) => op.stats));
    if (!timed) {
      out.push(
        `No operation of ${names} was timed (each was not emulated or failed): the ops process's ${fixed(c.rqbenchPct, 0)}% of a core over the ${fixed(c.wallS, 1)} s step is the process starting, loading its SDK and setting up, not timed calls.`,
        '',
      );
      continue;
    }
    for (const [k, label, emulator] of SERVER_CPU) {
      if (!emulator || c[k] === undefined || c[k] === null || c.rqbenchPct === null) continue;
      if (c[k] <= c.rqbenchPct) {
        out.push(
          `The ops process (the service's SDK client), not ${label}, was the busier side of ${s.step.label}: ${fixed(c.rqbenchPct, 0)}% of a core over the step against the emulator's ${fixed(c[k], 0)}%; on this machine those calls cost the client more than the emulator.`,
          '',
        );
        continue;
      }
      out.push(
        `**${label[0].toUpperCase()}${label.slice(1)}, not rqbench, was the busier side of ${s.step.label}**: it used ${fixed(c[k], 0)}% of a core over the step while the ops process used ${fixed(c.rqbenchPct, 0)}%; these round-trip figures say more about ${label} than about ${names}.`,
        '',
      );
    }
  }
  return out;
}

/**
 * wrk2's "Detailed Percentile spectrum" of each chosen operation's warm calls, with wrk2's
 * trailer (calls in the measured seconds, calls per second).
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @param {import('../spec.js').Spec} spec
 */
function spectra(steps, spec) {
  const seeds = seedNumbers(spec.seed);
  const out = [];
  for (const s of steps) {
    for (const { service, op } of s.step.spectrum ?? []) {
      out.push(
        `### Single ${SERVICE_NAMES[service]} ${op} calls, warm, in wrk2's Detailed Percentile spectrum layout (step ${s.step.label})`,
        '',
      );
      if (!s.r?.complete) {
        out.push('not run yet', '');
        continue;
      }
      const file = path.join(s.r.opsDir, opHlogName(SERVICE_NAMES[service], op));
      const h = fs.existsSync(file) ? mergeHlogFiles([file], { tag: 'warm' }) : null;
      if (!h?.totalCount) {
        out.push(`No warm calls were recorded (${path.basename(file)} is missing or empty).`, '');
        continue;
      }
      const secs = s.r.summary.durationS;
      out.push(
        '```',
        `${percentileSpectrum(h)}----------------------------------------------------------`,
        `  ${h.totalCount} requests in ${printfFixed(secs, 2)}s`,
        `Requests/sec: ${printfFixed(h.totalCount / secs, 2).padStart(9)}`,
        '```',
        '',
        spectrumWords(seeds, SERVICE_NAMES[service], op, path.basename(file), startedServer(service, spec.topology)),
        '',
      );
    }
  }
  return out;
}

/**
 * What each operation did, and what failed; an operation the endpoint does not implement is said
 * so, and is no failure (failed_ops leaves it out).
 * @param {import('./kind-contract.js').StepRun[]} done
 */
export function opNotes(done) {
  const lines = [];
  for (const s of done) {
    for (const svc of s.r.summary.services) {
      for (const op of svc.ops) {
        const outcome = op.notEmulated
          ? ` — not emulated: ${op.error}; not counted as a failure`
          : op.error
            ? ` — **failed**: ${op.error}`
            : '';
        lines.push(`- ${svc.service} ${op.name}: ${op.what}${op.detail ? `; ${op.detail}` : ''}${outcome}.`);
      }
      if (svc.error) lines.push(`- ${svc.service}: **${svc.error}**.`);
    }
  }
  return lines.length ? ['### The operations', '', ...lines, ''] : [];
}
