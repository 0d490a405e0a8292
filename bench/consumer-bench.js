#!/usr/bin/env node
/**
 * `npm run bench:consumer`: how long one consumer cycle over 300k live items takes on a local
 * cluster (3 masters x 1 replica, reads from the replicas), for each way rqbench's consumer can
 * fetch the values, all measured in the same run against the same data:
 *
 *   mget      (the default) one MGET per slot, all of a replica's MGETs in one write
 *   pipeline  one GET per key, all of a replica's GETs in one write
 *   get       the seed's way: one ioredis get() per id, auto-pipelined, scaleReads 'slave'
 *
 * A cycle is ZCARD + newest score ("card"), ZRANGEBYSCORE of every live member ("range"), then
 * the values ("values"), every value checked against its key. Each strategy is measured by runs
 * of src/consumer.js, with a period long enough that a cycle ends before the next is due; the
 * first cycle of each run (cold: JIT, first connections, slot caches) is left out. `get`'s period
 * comes from a one-cycle probe run first. The runs go in rounds (default 2), one run of each
 * strategy per round, the order reversed every other round: this machine is shared, and what else
 * runs on it changes within minutes, so every strategy gets a share of the same conditions.
 *
 * Also in the same run, as a reference (not rqbench's code): bench/lib/lean-mget.js, the mget
 * cycle done by a client that creates no JS object per item — close to what this machine's
 * Redis and kernel cost, plus the least a Node client can do.
 *
 * Checks (PASS/FAIL lines): mget median <= get median / 5; mget median < 500 ms. A figure from a
 * run that did not read exactly 300,000 items per cycle, all fetched, none missing or mismatched,
 * is invalid and its check fails. Exits 1 when a check fails or it could not measure, 0 when every check passed.
 *
 * Flags: --rounds N (default 2), --cycles N (measured cycles of mget, pipeline and the lean client
 *        over all rounds, default 8), --get-cycles N (default 5), --period MS (mget/pipeline
 *        period, default 3000), --no-lean (skip the reference client),
 *        --keep-runs (keep the run directories and print where), --json FILE (every figure).
 */
import fs from 'node:fs';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { Redis } from 'ioredis';
import { startRedis } from '../src/local/local-redis.js';
import { killRunning } from './lib/proc.js';
import { ConsumerMachine } from './lib/consumer-machine.js';
import { consumerRun, fillItems, leanRun } from './lib/consumer-runs.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';

helpFromHeader(import.meta.url);

const HOST = '127.0.0.1';
const ITEMS = 300_000;
/** Long enough that every item written by the fill is still live when the last cycle runs. */
const TTL_S = 600;
const MIN_CYCLES = 5;
const SPEEDUP_MIN = 5;
const TARGET_MS = 500;
/**
 * get's period = its probe cycle x this, rounded up to a whole second (at least 3 s). Later get
 * cycles can be slower than the probe's (its heap grows), so the margin is wide.
 */
const GET_PERIOD_FACTOR = 2;
const LEAN_GAP_MS = 1000;

const argv = process.argv.slice(2);
const flag = (name, dflt) => {
  const i = argv.indexOf(name);
  if (i < 0) return dflt;
  const v = Number(argv[i + 1]);
  if (!Number.isInteger(v) || v <= 0) {
    process.stderr.write(`bench/consumer-bench.js: ${name} needs a whole number > 0\n`);
    process.exit(2);
  }
  return v;
};
const ROUNDS = flag('--rounds', 2);
const CYCLES = Math.max(MIN_CYCLES, flag('--cycles', 8));
const GET_CYCLES = Math.max(MIN_CYCLES, flag('--get-cycles', 5));
const PERIOD_MS = flag('--period', 3000);
/** Measured cycles of each round's run: the total spread over the rounds (earlier rounds get the remainder). */
const perRound = (total, round) => Math.floor(total / ROUNDS) + (round < total % ROUNDS ? 1 : 0);
const keepRuns = argv.includes('--keep-runs');
const withLean = !argv.includes('--no-lean');
const jsonOut = argv.includes('--json') ? argv[argv.indexOf('--json') + 1] : null;

const log = (s = '') => process.stdout.write(`${s}\n`);
const note = (s) => process.stderr.write(`${s}\n`);

async function main() {
  const started = new Date();
  const outDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-consumer-bench-'));
  note(`starting a local cluster (3 masters x 1 replica) on ${HOST}…`);
  const redis = await startRedis({ cluster: true });
  const clients = redis.nodes.map((n) => {
    const c = new Redis({ host: n.host, port: n.port, lazyConnect: true, maxRetriesPerRequest: 1 });
    c.on('error', () => {});
    return { node: n, c };
  });
  const machine = new ConsumerMachine(redis.nodes.map((n) => n.pid)).start();
  let stopping = false;
  const cleanup = async () => {
    if (stopping) return;
    stopping = true;
    machine.stop();
    killRunning();
    for (const { c } of clients) c.disconnect();
    await redis.stop();
    if (!keepRuns) fs.rmSync(outDir, { recursive: true, force: true });
  };
  const onSignal = () => {
    cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  const results = {
    started: started.toISOString(),
    machine: machineFacts(),
    settings: {
      items: ITEMS,
      ttlS: TTL_S,
      rounds: ROUNDS,
      cycles: CYCLES,
      getCycles: GET_CYCLES,
      periodMs: PERIOD_MS,
      leanGapMs: LEAN_GAP_MS,
    },
    runs: { mget: [], pipeline: [], get: [], lean: [] },
  };
  try {
    for (const { c } of clients) await c.connect();
    results.machine.redis = /redis_version:(\S+)/.exec(await clients[0].c.info('server'))?.[1];
    const { host, port } = redis;
    /** One measurement with the machine's view of the same wall time attached. */
    const phase = async (fn) => {
      const from = machine.mark();
      const out = await fn();
      out.machineLoad = machine.between(from, machine.mark(), out.processCpuS);
      return out;
    };

    note(`filling ${ITEMS.toLocaleString('en')} live items with the producer (TTL ${TTL_S} s)…`);
    results.fill = await phase(() => fillItems({ host, port, q: ITEMS, ttlS: TTL_S, outDir }));
    results.fill.check = await settled(clients);
    if (results.fill.check.zcard !== ITEMS || results.fill.check.keys !== ITEMS + 1) {
      throw new Error(`the fill did not leave ${ITEMS} live items: ZCARD ${results.fill.check.zcard}, keys ${results.fill.check.keys}`);
    }

    note('consumer --fetch get: one probe cycle to size its period…');
    results.getProbe = await phase(() =>
      consumerRun({ host, port, fetch: 'get', periodMs: 120_000, cycles: 0, ttlS: TTL_S, outDir, probe: true }),
    );
    const probeMs = results.getProbe.perCycle.cycle[0];
    if (!Number.isFinite(probeMs)) throw new Error('the get probe did not finish a cycle');
    const getPeriod = Math.max(3000, Math.ceil((probeMs * GET_PERIOD_FACTOR) / 1000) * 1000);
    results.settings.getPeriodMs = getPeriod;
    note(`  probe cycle ${fmt(probeMs)} ms → get runs at -p ${getPeriod}`);

    // rounds, the order reversed every other round, so that every strategy sees the same
    // changes in what else this shared machine is doing
    const kinds = ['mget', 'pipeline', 'get', ...(withLean ? ['lean'] : [])];
    for (let round = 0; round < ROUNDS; round++) {
      for (const kind of round % 2 ? [...kinds].reverse() : kinds) {
        const cycles = perRound(kind === 'get' ? GET_CYCLES : CYCLES, round);
        if (cycles === 0) continue;
        if (kind === 'lean') {
          note(
            `round ${round + 1}/${ROUNDS}: reference lean client (bench/lib/lean-mget.js), 1 + ${cycles} cycles, ${LEAN_GAP_MS} ms apart…`,
          );
          results.runs.lean.push(await phase(() => leanRun({ host, port, cycles, gapMs: LEAN_GAP_MS, ttlS: TTL_S })));
          continue;
        }
        const periodMs = kind === 'get' ? getPeriod : PERIOD_MS;
        note(
          `round ${round + 1}/${ROUNDS}: consumer --fetch ${kind}, 1 + ${cycles} cycles, -p ${periodMs} (~${Math.round((periodMs * (cycles + 1)) / 1000)} s)…`,
        );
        results.runs[kind].push(await phase(() => consumerRun({ host, port, fetch: kind, periodMs, cycles, ttlS: TTL_S, outDir })));
      }
    }
    results.finished = new Date().toISOString();
    results.wallS = (Date.now() - started.getTime()) / 1000;
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  const figures = report(results);
  // summary.json copies are left out (they are in the run directories); so are those directories' paths unless kept
  if (jsonOut)
    fs.writeFileSync(
      jsonOut,
      `${JSON.stringify({ ...results, figures }, (k, v) => (k === 'summary' || (k === 'dir' && !keepRuns) ? undefined : v), 2)}\n`,
    );
  if (keepRuns) note(`run directories kept in ${outDir}`);
}

/**
 * Waits until every replica holds as many keys as its master, then counts: keys over the masters
 * and ZCARD latest-ids (on whichever master owns it).
 */
async function settled(clients) {
  const masters = clients.filter((x) => x.node.role === 'master');
  const replicas = clients.filter((x) => x.node.role === 'replica');
  const deadline = Date.now() + 30_000;
  let sizes;
  for (;;) {
    sizes = new Map();
    for (const x of clients) sizes.set(x.node.port, await x.c.dbsize());
    const lagging = replicas.filter((r) => sizes.get(r.node.port) !== sizes.get(r.node.masterPort));
    if (!lagging.length || Date.now() > deadline) break;
    await sleep(250);
  }
  let zcard = null;
  for (const m of masters) {
    try {
      zcard = await m.c.zcard('latest-ids');
      break;
    } catch {
      // MOVED: another master owns it
    }
  }
  const keys = masters.reduce((a, m) => a + sizes.get(m.node.port), 0);
  const replicaKeys = replicas.reduce((a, r) => a + sizes.get(r.node.port), 0);
  return { keys, replicaKeys, zcard };
}

// ---------------------------------------------------------------------------------------------
// figures

function median(xs) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/** Nearest-rank percentile (with 5-7 cycles, p90 is the slowest or the second slowest). */
function nearestRank(xs, p) {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length, Math.max(1, Math.ceil((p / 100) * s.length))) - 1];
}

/** Per-cycle sums of two phase lists (aligned when both have one entry per cycle). */
function sums(a, b) {
  return a.length === b.length ? a.map((x, i) => x + b[i]) : [];
}

const sum = (xs) => xs.reduce((a, b) => a + b, 0);

/** Average of per-run values weighted by per-run weights, skipping runs without a value. */
function weighted(values, weights) {
  let w = 0;
  let t = 0;
  values.forEach((v, i) => {
    if (Number.isFinite(v) && weights[i] > 0) {
      t += v * weights[i];
      w += weights[i];
    }
  });
  return w ? t / w : NaN;
}

/** Machine load over several runs, weighted by their wall time. */
function mergedLoad(runs) {
  const loads = runs.map((x) => x.machineLoad).filter(Boolean);
  if (!loads.length) return null;
  const w = loads.map((l) => l.wallS);
  return {
    otherPct: weighted(
      loads.map((l) => l.otherPct),
      w,
    ),
    stealPct: weighted(
      loads.map((l) => l.stealPct),
      w,
    ),
    machineBusyPct: weighted(
      loads.map((l) => l.machineBusyPct),
      w,
    ),
  };
}

/** The figures of one strategy over its runs (one per round) of rqbench's consumer. */
function consumerFigures(fetch, runs) {
  const problems = [];
  const measured = [];
  const card = [];
  const range = [];
  const values = [];
  const t = {};
  const cpuRuns = [];
  for (const run of runs) {
    const s = run.summary;
    const all = run.perCycle.cycle;
    const m = all.slice(1);
    const drop1 = (xs) => (xs.length === all.length ? xs.slice(1) : xs.slice(Math.max(0, xs.length - m.length)));
    measured.push(...m);
    card.push(...drop1(run.perCycle.card));
    range.push(...drop1(run.perCycle.range));
    values.push(...drop1(run.perCycle.values));
    for (const [k, v] of Object.entries(s.totals || {})) if (typeof v === 'number') t[k] = (t[k] || 0) + v;
    if ((s.totals?.cycles || 0) !== all.length) problems.push(`${s.totals?.cycles || 0} cycles counted but ${all.length} timed`);
    if (s.perCycle?.cardinality !== ITEMS) problems.push(`ZCARD ${s.perCycle?.cardinality}`);
    // CPU: summary.json's per-second averages over the run after its first period, as ms per cycle
    const seconds = s.window?.seconds || 0;
    const wc = s.cycles?.count || 0;
    const msPerCycle = (p) => (wc && Number.isFinite(p) ? ((p / 100) * seconds * 1000) / wc : NaN);
    const nodes = s.cpu?.nodes || [];
    cpuRuns.push({
      wc,
      reader: msPerCycle(s.client?.cpuPct),
      readerPeak: s.client?.cpuPctMaxWriter,
      replicas: sum(nodes.filter((n) => n.role === 'replica').map((n) => msPerCycle(n.avg))),
      masters: sum(nodes.filter((n) => n.role === 'master').map((n) => msPerCycle(n.avg))),
      perReplica: nodes.filter((n) => n.role === 'replica').map((n) => msPerCycle(n.avg)),
    });
  }
  const cyclesRun = t.cycles || 0;
  if (measured.length < MIN_CYCLES) problems.push(`${measured.length} cycles measured (< ${MIN_CYCLES})`);
  const perCycle = (k) => (cyclesRun ? (t[k] || 0) / cyclesRun : NaN);
  if (perCycle('items') !== ITEMS) problems.push(`${fmt(perCycle('items'))} items per cycle, not ${fmt(ITEMS)}`);
  if (perCycle('fetched') !== ITEMS) problems.push(`${fmt(perCycle('fetched'))} values fetched per cycle, not ${fmt(ITEMS)}`);
  for (const k of ['missing', 'mismatched', 'duplicates', 'errors']) if (t[k]) problems.push(`${t[k]} ${k}`);
  const med = median(measured);
  const w = cpuRuns.map((c) => c.wc);
  const readerMs = weighted(
    cpuRuns.map((c) => c.reader),
    w,
  );
  return {
    label: fetch,
    runs: runs.length,
    periodMs: runs[0]?.periodMs,
    measured: measured.length,
    cycles: measured,
    firstMs: runs.map((r) => r.perCycle.cycle[0]),
    median: med,
    p90: nearestRank(measured, 90),
    min: Math.min(...measured),
    max: Math.max(...measured),
    card: median(card),
    range: median(range),
    values: median(values),
    withoutValues: median(sums(card, range)),
    perCycle: {
      items: perCycle('items'),
      fetched: perCycle('fetched'),
      missing: perCycle('missing'),
      mismatched: perCycle('mismatched'),
      duplicates: perCycle('duplicates'),
      errors: perCycle('errors'),
    },
    overruns: t.overruns || 0,
    valid: problems.length === 0,
    problems: [...new Set(problems)],
    cpu: {
      readerMs,
      readerPeakPct: Math.max(...cpuRuns.map((c) => c.readerPeak).filter(Number.isFinite)),
      readerShare: readerMs / med,
      replicasMs: weighted(
        cpuRuns.map((c) => c.replicas),
        w,
      ),
      mastersMs: weighted(
        cpuRuns.map((c) => c.masters),
        w,
      ),
      replicaNodesMs: (cpuRuns[0]?.perReplica || []).map((_, i) =>
        weighted(
          cpuRuns.map((c) => c.perReplica[i]),
          w,
        ),
      ),
    },
    load: mergedLoad(runs),
    hung: runs.filter((r) => r.hung).length,
    commands: countCommands(runs),
  };
}

/** Each distinct command line with how many runs used it. */
function countCommands(runs) {
  const n = new Map();
  for (const r of runs) n.set(r.command, (n.get(r.command) || 0) + 1);
  return [...n].map(([command, times]) => ({ command, times }));
}

/** The figures of the lean reference client over its runs. */
function leanFigures(runs) {
  const problems = [];
  const m = [];
  const all = [];
  for (const lean of runs) {
    all.push(...lean.cycles);
    m.push(...lean.cycles.slice(1));
  }
  if (m.length < MIN_CYCLES) problems.push(`${m.length} cycles measured (< ${MIN_CYCLES})`);
  for (const c of all) {
    if (c.items !== ITEMS || c.fetched !== ITEMS) problems.push(`a cycle read ${fmt(c.items)} items, fetched ${fmt(c.fetched)}`);
    if (c.cardinality !== ITEMS) problems.push(`ZCARD ${c.cardinality}`);
    for (const k of ['missing', 'mismatched', 'duplicates', 'errors']) if (c[k]) problems.push(`${c[k]} ${k}`);
  }
  const mean = (xs) => sum(xs) / xs.length;
  const cyc = m.map((c) => c.cycleMs);
  const med = median(cyc);
  const readerMs = mean(m.map((c) => c.clientCpuMs));
  const per = (k) => sum(all.map((c) => c[k])) / all.length;
  return {
    label: 'lean',
    runs: runs.length,
    measured: m.length,
    cycles: cyc,
    firstMs: runs.map((r) => r.cycles[0]?.cycleMs),
    median: med,
    p90: nearestRank(cyc, 90),
    min: Math.min(...cyc),
    max: Math.max(...cyc),
    card: median(m.map((c) => c.cardMs)),
    range: median(m.map((c) => c.rangeMs)),
    values: median(m.map((c) => c.valuesMs)),
    prep: median(m.map((c) => c.prepMs)),
    withoutValues: median(m.map((c) => c.cardMs + c.rangeMs)),
    perCycle: {
      items: per('items'),
      fetched: per('fetched'),
      missing: per('missing'),
      mismatched: per('mismatched'),
      duplicates: per('duplicates'),
      errors: per('errors'),
    },
    overruns: 0,
    valid: problems.length === 0,
    problems: [...new Set(problems)],
    cpu: {
      readerMs,
      readerPeakPct: NaN,
      readerShare: readerMs / med,
      replicasMs: mean(m.map((c) => sum(c.replicaCpuMs))),
      mastersMs: NaN,
      replicaNodesMs: (m[0]?.replicaCpuMs || []).map((_, r) => mean(m.map((c) => c.replicaCpuMs[r]))),
    },
    load: mergedLoad(runs),
    hung: 0,
    commands: countCommands(runs),
  };
}

// ---------------------------------------------------------------------------------------------
// report

function report(r) {
  const F = {};
  for (const k of ['mget', 'pipeline', 'get']) F[k] = consumerFigures(k, r.runs[k]);
  if (r.runs.lean.length) F.lean = leanFigures(r.runs.lean);
  const rows = ['mget', 'pipeline', 'get', 'lean'].filter((k) => F[k]);
  const name = {
    mget: '**mget** (default): MGET per slot, one write per replica',
    pipeline: 'pipeline: GET per key, one write per replica',
    get: "get (the seed's): ioredis get() per id, auto-pipelined",
    lean: 'reference, not rqbench: lean client (bench/lib/lean-mget.js)',
  };
  const period = (k) => (k === 'lean' ? `${LEAN_GAP_MS / 1000} s gap` : `${F[k].periodMs / 1000} s`);
  const m = r.machine;
  log('');
  log(`# rqbench consumer bench — ${r.started}`);
  log('');
  log(`Machine: ${m.nproc} CPUs (${m.cpuModel}), ${m.kernel}; Node ${m.node}; Redis ${m.redis}; ioredis ${m.ioredis}.`);
  const ch = r.fill.check;
  log(
    `Data: ${fmt(ITEMS)} live items (item:1..${fmt(ITEMS)}, SETEX 128 B, TTL ${TTL_S} s) and latest-ids, written once by the producer ` +
      `(${fmt(r.fill.acked)} acked, ${fmt(r.fill.failed)} failed; then ${fmt(ch.keys)} keys on the masters, ${fmt(ch.replicaKeys)} on the replicas, ZCARD ${fmt(ch.zcard)}). ` +
      `Local cluster, 3 masters x 1 replica; one reader process reading from the replicas. ${r.settings.rounds} rounds; in each, one run per strategy ` +
      "(order reversed every other round); each run's first cycle is left out.",
  );
  log('');
  log(
    '| strategy | period | cycles | **median cycle ms** | p90 | min – max | card p50 | range p50 | values p50 | items / fetched / missing / mismatched per cycle | valid |',
  );
  log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const k of rows) {
    const f = F[k];
    const pc = f.perCycle;
    log(
      `| ${name[k]} | ${period(k)} | ${f.measured} | **${fmt(f.median)}** | ${fmt(f.p90)} | ${fmt(f.min)} – ${fmt(f.max)} | ${fmt1(f.card)} | ${fmt(f.range)} | ${fmt(f.values)} | ` +
        `${fmt(pc.items)} / ${fmt(pc.fetched)} / ${fmt(pc.missing)} / ${fmt(pc.mismatched)} | ${f.valid ? 'yes' : `**INVALID**: ${f.problems.join('; ')}`} |`,
    );
  }
  log('');
  log(
    '| strategy | reader CPU ms/cycle | reader on CPU, share of the cycle | reader peak second % | replicas CPU ms/cycle (each) | masters CPU ms/cycle | other processes CPU % | steal % |',
  );
  log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
  for (const k of rows) {
    const c = F[k].cpu;
    const l = F[k].load;
    log(
      `| ${k} | ${fmt(c.readerMs)} | ${pct(c.readerShare * 100)}% | ${pct(c.readerPeakPct)} | ${fmt(c.replicasMs)} (${c.replicaNodesMs.map(fmt).join(' / ')}) | ` +
        `${fmt(c.mastersMs)} | ${l ? pct(l.otherPct) : '-'} | ${l ? pct(l.stealPct) : '-'} |`,
    );
  }
  log('');
  log(
    "- Cycle times: every cycle's time from its actual start (cycle.hlog, Tag=sent, 3 significant digits). The first (cold) cycle of every run is left out " +
      `(${rows.map((k) => `${k} ${F[k].firstMs.map(fmt).join(' and ')}`).join('; ')} ms). Median of the rest; p90 = nearest rank. Phases, medians: card = ZCARD + newest score; ` +
      'range = ZRANGEBYSCORE of every live member; values = grouping, encoding, fetching and parsing the values (the check of each value against its key comes after it).',
  );
  log(`- Every cycle, in ms: ${rows.map((k) => `${k} ${F[k].cycles.map(fmt).join(', ')}`).join('; ')}.`);
  log(
    `- get's period (${fmt(r.settings.getPeriodMs)} ms) = ${GET_PERIOD_FACTOR} x its one-cycle probe (${fmt(r.getProbe.perCycle.cycle[0])} ms, cold), rounded up to a second. ` +
      `Overruns (a cycle still running when the next was due): ${rows
        .filter((k) => k !== 'lean')
        .map((k) => `${k} ${F[k].overruns}`)
        .join(', ')}.`,
  );
  log(
    "- CPU, rqbench rows: summary.json's per-second averages after each run's first period (reader: client.cpuPct; nodes: cpu.nodes[], INFO cpu), " +
      'x seconds / cycles = CPU ms per cycle. "Share of the cycle" = reader CPU ms per cycle / median cycle ms: near 100% means the reader process, not Redis, sets the pace. ' +
      'Lean row: INFO cpu of each replica and process.cpuUsage() right before and after each cycle.',
  );
  log(
    '- Other processes CPU: whole machine (/proc/stat, all cores) minus every Redis node minus the measured process tree, over those runs (% of one core); this machine is shared.',
  );
  const hung = [
    ['producer (fill)', r.fill.hung ? 1 : 0],
    ['get probe', r.getProbe.hung ? 1 : 0],
    ...['mget', 'pipeline', 'get'].map((k) => [`consumer --fetch ${k}`, F[k].hung]),
  ].filter(([, n]) => n);
  log(
    `- rqbench processes that printed their summary but had not exited 5 s later (stopped by the bench; their figures are complete): ${hung.length ? hung.map(([k, n]) => `${k} (${n})`).join(', ') : 'none'}.`,
  );
  log(
    `- Without the GETs (the seed: 317 ms for ZCARD + ZRANGEBYSCORE, 4,690 ms with them): card + range per cycle, median: ` +
      `${rows.map((k) => `${k} ${fmt(F[k].withoutValues)} ms`).join(', ')}.`,
  );
  log('');

  const mget = F.mget;
  const get = F.get;
  const why = (...fs) =>
    fs
      .filter((f) => !f.valid)
      .map((f) => ` (figure invalid: ${f.label}: ${f.problems.join('; ')})`)
      .join('');
  const ok1 = mget.valid && get.valid && mget.median <= get.median / SPEEDUP_MIN;
  const ok2 = mget.valid && mget.median < TARGET_MS;
  log(
    `${target(ok1, ['PASS', 'FAIL'])}  mget median <= get median / ${SPEEDUP_MIN}: ${fmt(mget.median)} ms vs ${fmt(get.median)} / ${SPEEDUP_MIN} = ${fmt(get.median / SPEEDUP_MIN)} ms ` +
      `(get takes ${(get.median / mget.median).toFixed(2)}x mget's time)${why(mget, get)}`,
  );
  log(`${target(ok2, ['PASS', 'FAIL'])}  mget median < ${TARGET_MS} ms for ${fmt(ITEMS)} items: ${fmt(mget.median)} ms${why(mget)}`);
  if (F.lean) {
    log(
      `      reference: the lean client's median is ${fmt(F.lean.median)} ms (${F.lean.valid ? 'valid' : 'INVALID'}); per cycle its replicas used ${fmt(F.lean.cpu.replicasMs)} ms of CPU ` +
        `and the client ${fmt(F.lean.cpu.readerMs)} ms, where rqbench's mget reader used ${fmt(mget.cpu.readerMs)} ms; ${m.nproc} CPUs, other processes at ${F.lean.load ? pct(F.lean.load.otherPct) : '-'}% of a core`,
    );
  }
  log('');
  log('Commands:');
  log(`  ${r.fill.command}`);
  log(`  ${r.getProbe.command}   (probe)`);
  for (const k of rows) for (const c of F[k].commands) log(`  ${c.command}${c.times > 1 ? `   (x ${c.times})` : ''}`);
  log(`Total ${r.wallS.toFixed(0)} s.`);
  log(targetsLine());
  return F;
}

function machineFacts() {
  const cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8');
  let ioredis = null;
  try {
    ioredis = createRequire(import.meta.url)('ioredis/package.json').version;
  } catch {
    // not resolvable: left out
  }
  return {
    nproc: os.availableParallelism?.() ?? os.cpus().length,
    cpuModel: /^model name\s*:\s*(.+)$/m.exec(cpuinfo)?.[1] ?? os.cpus()[0]?.model ?? '?',
    kernel: `${os.type()} ${os.release()}`,
    node: process.version,
    ioredis,
    redisServer: runText('redis-server', ['--version']),
  };
}

function runText(file, args) {
  try {
    return String(execFileSync(file, args)).trim();
  } catch {
    return null;
  }
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const fmt = (x) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : '-');
const fmt1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');
const pct = (x) => (Number.isFinite(x) ? x.toFixed(1) : '-');

main().catch((e) => {
  killRunning();
  note(`bench/consumer-bench.js: ${e.message}`);
  process.exitCode = 1;
});
