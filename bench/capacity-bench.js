#!/usr/bin/env node
/**
 * `npm run bench:capacity`: the capacity search against an exhaustive ramp, on the same local
 * Redis in the same run.
 *
 *   1. a fresh local standalone Redis (the servers stay the same for every run)
 *   2. `rqbench capacity` with its defaults (doubling ramp, bisection to 5%, the boundary
 *      re-tested 3 times: --confirm 3)
 *   3. the reference: the same command with --growth 1.05 --confirm 0, which ramps in 5% steps
 *      until a step does not hold (the bisection then has nothing left to do): the exhaustive ramp
 *   2 and 3 run --repeats times each (3), interleaved; every answer is printed.
 *   targets: every search within 5% of the ramps' median maximum, the searches' spread within 3%,
 *   the searches' median time at most half the ramps'.
 *
 * Both use the same step length, warm-up, writers and criteria, so the only difference is how
 * the rates are chosen. Exits 1 when a target is missed or it could not measure, 0 when every
 * target was met. Flags: --start N (items/s, default 50,000), --step S (s, default 3),
 * --repeats N (default 3), --json FILE.
 */
import { median as medianOf } from 'simple-statistics';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startRedis } from '../src/local/local-redis.js';
import { runMeasured } from './lib/proc.js';
import { commandLine } from './lib/phases.js';
import { noiseRecords } from '../src/experiments/trial-noise.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';

helpFromHeader(import.meta.url);

const ROOT = new URL('..', import.meta.url).pathname;
const argv = process.argv.slice(2);
const flag = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const START = Number(flag('--start', 50_000));
const STEP_S = Number(flag('--step', 3));
const JSON_OUT = flag('--json', null);
const REPEATS = Number(flag('--repeats', 3));
/** Chunks small enough that a chunk's latency is not the limit; the SLO generous: the engine is. */
const COMMON = [
  '-t',
  '2',
  '-c',
  '50',
  '--start-rate',
  String(START),
  '--step-seconds',
  String(STEP_S),
  '--step-warmup',
  '1',
  '--slo-p99',
  '1000',
];

const log = (s = '') => process.stdout.write(`${s}\n`);

/** Runs `rqbench capacity …` against the server; its capacity.json and the wall time. */
async function capacity(port, extra, out) {
  const full = ['src/cli.js', 'capacity', '--port', String(port), ...COMMON, ...extra, '--out', out, '--quiet'];
  const r = await runMeasured(process.execPath, full, { cwd: ROOT, timeoutMs: 30 * 60_000 });
  const [name] = fs.existsSync(out) ? fs.readdirSync(out) : [];
  if (!name || (r.code !== 0 && r.code !== 1))
    throw new Error(`rqbench capacity exited with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`);
  const doc = JSON.parse(fs.readFileSync(path.join(out, name, 'capacity.json'), 'utf8'));
  return { doc, wallS: r.wallS, command: commandLine('node', full), noise: stepsNoise(path.join(out, name)) };
}

/**
 * What the steps' noise sentinels saw: the mean and the highest outside CPU over the steps (% of
 * a core), and how many steps were noisy — so an answer that moved can be told from a host that did.
 * @param {string} dir a capacity directory
 */
function stepsNoise(dir) {
  const records = noiseRecords(dir);
  if (!records.length) return null;
  const outside = records.map((n) => n.outsidePct);
  return {
    meanPct: outside.reduce((a, b) => a + b, 0) / outside.length,
    maxPct: Math.max(...outside),
    noisy: records.filter((n) => n.noisy).length,
    steps: records.length,
  };
}

/** @param {ReturnType<typeof stepsNoise>} n */
function noiseCell(n) {
  return n ? `${n.meanPct.toFixed(1)}% (max ${n.maxPct.toFixed(1)}%, ${n.noisy}/${n.steps} noisy)` : '-';
}

async function main() {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-capacity-bench-'));
  const local = await startRedis();
  try {
    log(
      `# capacity search vs exhaustive 5% ramp, ${REPEATS} of each interleaved (redis-server on 127.0.0.1:${local.port}, ${os.cpus().length} cores)`,
    );
    log('');
    log("| # | | max sustainable items/s | steps | wall s | outside CPU, steps' mean | answer |");
    log('| ---: | --- | ---: | ---: | ---: | ---: | --- |');
    const searches = [];
    const ramps = [];
    // interleaved, so a slow minute on the machine hits both alike
    for (let i = 1; i <= REPEATS; i++) {
      for (const [label, extra, into] of /** @type {const} */ ([
        ['search (growth 2, bisect to 5%, --confirm 3)', [], searches],
        ['exhaustive ramp (5% steps)', ['--growth', '1.05', '--confirm', '0'], ramps],
      ])) {
        const r = await capacity(local.port, extra, path.join(work, `${into === searches ? 'search' : 'ramp'}-${i}`));
        into.push(r);
        log(
          `| ${i} | ${label} | ${r.doc.search.max?.toLocaleString('en-US') ?? '-'} | ${r.doc.steps.length} | ${r.wallS.toFixed(1)} | ${noiseCell(r.noise)} | ${r.doc.answer} |`,
        );
      }
    }
    const rampMedian = medianOf(ramps.map((r) => r.doc.search.max ?? NaN));
    const maxes = searches.map((r) => r.doc.search.max ?? NaN);
    const distances = maxes.map((m) => Math.abs(m - rampMedian) / rampMedian);
    const spread = (Math.max(...maxes) - Math.min(...maxes)) / medianOf(maxes);
    const timeRatio = medianOf(searches.map((r) => r.wallS)) / medianOf(ramps.map((r) => r.wallS));
    const pct = (x) => `${(x * 100).toFixed(1)}%`;
    const met = (ok) => target(ok);
    log('');
    log(
      `ramps' median maximum: ${rampMedian.toLocaleString('en-US')} items/s (ramps ${ramps.map((r) => r.doc.search.max?.toLocaleString('en-US')).join(', ')})`,
    );
    log(
      `each search's distance from it: ${distances.map(pct).join(', ')} (target ≤ 5% every one): ${met(distances.every((d) => d <= 0.05))}`,
    );
    log(`the searches' spread (max − min) / median: ${pct(spread)} (target ≤ 3%): ${met(spread <= 0.03)}`);
    log(`time: the searches' median ${timeRatio.toFixed(2)}x the ramps' (target ≤ 0.5x): ${met(timeRatio <= 0.5)}`);
    log(
      `boundary records: ${searches.map((r) => (r.doc.confirmation ? `held ${r.doc.confirmation.at.held}/${r.doc.confirmation.at.of}, failed ${r.doc.confirmation.above.failed}/${r.doc.confirmation.above.of}` : 'none')).join('; ')}`,
    );
    log(`commands: ${searches[0].command}`);
    log(`          ${ramps[0].command}`);
    log(targetsLine());
    if (JSON_OUT) {
      const brief = (r) => ({
        max: r.doc.search.max,
        steps: r.doc.steps.length,
        wallS: r.wallS,
        confirmation: r.doc.confirmation ?? null,
        noise: r.noise,
      });
      fs.writeFileSync(
        JSON_OUT,
        `${JSON.stringify({ searches: searches.map(brief), ramps: ramps.map(brief), rampMedian, distances, spread, timeRatio }, null, 2)}\n`,
      );
    }
  } finally {
    await local.stop();
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench:capacity: ${e.message}\n`);
  process.exit(1);
});
