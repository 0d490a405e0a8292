/**
 * manifest.json: everything needed to know what ran — flags (no secrets), versions, git sha,
 * topology, host.
 */
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export function gitSha() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
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

/** Flags as the user gave them, without yargs' duplicates and without secrets. */
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
  const shape = topo.cluster ? `cluster of ${masters} shards (${masters} masters, ${replicas} replicas)` : `standalone (1 master, ${replicas} replicas)`;
  return `${topo.target} — ${shape}, Redis ${topo.redisVersion}`;
}

/**
 * @param {object} p
 * @param {'produce'|'consume'} p.command
 * @param {string} p.description one sentence: what ran against what
 * @param {Record<string, any>} p.a parsed flags
 * @param {string} p.mode data model
 * @param {object} p.storeCfg
 * @param {object} p.topo from discoverTopology()
 * @param {number[]} p.workers writer or reader numbers run here
 * @param {number} p.t0
 * @param {string} p.dir
 */
export function runFacts({ command, description, a, mode, storeCfg, topo, workers, t0, dir }) {
  return {
    tool: 'rqbench',
    command,
    runId: a.runId ?? null,
    dir,
    description,
    startedAt: new Date(t0).toISOString(),
    t0,
    flags: cleanFlags(a),
    mode,
    store: storeCfg,
    [command === 'produce' ? 'writers' : 'readers']: workers,
    target: topo.target,
    topology: topo.nodes.map(({ id, addr, role, shard, slots, masterId }) => ({ id, addr, role, shard, masterId: masterId ?? null, slots })),
    versions: { rqbench: packageVersion('rqbench'), node: process.version, ioredis: packageVersion('ioredis'), 'hdr-histogram-js': packageVersion('hdr-histogram-js'), redis: topo.redisVersion },
    git: gitSha(),
    host: { hostname: os.hostname(), platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, memoryGb: Math.round(os.totalmem() / 2 ** 30) },
  };
}
