/**
 * RESULTS.md for load steps (seed 001): one row per step across them (the best cell, the fewest
 * and the most reader threads, exactly once, the CPU Redis and the load process used), then the
 * seed's table per step (reader threads | connections | data loading time | num records per sec)
 * with each cell's exactly-once check, and who was busy, from the CPU measured around each step.
 */
import { fixed, grouped, mdTable } from '../../record/format.js';
import { SHORT_CELL_S, checkLines, loadTable } from '../../runs/load/load-table.js';

/** Metric name → what it is, for `check:`. */
/**
 * A best cell shorter than SHORT_CELL_S is start-up and the host, not a loading rate: such a
 * step cannot decide a verdict.
 * @param {any} _step
 * @param {Record<string, number|undefined>} m medians
 */
export function loadOutOfRegime(_step, m) {
  if (m.best_load_s === undefined || m.best_load_s >= SHORT_CELL_S) return null;
  return `its best cell loaded in ${Math.round(m.best_load_s * 1000)} ms (median), under ${SHORT_CELL_S} s: too short a window to carry a rate`;
}

export const LOAD_METRICS = {
  best_records_per_sec: "records per second of the step's best cell",
  best_threads: 'reader threads of the best cell',
  best_connections: "connections of the best cell (the S3 client's, for a step from S3)",
  fewest_threads: 'the fewest reader threads in the grid',
  fewest_threads_records_per_sec: 'records per second at the fewest reader threads (the best of its cells)',
  most_threads: 'the most reader threads in the grid',
  most_threads_records_per_sec: 'records per second at the most reader threads (the best of its cells)',
  thread_scaling: 'most_threads_records_per_sec / fewest_threads_records_per_sec',
  fewest_connections_records_per_sec: 'records per second at the fewest connections (the best of its cells)',
  most_connections_records_per_sec: 'records per second at the most connections (the best of its cells)',
  best_load_s: 'data loading time of the best cell, s',
  records: 'records in the delta file',
  cells: 'cells of the grid that ran',
  check_ok: '1 when every cell stored every record exactly once (and read back equal, for Redis), else 0',
  redis_cpu: "the local Redis's CPU over the step (cells, flushes and read-backs), % of one core",
  redis_cpu_us_per_record: "the local Redis's CPU per record stored over the step, µs",
  rqbench_cpu: "the load process's CPU over the step (every reader thread), % of one core",
  s3_emulator_cpu: "the S3 emulator's CPU over a step from S3 (fauxqs, in the runner's process), % of one core",
};

/** Redis at this share of a core (or more), per record, is called the bottleneck of its grid. */
const SATURATED = 0.7;

/**
 * The cell of the most records per second (the first of equals).
 * @template {{ recordsPerSec: number }} C
 * @param {C[]} cells
 * @returns {C}
 */
export function bestCell(cells) {
  return cells.reduce((b, c) => (c.recordsPerSec > b.recordsPerSec ? c : b));
}

/**
 * A step's metrics, from its own summary.json and step.json.
 * @returns {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>}
 */
export function loadMetricsOf() {
  return (s) => metricsOfStep(s.r?.summary, s.r?.meta);
}

/**
 * @param {any} summary
 * @param {any} meta
 * @returns {Record<string, number|undefined>}
 */
function metricsOfStep(summary, meta) {
  const cells =
    /** @type {Array<{ threads: number, connections: number, s3Connections?: number, loadS: number, recordsPerSec: number, stored: number }>} */ (
      summary?.cells ?? []
    );
  const n = (x) => (typeof x === 'number' && Number.isFinite(x) ? x : undefined);
  if (!cells.length) return {};
  const top = bestCell(cells);
  const threads = cells.map((c) => c.threads);
  // from S3 the grid's second dimension is the S3 client's connections (the seed's)
  const connKey = cells.some((c) => c.s3Connections) ? 's3Connections' : 'connections';
  const conns = cells.map((c) => c[connKey]);
  const at = (key, v) => bestCell(cells.filter((c) => c[key] === v)).recordsPerSec;
  const fewest = at('threads', Math.min(...threads));
  const most = at('threads', Math.max(...threads));
  const stored = cells.reduce((t, c) => t + c.stored, 0);
  const cpuS = meta?.cpu?.redisPct != null && meta?.cpu?.wallS ? (meta.cpu.redisPct / 100) * meta.cpu.wallS : undefined;
  return {
    best_records_per_sec: top.recordsPerSec,
    best_threads: top.threads,
    best_connections: top[connKey],
    fewest_threads: Math.min(...threads),
    fewest_threads_records_per_sec: fewest,
    most_threads: Math.max(...threads),
    most_threads_records_per_sec: most,
    thread_scaling: most / fewest,
    fewest_connections_records_per_sec: at(connKey, Math.min(...conns)),
    most_connections_records_per_sec: at(connKey, Math.max(...conns)),
    best_load_s: top.loadS,
    records: n(summary.records),
    cells: cells.length,
    check_ok: summary.ok ? 1 : 0,
    redis_cpu: n(meta?.cpu?.redisPct),
    redis_cpu_us_per_record: cpuS !== undefined && stored ? (cpuS * 1e6) / stored : undefined,
    rqbench_cpu: n(meta?.cpu?.rqbenchPct),
    s3_emulator_cpu: n(meta?.cpu?.s3EmulatorPct),
  };
}

/** A step's sink: Redis unless its flags name another. @param {{ sink?: string }} flags */
export const sinkOf = (flags) => flags.sink ?? 'redis';

/**
 * When a reader thread is ready, for a step's source and sink: a step's load window starts when
 * all of its threads are (reader-thread.js: the source opened, then the sink).
 * @param {{ from?: string, flags: { sink?: string } }} step
 */
export function readyWords(step) {
  const s3 = step.from === 's3';
  return `${s3 ? 'its S3 client made' : 'its file open'}${sinkOf(step.flags) === 'redis' ? ' and its Redis connections made' : ''}${
    s3 ? ': it opens no file, and its keep-alive sockets to S3 open on its first GETs, inside the window' : ''
  }`;
}

/**
 * Where the load window starts and what the CPU columns cover, for the steps' sources and sinks.
 * @param {Array<{ from?: string, flags: { sink?: string } }>} steps
 * @param {import('../spec.js').Topology} topology
 * @param {number|null} cores this machine's
 */
export function windowAndCpuWords(steps, topology, cores) {
  /** @type {Map<string, string>} what a reader thread has done when ready, by the kind of step */
  const ready = new Map();
  for (const s of steps) {
    const sink = sinkOf(s.flags);
    ready.set(`from ${s.from === 's3' ? 'S3' : 'a file'} into ${sink === 'redis' ? 'Redis' : `the ${sink} sink`}`, readyWords(s));
  }
  const readyText =
    new Set(ready.values()).size === 1
      ? `every reader thread ready (${[...ready.values()][0]})`
      : `every reader thread ready (${[...ready].map(([kind, w]) => `${kind}, ${w}`).join('; ')})`;
  // the redis sink empties Redis before each cell and reads records back after it; the runner measures a Redis it started
  const intoRedis = steps.some((s) => sinkOf(s.flags) === 'redis');
  const measured = [
    intoRedis && topology.local && "the local Redis's (every thread of it)",
    "the load process's (every reader thread)",
  ].filter(Boolean);
  return `load time runs from ${readyText} to the last record stored. "At the fewest/most threads" is the best cell with that many reader threads. CPU is % of one core over the whole step (every cell${intoRedis ? ', with the flushes and read-back checks between them' : ''}), measured around it from /proc: ${measured.join(' and ')}; this machine has ${cores ?? '?'} cores.`;
}

const sinkWords = (flags) => {
  const sink = flags.sink ?? 'redis';
  return sink === 'redis' ? `Redis (pipelined ${flags.ttl ? `SETEX, TTL ${flags.ttl} s` : 'SET'})` : `the ${sink} sink`;
};

/**
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {Promise<string[]>}
 */
export async function loadResults(spec, steps) {
  const metricsOf = loadMetricsOf();
  const k = (v) => (v === undefined ? '-' : `${grouped(v / 1000)} k/s`);
  const rows = steps.map((s) => {
    const f = s.step.flags;
    const head =
      s.step.from === 's3'
        ? [s.step.label, `${f.sink} (from S3)`, f['reader-threads'] ?? 16, `${f['s3-connections'] ?? 64} (S3)`]
        : [s.step.label, f.sink ?? 'redis', f['reader-threads'] ?? 16, f.connections ?? 64];
    if (!s.r?.complete) return [...head, 'not run yet', '', '', '', '', '', ''];
    const m = metricsOf(s);
    return [
      ...head,
      `${k(m.best_records_per_sec)}${m.best_load_s !== undefined && m.best_load_s < SHORT_CELL_S ? ' ⚠' : ''}`,
      `${m.best_threads} x ${m.best_connections}`,
      k(m.fewest_threads_records_per_sec),
      k(m.most_threads_records_per_sec),
      m.check_ok ? 'yes' : '**no**',
      fixed(m.redis_cpu, 0),
      fixed(m.rqbench_cpu, 0),
    ];
  });
  const f = spec.kindSpec.deltaFile;
  const shortBest = steps.filter((s) => s.r?.complete && (metricsOf(s).best_load_s ?? Infinity) < SHORT_CELL_S).map((s) => s.step.label);
  const out = [
    mdTable(
      [
        'Step',
        'Sink',
        'Reader threads',
        'Connections',
        'Best',
        'Best at (threads x connections)',
        'At the fewest threads',
        'At the most threads',
        'Exactly once',
        'Redis CPU %',
        'rqbench CPU %',
      ],
      rows,
    ),
    '',
    `Each step loads one delta file of ${grouped(f.records)} records x ${f.recordSize} B (${((f.records * f.recordSize) / 2 ** 20).toFixed(0)} MiB) once per cell of its grid; ${windowAndCpuWords(
      steps.map((s) => s.step),
      spec.topology,
      hostCpus(steps),
    )}`,
    '',
    ...(shortBest.length
      ? [
          `⚠ The best cell of ${shortBest.join(', ')} loaded in under ${SHORT_CELL_S} s: too short a window to carry a rate (start-up and the host decide it); its figure is shown, and its trials' spread in the Finding says how far to trust it.`,
          '',
        ]
      : []),
  ];
  for (const s of steps) {
    out.push(`### ${s.step.label}: into ${sinkWords(s.step.flags)}`, '');
    if (!s.r?.complete) {
      out.push('not run yet', '');
      continue;
    }
    const byCell = s.r.meta?.cpu?.s3EmulatorPctByCell ?? null;
    out.push(
      loadTable(s.r.summary.cells, { redis: s.r.summary.sink === 'redis', emulatorPct: byCell?.map((c) => c.pct) ?? null }),
      '',
      ...(byCell
        ? [
            "S3 emulator CPU % is the emulator's (fauxqs, in the runner's process) over each cell's load window, % of one core: the runner's own CPU time, read every 200 ms, around the window the load recorded for the cell. The emulator shares this machine's cores with the reader threads.",
            '',
          ]
        : []),
      checkLines(s.r.summary.cells),
      '',
    );
  }
  out.push(...busyLines(steps, metricsOf));
  return out;
}

/** @param {import('./kind-contract.js').StepRun[]} steps */
function hostCpus(steps) {
  return steps.find((s) => s.r?.summary)?.r.meta?.hostCpus ?? null;
}

/**
 * How busy Redis was in the best cell. The cell's own cost per record (Redis's CPU from the cell's
 * start, its threads' setup included, to its end, over its records) at the cell's rate is the share
 * of a core Redis used while the cell loaded; a single-threaded server uses a core at most, so a
 * share past one is "all of a core". Without the cell's own cost (a run from before it was kept),
 * the step's average (its flushes and read-back checks in it) bounds what one core stores, and a
 * best cell past that bound says nothing.
 * @param {Record<string, number|undefined>} m
 * @param {{ recordsPerSec: number, redisCpuUsPerRecord?: number }} cell the best cell
 */
export function busyWords(m, cell) {
  const avg = /** @type {number} */ (m.redis_cpu_us_per_record);
  const best = grouped(cell.recordsPerSec);
  const own = cell.redisCpuUsPerRecord;
  if (typeof own === 'number' && Number.isFinite(own)) {
    const share = (own * cell.recordsPerSec) / 1e6;
    const pct = Math.round(share * 100);
    return `Redis spent ${fixed(avg, 2)} µs of CPU per record stored over the step (flushes and read-back checks included). In the best cell, ${best} records/s, it spent ${fixed(own, 2)} µs per record (from the cell's start, its threads' setup included, to its end): ${pct >= 100 ? 'all of a core' : `about ${pct}% of a core`} at that rate, so ${
      share >= SATURATED
        ? '**the sink, Redis, was saturated** in that cell'
        : 'Redis was not saturated in that cell: the reader or the connections set the pace'
    }`;
  }
  const bound = 1e6 / avg;
  const share = cell.recordsPerSec / bound;
  const cost = `Redis spent ${fixed(avg, 2)} µs of CPU per record stored over the step (flushes and read-back checks included; at that cost one core of Redis stores about ${grouped(bound)} records/s)`;
  if (share > 1)
    return `${cost}. The best cell stored ${best} records/s, more than that: the step's average overstates what a record cost in that cell, and the cell's own cost was not recorded, so it cannot tell whether Redis was saturated there`;
  return `${cost}. The best cell stored ${best} records/s, ${Math.round(share * 100)}% of that: ${
    share >= SATURATED
      ? '**the sink, Redis, was saturated**: it ran at about a full core while that cell loaded'
      : 'Redis was not saturated: the reader or the connections set the pace'
  }`;
}

/**
 * Who was busy: for a grid into the local Redis, the CPU Redis spent per record in the best cell,
 * at that cell's rate, says whether the sink was saturated (busyWords).
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @param {(s: import('./kind-contract.js').StepRun) => Record<string, number|undefined>} metricsOf
 */
function busyLines(steps, metricsOf) {
  const out = [];
  for (const s of steps.filter((x) => x.r?.complete)) {
    const m = metricsOf(s);
    if (m.redis_cpu_us_per_record === undefined || m.best_records_per_sec === undefined) continue;
    out.push(
      `${s.step.label}: ${busyWords(m, bestCell(s.r.summary.cells))}; the load process used ${fixed(m.rqbench_cpu, 0)}% of a core over the step.`,
      '',
    );
  }
  return out;
}
