#!/usr/bin/env node
/**
 * `npm run bench:projection`: the capacity projection held to account by searches at other node
 * sizes. For each node size (--node-cpus 0.5, 1 and 2, as this machine's cores allow), `rqbench
 * capacity --local --node-cpus N` searches for the highest rate a node holds, --repeats times,
 * the sizes interleaved. The engine ceiling is 100%, so the searched maximum is where the node
 * saturates: what the projection says it predicts.
 *
 *   own:   each search's projection (the line of engine CPU on the rate over its held steps, read
 *          where the engine has all the CPU it can: half a core at 0.5, one core at 1 and at 2,
 *          where the main thread is one thread) against that search's maximum
 *   cross: each search's line read for every other size, against that size's median maximum —
 *          a projection from one node size to another, as a user sizing a cluster would use it
 *
 *   target: every |error| within 10%; when not, the error is what capacity prints beside its
 *   projection (its own-search check) and what bench/RESULTS.md records.
 *
 * Exits 1 when a target is missed or it could not measure, 0 when every target was met.
 * Flags: --sizes 0.5,1,2 --repeats N (default 2) --step S (default 3) --json FILE --help.
 */
import { median as medianOf } from 'simple-statistics';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runMeasured } from './lib/proc.js';
import { commandLine } from './lib/phases.js';
import { engineCores, rateAt } from '../src/report/capacity/projection.js';
import { trialNoise } from '../src/experiments/trial-noise.js';
import { helpFromHeader } from './lib/help.js';
import { target, targetsLine } from './lib/targets.js';

const ROOT = new URL('..', import.meta.url).pathname;
helpFromHeader(import.meta.url);

/** @param {number[]} xs @returns {number|null} */
const median = (xs) => (xs.length ? medianOf(xs) : null);
const argv = process.argv.slice(2);
const flag = (name, dflt) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : dflt);
const SIZES = String(flag('--sizes', '0.5,1,2'))
  .split(',')
  .map(Number)
  .filter((n) => n > 0 && n <= os.cpus().length);
const REPEATS = Number(flag('--repeats', 2));
const STEP_S = Number(flag('--step', 3));
const JSON_OUT = flag('--json', null);
/** Server-heavy chunks (the Lua script per chunk, --ws) so the engine, not the writers, gives out; a generous SLO. */
const COMMON = [
  '--local',
  '-t',
  '2',
  '-c',
  '50',
  '--ws',
  '--start-rate',
  '25000',
  '--step-seconds',
  String(STEP_S),
  '--step-warmup',
  '1',
  '--slo-p99',
  '1000',
  '--engine-ceiling',
  '100',
  '--confirm',
  '0',
];

const log = (s = '') => process.stdout.write(`${s}\n`);
const grouped = (n) => (n === null || !Number.isFinite(n) ? '-' : Math.round(n).toLocaleString('en-US'));
const pct = (x) => (x === null || !Number.isFinite(x) ? '-' : `${x >= 0 ? '+' : '−'}${Math.abs(x).toFixed(1)}%`);

/** One search at one node size: its capacity.json, noise and the wall time. */
async function search(size, out) {
  const full = ['src/cli.js', 'capacity', ...COMMON, '--node-cpus', String(size), '--out', out, '--quiet'];
  const r = await runMeasured(process.execPath, full, { cwd: ROOT, timeoutMs: 20 * 60_000 });
  const [name] = fs.existsSync(out) ? fs.readdirSync(out) : [];
  if (!name || (r.code !== 0 && r.code !== 1))
    throw new Error(
      `rqbench capacity --node-cpus ${size} exited with ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-2).join(' | ')}`,
    );
  const dir = path.join(out, name);
  const doc = JSON.parse(fs.readFileSync(path.join(dir, 'capacity.json'), 'utf8'));
  return { size, doc, wallS: r.wallS, command: commandLine('node', full), noise: trialNoise(dir) };
}

/** The trusted line of the node that saturates first, or null. */
const lineOf = (doc) => doc.projection?.find((p) => p.trusted)?.fit ?? null;

async function main() {
  if (!SIZES.length) throw new Error(`--sizes: none of them fits this machine's ${os.cpus().length} core(s)`);
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-projection-bench-'));
  try {
    log(`# capacity projection vs searches at node sizes ${SIZES.join(', ')} (${REPEATS} of each, interleaved; ${os.cpus().length} cores)`);
    log('');
    log('| # | node cores | searched max items/s | projected (own line) | own error | steps | wall s | outside CPU, worst | noisy runs |');
    log('| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |');
    const runs = [];
    for (let i = 1; i <= REPEATS; i++) {
      for (const size of SIZES) {
        const r = await search(size, path.join(work, `n${size}-${i}`));
        const fit = lineOf(r.doc);
        const projected = rateAt(fit, 100 * engineCores(size));
        const max = r.doc.search?.max ?? null;
        const own = projected !== null && max ? ((projected - max) / max) * 100 : null;
        runs.push({ ...r, fit, projected, max, own });
        log(
          `| ${i} | ${size} | ${grouped(max)} | ${grouped(projected)} | ${pct(own)} | ${r.doc.steps.length} | ${r.wallS.toFixed(1)} | ${r.noise ? `${r.noise.outsidePct}%` : '-'} | ${r.noise ? `${r.noise.noisyRuns}/${r.noise.runs}` : '-'} |`,
        );
      }
    }
    const medianMax = Object.fromEntries(SIZES.map((s) => [s, median(runs.filter((r) => r.size === s && r.max).map((r) => r.max))]));
    log('');
    log("Cross: each search's line read for every node size, against that size's median searched maximum:");
    log('');
    log(`| line from | ${SIZES.map((s) => `→ ${s} core (median max ${grouped(medianMax[s])})`).join(' | ')} |`);
    log(`| --- | ${SIZES.map(() => '---:').join(' | ')} |`);
    const cross = [];
    for (const r of runs) {
      const cells = SIZES.map((s) => {
        const p = rateAt(r.fit, 100 * engineCores(s));
        const err = p !== null && medianMax[s] ? ((p - medianMax[s]) / medianMax[s]) * 100 : null;
        if (err !== null && s !== r.size) cross.push(err);
        return `${grouped(p)} (${pct(err)})`;
      });
      log(`| ${r.size} core #${runs.filter((x) => x.size === r.size).indexOf(r) + 1} | ${cells.join(' | ')} |`);
    }
    const owns = runs.map((r) => r.own).filter((x) => x !== null);
    const worst = (xs) => (xs.length ? Math.max(...xs.map(Math.abs)) : null);
    const range = (xs) => (xs.length ? `${pct(Math.min(...xs))} to ${pct(Math.max(...xs))}` : '-');
    log('');
    const verdict = (xs) => {
      const w = worst(xs);
      return w === null ? 'nothing to check' : `worst ${w.toFixed(1)}% (target ≤ 10%): ${target(w <= 10)}`;
    };
    log(`own error (projection vs its own search): ${range(owns)} over ${owns.length} searches, ${verdict(owns)}`);
    log(`cross error (projection to another node size): ${range(cross)} over ${cross.length} readings, ${verdict(cross)}`);
    log(`untrusted lines: ${runs.filter((r) => !r.fit).length} of ${runs.length}`);
    log(`command: ${runs[0].command}`);
    log(targetsLine());
    if (JSON_OUT) {
      const brief = (r) => ({
        size: r.size,
        max: r.max,
        projected: r.projected,
        ownErrorPct: r.own,
        steps: r.doc.steps.length,
        wallS: r.wallS,
        noise: r.noise,
      });
      fs.writeFileSync(JSON_OUT, `${JSON.stringify({ sizes: SIZES, runs: runs.map(brief), medianMax, crossErrorPct: cross }, null, 2)}\n`);
    }
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((e) => {
  process.stderr.write(`bench:projection: ${e.message}\n`);
  process.exit(1);
});
