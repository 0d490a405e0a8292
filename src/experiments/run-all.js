/**
 * `rqbench experiment run experiments/<each>/` (npm run experiments): every spec in sequence, with an overall progress line and
 * ETA, and resumable: `.run-all.json` beside the specs records which finished in this sequence,
 * so `--resume` skips those, continues the one that was interrupted, and runs the rest afresh
 * (never an old run left from another day).
 */
import fs from 'node:fs';
import path from 'node:path';
import { runExperiment } from './run-experiment.js';
import { verdictWords, writeResults } from './results-md.js';
import { writeIndex } from './index-md.js';
import { clock, specSeconds } from './progress.js';
import { writeErr } from '../command-io.js';

export const STATE_FILE = '.run-all.json';

/**
 * @param {import('./spec.js').Spec[]} specs
 * @param {{ resume: boolean, log?: (line: string) => void, live?: { hub: any, runId: string }|null, repeat?: number, seed?: number, retryNoisy?: number, countedTrials?: number }} o live: the
 *   metrics endpoint every step relays to (labelled step=<spec>/<step>); repeat and seed: each spec's trials and their order;
 *   countedTrials: at most this many of each counted step (a resumed spec keeps its own run's cap)
 * @returns {Promise<{ exitCode: number, index: string }>}
 */
export async function runAll(specs, { resume, log = (l) => writeErr(`${l}\n`), live = null, repeat, seed, retryNoisy = 0, countedTrials }) {
  const stateFile = path.join(path.dirname(path.resolve(specs[0].dir)), STATE_FILE);
  const names = specs.map((s) => s.name);
  const before = resume ? readState(stateFile) : null;
  // a state of another list of specs is not this sequence's
  const state =
    before && JSON.stringify(before.specs) === JSON.stringify(names)
      ? before
      : { specs: names, done: [], current: null, startedAt: new Date().toISOString() };
  if (resume && state !== before) log('rqbench experiment: no interrupted sequence of these specs to resume, starting them all');
  const started = Date.now();
  let failed = 0;
  for (const [i, spec] of specs.entries()) {
    if (state.done.includes(spec.name)) {
      log(`rqbench experiment: [spec ${i + 1}/${specs.length}] ${spec.name} finished earlier in this sequence, skipped`);
      continue;
    }
    const left = specs.slice(i).filter((s) => !state.done.includes(s.name));
    const eta = left.reduce((n, s) => n + specSeconds(s.steps) * (repeat ?? s.repeat), 0);
    log(
      `rqbench experiment: [spec ${i + 1}/${specs.length}] ${spec.name}: ${spec.steps.length} step(s) x ${repeat ?? spec.repeat} trial(s) … ${clock((Date.now() - started) / 1000)} so far, ETA ${clock(eta)}`,
    );
    const resuming = state.current === spec.name;
    const o = await runExperiment(spec, {
      resume: resuming,
      log,
      live,
      stepPrefix: `${spec.name}/`,
      retryNoisy,
      ...(!resuming && { repeat, seed, countedTrials }),
    });
    const r = await writeResults(spec);
    log(
      `rqbench experiment: wrote ${path.relative(process.cwd(), r.file)} and ${path.relative(process.cwd(), r.html)} (${verdictWords(r)})`,
    );
    if (o.interrupted) {
      saveState(stateFile, { ...state, current: spec.name });
      log('rqbench experiment: interrupted; --resume continues this sequence');
      return { exitCode: 130, index: writeIndex(specs) };
    }
    if (o.failed) {
      failed++;
      log(`rqbench experiment: ${spec.name}: step ${o.failed}`);
    }
    state.done.push(spec.name);
    state.current = null;
    saveState(stateFile, state);
  }
  fs.rmSync(stateFile, { force: true });
  const index = writeIndex(specs);
  log(
    `rqbench experiment: ${specs.length} spec(s) in ${clock((Date.now() - started) / 1000)}${failed ? `, ${failed} with a failed step` : ''}; wrote ${path.relative(process.cwd(), index)}`,
  );
  return { exitCode: failed ? 1 : 0, index };
}

function readState(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

function saveState(file, state) {
  fs.writeFileSync(file, `${JSON.stringify(state, null, 2)}\n`);
}
