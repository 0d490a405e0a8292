/**
 * An experiment step of kind `capacity`: `rqbench capacity` run by the runner, as a person would
 * type it, on the spec's topology (a local one started by the search itself, so each step can cap
 * its nodes with its own `cpus:`), with the step's instance facts. Read from the spec, checked by
 * the command's own checks, run, and read back.
 *
 *   steps:
 *     - { name: half, kind: capacity, cpus: 0.5, instance: { type: local-0.5, vcpu: 0.5, memoryGb: 1, hourlyPrice: 0.05 } }
 */
import fs from 'node:fs';
import path from 'node:path';
import { flagMapProblem, toArgs } from './flags.js';
import { capacityArgvProblem } from './capacity/capacity-args.js';
import { newestRunDir, readJson } from './layout.js';
import { commandLine, runChild } from './children.js';

export const STEP_KINDS = ['produce', 'capacity'];
/** A capacity step's own fields, beside name, label, flags, duration and warmup. */
export const CAPACITY_FIELDS = ['kind', 'cpus', 'instance', 'capacity'];
const INSTANCE = { type: 'instance-type', vcpu: 'vcpu', memoryGb: 'memory-gb', hourlyPrice: 'hourly-price' };

/**
 * @typedef {object} CapacityFields
 * @property {import('./flags.js').FlagMap} [capacity]  the search's flags (slo-p99, precision, …)
 * @property {number|null} [cpus]                       each local node's CPU cap for this step
 * @property {Record<string, string|number>|null} [instance]  type, vcpu, memoryGb, hourlyPrice
 */

/**
 * The step's capacity fields, checked for shape (the values are the command's to check).
 * @param {Record<string, any>} s the step as written
 * @param {string} p its path, e.g. 'steps[1]'
 * @param {import('./flags.js').FlagMap|undefined} common the spec-wide `capacity:` map
 * @returns {{ fields: CapacityFields, problem: string|null }}
 */
export function readCapacityFields(s, p, common) {
  const none = { fields: { capacity: {}, cpus: null, instance: null }, problem: null };
  const bad = (problem) => ({ ...none, problem });
  const shape = flagMapProblem(s.capacity, `${p}.capacity`) ?? flagMapProblem(common, 'capacity');
  if (shape) return bad(shape);
  if (s.cpus !== undefined && (typeof s.cpus !== 'number' || !(s.cpus > 0))) return bad(`${p}.cpus must be a number of cores > 0 (got ${JSON.stringify(s.cpus)})`);
  let instance = null;
  if (s.instance !== undefined) {
    if (!s.instance || typeof s.instance !== 'object' || Array.isArray(s.instance)) return bad(`${p}.instance must be a map: { type, vcpu, memoryGb, hourlyPrice }`);
    const extra = Object.keys(s.instance).find((k) => !(k in INSTANCE));
    if (extra) return bad(`${p}.instance.${extra} is not a field here (known: ${Object.keys(INSTANCE).join(', ')})`);
    instance = s.instance;
  }
  return { fields: { capacity: { ...common, ...s.capacity }, cpus: s.cpus ?? null, instance }, problem: null };
}

/**
 * The command a capacity step runs (relative paths, so it can be pasted from the repo root).
 * @param {{ flags: import('./flags.js').FlagMap, duration: number, warmup: number } & CapacityFields} step
 * @param {import('./spec.js').Topology} topology
 * @param {string} out the step's directory
 * @returns {string[]} argv after `node`
 */
export function capacityArgv(step, topology, out) {
  const l = topology.local;
  const cpus = step.cpus ?? l?.cpus ?? null;
  const target = l
    ? ['--local', ...(l.cluster ? ['--cluster', '--masters', String(l.masters)] : []), '--replicas', String(l.replicas), ...(cpus ? ['--node-cpus', String(cpus)] : [])]
    : ['--url', topology.url, ...(topology.cluster ? ['--cluster'] : [])];
  const instance = step.instance ? Object.fromEntries(Object.entries(step.instance).map(([k, v]) => [INSTANCE[k], v])) : {};
  return ['src/cli.js', 'capacity', ...target, ...toArgs(step.flags), ...toArgs(step.capacity ?? {}), ...toArgs(instance),
    '--step-seconds', String(step.duration), '--step-warmup', String(step.warmup), '--quiet', '--out', out, '--name', 'capacity'];
}

/**
 * The step's argv through the command's own checks: one line naming the spec field, or null.
 * @param {Parameters<typeof capacityArgv>[0] & { path: string }} step
 * @param {import('./spec.js').Topology} topology
 * @returns {string|null}
 */
export function capacityStepProblem(step, topology) {
  const argv = capacityArgv(step, topology, '.').slice(2).filter((x, i, all) => x !== '--out' && all[i - 1] !== '--out');
  const fields = {
    '--step-seconds': `${step.path}.duration (or duration)`, '--step-warmup': `${step.path}.warmup (or warmup)`, '--node-cpus': `${step.path}.cpus`,
    ...Object.fromEntries(Object.entries(INSTANCE).map(([k, flag]) => [`--${flag}`, `${step.path}.instance.${k}`])),
  };
  return capacityArgvProblem(argv, (flag) => fields[flag] ?? (step.capacity?.[flag.replace(/^-+/, '')] !== undefined ? `${step.path}.capacity.${flag.replace(/^-+/, '')}` : `${step.path}.flags (${flag})`));
}

/**
 * Runs the step to its end; writes step.json before and after.
 * @param {Parameters<typeof capacityArgv>[0] & { name: string, label: string }} step
 * @param {string} stepDir
 * @param {import('./spec.js').Topology} topology
 * @param {import('./children.js').Stopper} stopper
 * @param {string} out stepDir as the command should name it
 * @returns {Promise<{ ok: boolean, error?: string }>}
 */
export async function runCapacityStep(step, stepDir, topology, stopper, out) {
  fs.mkdirSync(stepDir, { recursive: true });
  const argv = capacityArgv(step, topology, out);
  const metaFile = path.join(stepDir, 'step.json');
  const meta = { name: step.name, label: step.label, kind: 'capacity', startedAt: new Date().toISOString(), commands: [commandLine('node', argv)], ok: false };
  fs.writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
  const r = await runChild(argv, stopper);
  const doc = readCapacity(stepDir);
  // exit 1 with a capacity.json is a search that ran and found nothing held: its RESULTS row says so
  const finished = doc && (r.code === 0 || r.code === 1);
  Object.assign(meta, { endedAt: new Date().toISOString(), exitCodes: [r.code ?? r.signal], ok: Boolean(finished) && !stopper.stopped });
  if (!finished) meta.error = r.lastLine;
  fs.writeFileSync(metaFile, `${JSON.stringify(meta, null, 2)}\n`);
  return finished ? { ok: true } : { ok: false, error: `rqbench capacity exited with ${r.code ?? r.signal}: ${r.lastLine}` };
}

/**
 * The step's capacity.json, or null.
 * @param {string} stepDir
 * @returns {any|null}
 */
export function readCapacity(stepDir) {
  const dir = newestRunDir(stepDir, 'capacity');
  const doc = dir && readJson(path.join(dir, 'capacity.json'));
  return doc ? { ...doc, dir } : null;
}
