/**
 * Where an experiment's runs live: `experiments/<name>/runs/<yyyymmdd-hhmmss>/<step>/trial-<k>/`,
 * holding `step.json` (the commands, when, exit codes) and the CLIs' run directories (a produce
 * step's `*-producer/` and `*-consumer/`). A step is complete when its kind reads back every run
 * directory it needs with a summary.json of a run that was not interrupted.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * @typedef {object} StepResult
 * @property {string} dir
 * @property {any|null} meta          step.json
 * @property {string|null} producerDir
 * @property {string|null} consumerDir
 * @property {any|null} producer      its summary.json
 * @property {any|null} consumer
 * (the fields above are a produce step's; a step of another kind adds what its readBack() gives: a capacity step its capacityDir and capacity.json)
 * @property {boolean} complete
 */

/** @param {string} expDir */
export const runsDir = (expDir) => path.join(expDir, 'runs');

/** `20261121-235307`: sorts by time. */
export function stamp(when = new Date()) {
  return when.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/**
 * The newest `runs/<stamp>` directory, or null.
 * @param {string} expDir
 * @returns {string|null}
 */
export function latestRun(expDir) {
  let names;
  try {
    names = fs
      .readdirSync(runsDir(expDir), { withFileTypes: true })
      .filter((d) => d.isDirectory() && /^\d{8}-\d{6}/.test(d.name))
      .map((d) => d.name);
  } catch {
    return null;
  }
  names.sort();
  return names.length ? path.join(runsDir(expDir), names[names.length - 1]) : null;
}

/**
 * What a step directory holds, as its kind reads it back.
 * @param {string} stepDir
 * @param {import('./kinds/kind-contract.js').StepKind} kind the step's kind
 * @param {any} step
 * @returns {StepResult}
 */
export function readStep(stepDir, kind, step) {
  const meta = readJson(path.join(stepDir, 'step.json'));
  return {
    dir: stepDir,
    meta,
    producerDir: null,
    consumerDir: null,
    producer: null,
    consumer: null,
    ...kind.readBack(stepDir, meta, step),
  };
}

/**
 * Moves a step's directory aside (kept: what it measured is evidence) so the re-run starts clean.
 * @param {string} stepDir
 * @param {'interrupted'|'noisy'|'unanswered'} [why] an incomplete trial, one something outside the run disturbed, or one
 *   whose service stopped answering
 * @returns {string|null} where it went
 */
export function setAside(stepDir, why = 'interrupted') {
  if (!fs.existsSync(stepDir)) return null;
  for (let n = 1; ; n++) {
    const to = `${stepDir}.${why}-${n}`;
    if (!fs.existsSync(to)) {
      fs.renameSync(stepDir, to);
      return to;
    }
  }
}

export function newestRunDir(stepDir, role) {
  let names;
  try {
    names = fs
      .readdirSync(stepDir, { withFileTypes: true })
      .filter((d) => d.isDirectory() && new RegExp(`-${role}(-\\d+)?$`).test(d.name))
      .map((d) => d.name);
  } catch {
    return null;
  }
  names.sort();
  return names.length ? path.join(stepDir, names[names.length - 1]) : null;
}

/**
 * @param {string} file
 * @returns {any|null} null when missing or not JSON (a run killed mid-write)
 */
export function readJson(file) {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch {
    return null;
  }
}

/**
 * step.json: written when a step starts (its commands) and again, with `save()`, when it ends.
 * @param {string} stepDir
 * @param {Record<string, any>} meta
 * @returns {() => void} save: writes meta as it is then
 */
export function stepRecord(stepDir, meta) {
  const file = path.join(stepDir, 'step.json');
  const save = () => fs.writeFileSync(file, `${JSON.stringify(meta, null, 2)}\n`);
  save();
  return save;
}

/**
 * The newest run directory of a role in a step directory, and one of its JSON files.
 * @param {string} stepDir
 * @param {string} role
 * @param {string} [file]
 * @returns {{ dir: string|null, doc: any|null }}
 */
export function newestRun(stepDir, role, file = 'summary.json') {
  const dir = newestRunDir(stepDir, role);
  return { dir, doc: (dir && readJson(path.join(dir, file))) ?? null };
}

/**
 * The host line's manifest of a kind whose steps each hold one run directory: the first run's
 * manifest.json, every commit the runs ran named (steps added to a run later, with --resume, ran
 * other code), and whether any tree was dirty (one dirty taints the table; unknown, from older
 * runs, only where none says).
 * @param {Array<string|null|undefined>} dirs the complete steps' run directories
 * @returns {Record<string, any>|null}
 */
export function runsManifest(dirs) {
  const manifests = dirs.filter(Boolean).map((d) => readJson(path.join(/** @type {string} */ (d), 'manifest.json')));
  const first = manifests[0];
  if (!first) return null;
  const gits = [...new Set(manifests.map((m) => m?.git).filter(Boolean))];
  const states = manifests.map((m) => m?.gitDirty);
  const gitDirty = states.includes(true) ? true : states.every((d) => d === false) ? false : undefined;
  return { ...first, ...(gits.length > 1 ? { gits } : {}), gitDirty };
}
