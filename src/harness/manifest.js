/**
 * manifest.json: everything needed to know what ran — kind, flags (no secrets), versions, git sha,
 * topology, host — in one shape for every kind of run.
 */
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { RUN_KIND_NAMES } from '../runs/kinds.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function gitSha() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
  } catch {
    return null;
  }
}

/**
 * What an experiment writes into the tree it runs from (RESULTS.md, its charts, its trial data, the
 * index): results, not code. A run of several specs rewrites the earlier specs' RESULTS.md before
 * the later ones start, so these must not count as uncommitted code.
 */
const OUTPUTS = /^experiments\/(README\.md|[^/]+\/(RESULTS\.md|report\.html|charts\/.*|data\/.*))$/;

/**
 * Whether rqbench's own tree holds changes to tracked files that no commit has: the commit alone
 * does not name the code that ran then. Untracked files (run directories, a local note) are not
 * code that ran, nor are an experiment's own outputs (OUTPUTS). Null outside a git checkout.
 * @returns {{ dirty: boolean, files: number, changed: string[] }|null} changed: the first ten paths
 */
export function gitChanges() {
  try {
    const out = execFileSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .split('\n')
      .filter(Boolean)
      // "XY path", or "XY old -> new" for a rename: the path the tree holds now
      .map((line) => line.slice(3).split(' -> ').at(-1) ?? '')
      .filter((file) => !OUTPUTS.test(file));
    return { dirty: out.length > 0, files: out.length, changed: out.slice(0, 10) };
  } catch {
    return null;
  }
}

export function packageVersion(name) {
  try {
    const file = name === 'rqbench' ? `${ROOT}package.json` : `${ROOT}node_modules/${name}/package.json`;
    return JSON.parse(readFileSync(file, 'utf8')).version;
  } catch {
    return null;
  }
}

/** Flags as the user gave them, without yargs' duplicates (secrets are masked where anything is written: record/redact.js). */
export function cleanFlags(a) {
  const out = {};
  for (const [k, v] of Object.entries(a)) {
    if (k === '_' || k === '$0' || k.length === 1 || k.includes('-') || v === undefined) continue;
    out[k] = v;
  }
  return out;
}

/**
 * "cluster of 3 shards (3 masters, 3 replicas), Redis 7.0.15" — for descriptions.
 * @param {{ nodes: Array<{ role: string }>, cluster: boolean, redisVersion: string, target: string }} topo
 */
export function shapeOf(topo) {
  const masters = topo.nodes.filter((n) => n.role === 'master').length;
  const replicas = topo.nodes.length - masters;
  const shape = topo.cluster
    ? `cluster of ${masters} shards (${masters} masters, ${replicas} replicas)`
    : `standalone (1 master, ${replicas} replicas)`;
  return `${topo.target} — ${shape}, Redis ${topo.redisVersion}`;
}

/** @typedef {string} RunKind a kind of run directory: one of runs/kinds.js's RUN_KIND_NAMES */

/**
 * manifest.json of any run, one shape: what kind of run it is (`kind`, the one field readers of
 * a run directory switch on), the command and its flags, when it started, the workload's own
 * facts (`facts`, in the place each kind always had them), then versions, git sha and host.
 * @param {object} p
 * @param {RunKind} p.kind
 * @param {string} p.command the CLI command ('produce', 'consume', 'load', 'ops')
 * @param {Record<string, any>} p.a parsed flags
 * @param {string} p.dir
 * @param {number} p.t0 epoch ms of second 0
 * @param {string} p.description one sentence: what ran against what
 * @param {Record<string, unknown>} [p.facts] the workload's fields (target, topology, store…)
 * @param {string[]} [p.packages] the packages whose versions the run depends on
 * @param {Record<string, unknown>} [p.versions] more versions (the server's)
 */
export function runManifest({ kind, command, a, dir, t0, description, facts = {}, packages = [], versions = {} }) {
  // the reports read a directory by its kind: one they do not know would be unreadable
  if (!RUN_KIND_NAMES.includes(kind)) throw new TypeError(`runManifest: ${kind} is not a kind of run directory (runs/kinds.js)`);
  return {
    tool: 'rqbench',
    kind,
    command,
    runId: a.runId ?? null,
    dir,
    description,
    startedAt: new Date(t0).toISOString(),
    t0,
    flags: cleanFlags(a),
    ...facts,
    versions: {
      rqbench: packageVersion('rqbench'),
      node: process.version,
      ...Object.fromEntries(packages.map((n) => [n, packageVersion(n)])),
      ...versions,
    },
    git: gitSha(),
    gitDirty: gitChanges()?.dirty ?? null,
    host: {
      hostname: os.hostname(),
      platform: `${os.platform()} ${os.release()}`,
      cpus: os.cpus().length,
      cpuModel: os.cpus()[0]?.model ?? null,
      memoryGb: Math.round(os.totalmem() / 2 ** 30),
    },
  };
}

/**
 * The Redis producer's and consumer's fields: data model, store settings, the writers or
 * readers run here, the target and its topology.
 * @param {object} p
 * @param {'produce'|'consume'|'kv'} p.command
 * @param {string} p.mode data model
 * @param {object} p.storeCfg
 * @param {{ target: string, nodes: Array<Record<string, any>> }} p.topo from discoverTopology()
 * @param {number[]} p.workers writer, reader or kv client numbers run here
 */
export function redisFacts({ command, mode, storeCfg, topo, workers }) {
  return {
    mode,
    store: storeCfg,
    [command === 'produce' ? 'writers' : command === 'kv' ? 'clients' : 'readers']: workers,
    target: topo.target,
    topology: topo.nodes.map(({ id, addr, role, shard, slots, masterId }) => ({
      id,
      addr,
      role,
      shard,
      masterId: masterId ?? null,
      slots,
    })),
  };
}
