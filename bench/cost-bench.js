#!/usr/bin/env node
/**
 * `npm run bench:cost`: the instruction counter (`rqbench produce --local --count-instructions
 * --time-scale K`) measured against itself and against CPU time. A standalone local Redis, one
 * writer, the default data model unless said otherwise.
 *
 *   repeat:   the same counted run --repeats times: the master's instructions per item must lie
 *             within 0.5% of each other (max/min − 1); the same command's native engine CPU per
 *             item (no Valgrind, time scale 1), run as many times, is printed beside with its spread
 *   scale:    the same run at 2K: instructions per item within 1% of the repeats' median at K
 *   models:   each seed-002 data model (--models: zset, sl (list), slh (list + HLL), ss (set per
 *             minute), hash, stream) counted once and run natively once: the Pearson correlation
 *             of native engine CPU per item with instructions per item, and the spread of their
 *             ratio (ns of engine CPU per instruction) are printed (no target: they say how far
 *             a count stands in for CPU time on this host)
 *
 * Exits 1 when a target is missed or it could not measure, 0 when every target was met.
 * Flags: --k K (default 20) -q Q items/s (default 10000) -d D (default 3) --warmup W (default 1)
 *        --repeats N (default 3) --models zset,sl,slh,ss,hash,stream ('' skips them)
 *        --native-d D (default 6) --json FILE --help.
 */
import { median as medianOf, sampleCorrelation } from 'simple-statistics';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { killRunning, runMeasured } from './lib/proc.js';
import { commandLine } from './lib/phases.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';

const ROOT = new URL('..', import.meta.url).pathname;
helpFromHeader(import.meta.url);

const argv = process.argv.slice(2);
const flag = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const K = Number(flag('--k', 20));
const Q = Number(flag('-q', 10000));
const D = Number(flag('-d', 3));
const WARMUP = Number(flag('--warmup', 1));
const REPEATS = Number(flag('--repeats', 3));
const NATIVE_D = Number(flag('--native-d', 6));
const MODELS = String(flag('--models', 'zset,sl,slh,ss,hash,stream')).split(',').filter(Boolean);
const JSON_OUT = flag('--json', null);

const log = (s = '') => process.stdout.write(`${s}\n`);
const num = (x, d = 0) =>
  x === null || x === undefined || !Number.isFinite(x)
    ? '-'
    : x.toLocaleString('en-US', { maximumFractionDigits: d, minimumFractionDigits: d });
/** max/min − 1, in % */
const spread = (xs) => (xs.length > 1 && Math.min(...xs) > 0 ? (Math.max(...xs) / Math.min(...xs) - 1) * 100 : null);

/**
 * One producer run: the flags of the data model, counted (under Valgrind, at a time scale) or native.
 * @param {string} model
 * @param {{ counted: boolean, k?: number }} how
 * @param {string} out
 */
async function produce(model, { counted, k = 1 }, out) {
  const modelFlags = model === 'zset' ? [] : [`--${model}`];
  const full = [
    'src/cli.js',
    'produce',
    '--local',
    ...modelFlags,
    '-q',
    String(Q),
    '-p',
    '1000',
    '-t',
    '1',
    '-d',
    String(counted ? D : NATIVE_D),
    '--warmup',
    String(WARMUP),
    ...(counted ? ['--count-instructions', '--time-scale', String(k)] : []),
    '--out',
    out,
    '--json',
    '--quiet',
  ];
  const r = await runMeasured(process.execPath, full, { cwd: ROOT, timeoutMs: (counted ? D * k + 120 : NATIVE_D + 60) * 1000 });
  let summary = null;
  try {
    summary = JSON.parse(r.stdout);
  } catch {
    // said below
  }
  if (!summary || r.code !== 0)
    throw new Error(`${commandLine('node', full)} exited with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  const master = summary.instructions?.roles?.master ?? null;
  // native engine CPU per item: the master's main thread, % of a core over the window, at the achieved rate
  const rate = summary.achieved?.itemsPerSec;
  const cpuUs = summary.cpu?.master !== null && rate ? ((summary.cpu.master / 100) * 1e6) / rate : null;
  return {
    model,
    counted,
    k,
    command: commandLine('node', full),
    wallS: r.wallS,
    irPerItem: master?.irPerItem ?? null,
    split: master?.split,
    cpuUs,
  };
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-cost-bench-'));
  let n = 0;
  const next = () => path.join(work, `run-${++n}`);
  try {
    log(
      `# the instruction counter: ${REPEATS} repeats at time scale ${K}, one at ${2 * K}, ${MODELS.length} data models (${os.cpus().length} cores)`,
    );
    log('');
    log(`## repeat: -q ${Q} -p 1000 -t 1 -d ${D} --warmup ${WARMUP}, counted at time scale ${K}; native runs of -d ${NATIVE_D} beside`);
    log('');
    log('| # | master Ir/item | native engine µs/item | counted run wall s |');
    log('| ---: | ---: | ---: | ---: |');
    const counted = [];
    const native = [];
    for (let i = 1; i <= REPEATS; i++) {
      const c = await produce('zset', { counted: true, k: K }, next());
      const nat = await produce('zset', { counted: false }, next());
      counted.push(c);
      native.push(nat);
      log(`| ${i} | ${num(c.irPerItem, 1)} | ${num(nat.cpuUs, 2)} | ${num(c.wallS, 1)} |`);
    }
    const irs = counted.map((r) => r.irPerItem).filter((x) => x !== null);
    const cpus = native.map((r) => r.cpuUs).filter((x) => x !== null);
    const irSpread = spread(irs);
    log('');
    log(
      `instructions per item: spread ${num(irSpread, 3)}% over ${irs.length} runs (target ≤ 0.5%): ${target(irSpread !== null && irSpread <= 0.5)}; ` +
        `native engine CPU per item: spread ${num(spread(cpus), 1)}% over ${cpus.length} runs`,
    );
    log(`command: ${counted[0].command}`);
    log('');

    log(`## scale: the same run at time scale ${2 * K}`);
    log('');
    const twice = await produce('zset', { counted: true, k: 2 * K }, next());
    const atK = irs.length ? medianOf(irs) : null;
    const diff = atK && twice.irPerItem ? ((twice.irPerItem - atK) / atK) * 100 : null;
    log(`| time scale | master Ir/item |`);
    log('| ---: | ---: |');
    log(`| ${K} (median of ${irs.length}) | ${num(atK, 1)} |`);
    log(`| ${2 * K} | ${num(twice.irPerItem, 1)} |`);
    log('');
    log(`difference ${num(diff, 3)}% (target within ±1%): ${target(diff !== null && Math.abs(diff) <= 1)}`);
    log(`command: ${twice.command}`);
    log('');

    const models = [];
    if (MODELS.length) {
      log(`## models: counted at time scale ${K} against native engine CPU per item`);
      log('');
      log('| model | master Ir/item | native engine µs/item | ns per instruction |');
      log('| --- | ---: | ---: | ---: |');
      for (const model of MODELS) {
        const c = model === 'zset' ? counted[0] : await produce(model, { counted: true, k: K }, next());
        const nat = model === 'zset' ? native[0] : await produce(model, { counted: false }, next());
        const ratio = c.irPerItem && nat.cpuUs ? (nat.cpuUs * 1000) / c.irPerItem : null;
        models.push({ model, irPerItem: c.irPerItem, cpuUs: nat.cpuUs, nsPerIr: ratio, split: c.split });
        log(`| ${model} | ${num(c.irPerItem, 1)} | ${num(nat.cpuUs, 2)} | ${num(ratio, 4)} |`);
      }
      const both = models.filter((m) => m.irPerItem && m.cpuUs);
      const r =
        both.length > 2
          ? sampleCorrelation(
              both.map((m) => m.irPerItem),
              both.map((m) => m.cpuUs),
            )
          : null;
      const ratios = both.map((m) => /** @type {number} */ (m.nsPerIr));
      log('');
      log(
        `correlation of native engine CPU per item with instructions per item: r = ${num(r, 3)} over ${both.length} models; ` +
          `ns of engine CPU per instruction ${num(Math.min(...ratios), 4)} to ${num(Math.max(...ratios), 4)} (spread ${num(spread(ratios), 1)}%)`,
      );
      log('');
    }
    log(targetsLine());
    if (JSON_OUT)
      fs.writeFileSync(
        JSON_OUT,
        `${JSON.stringify({ k: K, q: Q, repeats: { counted: irs, splits: counted.map((c) => c.split), nativeCpuUs: cpus, irSpreadPct: irSpread }, scale: { atK, at2K: twice.irPerItem, diffPct: diff }, models }, null, 2)}\n`,
      );
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

// a Ctrl-C reaches the run too (same process group), which stops its Valgrind-run Redis nodes by PID
// before it exits: a SIGKILL would leave them running. Only if it overstays is it killed.
process.once('SIGINT', () => {
  setTimeout(() => {
    killRunning();
    process.exit(130);
  }, 15_000).unref();
  process.exitCode = 130;
});
main().catch((e) => {
  killRunning();
  process.stderr.write(`bench:cost: ${e.message}\n`);
  process.exit(1);
});
