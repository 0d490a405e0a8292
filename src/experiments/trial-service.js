/**
 * A trial whose service stopped answering — an emulator or a server gone silent until the run's own
 * bound on silence stopped it — measured the fault, not the step: in six trials a median's
 * interval is [min, max], so one such trial could decide a verdict. The runner sets it aside (kept,
 * as `trial-<k>.unanswered-<n>`) and runs it again on a fresh server, at most SERVICE_RETRIES
 * times; a trial still silent then is kept and counted, and RESULTS.md names it either way.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readJson } from './layout.js';
import { summaries } from './trial-noise.js';

/** How many times a trial whose service stopped answering is run again. */
export const SERVICE_RETRIES = 2;
/** The set-aside directory's mark (layout.js setAside). */
export const UNANSWERED = 'unanswered';

/**
 * What the runs of a trial say of a service that stopped answering, or null: a Redis run's
 * `unreachable` (nothing answered for its retry budget), a queue run's stop for the same reason,
 * or a run that could not connect at all (its last line, when it wrote no summary).
 * @param {string} trialDir
 * @param {{ ok: boolean, error?: string }} [result] the step's, as its kind ran it
 * @returns {string|null}
 */
export function serviceSilence(trialDir, result) {
  const unreached = result && !result.ok ? /cannot connect to \S+: [^;]*/.exec(result.error ?? '')?.[0] : null;
  if (unreached) return `${unreached}, and the run stopped`;
  for (const file of summaries(trialDir, 3)) {
    const s = readJson(file);
    if (s?.unreachable) return `nothing answered for ${s.unreachable.silentS} s and the run stopped`;
    if (s?.stoppedBy === 'unreachable' || s?.window?.stoppedBy === 'unreachable')
      return `the service did not answer for longer than the run's bound and the run stopped`;
  }
  return null;
}

/**
 * How many times a trial was set aside because its service stopped answering.
 * @param {string} trialDir
 */
export function unansweredTries(trialDir) {
  const base = path.basename(trialDir);
  try {
    return fs.readdirSync(path.dirname(trialDir)).filter((d) => d.startsWith(`${base}.${UNANSWERED}-`)).length;
  } catch {
    return 0;
  }
}

/**
 * The Finding's lines on trials whose service stopped answering: those run again, and those kept silent.
 * @param {Array<{ step: { name: string }, trials: Array<{ trial: number, service?: { silent: string|null, tries: number }|null }> }>} steps
 * @returns {string[]}
 */
export function serviceLines(steps) {
  const hit = steps.flatMap((s) =>
    s.trials
      .filter((t) => t.service && (t.service.silent || t.service.tries))
      .map((t) => ({ step: s.step.name, trial: t.trial, ...t.service })),
  );
  if (!hit.length) return [];
  const times = (n) => `${n} time${n === 1 ? '' : 's'}`;
  return [
    `Trials whose service stopped answering (each run again on a fresh server, at most ${SERVICE_RETRIES} times; the runs set aside are kept beside the trial):`,
    '',
    ...hit.map((x) =>
      x.silent
        ? `- ${x.step} trial ${x.trial}: ${x.silent}${x.tries ? `, as in the ${x.tries} run${x.tries === 1 ? '' : 's'} set aside before it` : ''}: kept and counted — it measured the fault, and with few trials one such trial can decide a comparison`
        : `- ${x.step} trial ${x.trial}: its service stopped answering ${times(x.tries)}; the trial counted is the run that answered`,
    ),
    '',
  ];
}
