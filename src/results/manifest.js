/**
 * manifest.json: everything needed to know what ran — flags (no secrets), versions, git sha,
 * topology, host.
 */
import os from 'node:os';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function gitSha() {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    return null;
  }
}

function packageVersion(name) {
  try {
    const file = name === 'rqbench' ? `${ROOT}package.json` : `${ROOT}node_modules/${name}/package.json`;
    return JSON.parse(readFileSync(file, 'utf8')).version;
  } catch {
    return null;
  }
}

/** Flags as the user gave them, without yargs' duplicates and without secrets. */
function cleanFlags(a) {
  const out = {};
  for (const [k, v] of Object.entries(a)) {
    if (k === '_' || k === '$0' || k.length === 1 || k.includes('-') || v === undefined) continue;
    out[k] = v;
  }
  return out;
}

/**
 * @param {object} p flags, data model, topology (from discovery), writer numbers, t0, run dir, local server
 */
export function runFacts({ a, mode, storeCfg, topo, writers, t0, dir, local }) {
  const masters = topo.nodes.filter((n) => n.role === 'master').length;
  const replicas = topo.nodes.length - masters;
  const shape = topo.cluster ? `cluster of ${masters} shards (${masters} masters, ${replicas} replicas)` : `standalone (1 master, ${replicas} replicas)`;
  const flags = `-q ${a.quantity} -p ${a.period} -c ${a.chunks} -t ${a.writers}${a.writer ? ` -a ${a.writer}` : ''}`;
  return {
    tool: 'rqbench',
    command: 'produce',
    runId: a.runId ?? null,
    dir,
    description: `Producer, data model ${mode}, ${flags}, ${writers.length} writer process(es) here, against ${topo.target} — ${shape}, Redis ${topo.redisVersion}${local ? ' (local, started for this run)' : ''}; ${a.duration ? `${a.duration} s` : 'until Ctrl-C'}, TTL ${a.ttl} s, ${a.valueSize} B values.`,
    startedAt: new Date(t0).toISOString(),
    t0,
    flags: cleanFlags(a),
    mode,
    store: storeCfg,
    writers,
    target: topo.target,
    topology: topo.nodes.map(({ id, addr, role, shard, slots, masterId }) => ({ id, addr, role, shard, masterId: masterId ?? null, slots })),
    versions: { rqbench: packageVersion('rqbench'), node: process.version, ioredis: packageVersion('ioredis'), 'hdr-histogram-js': packageVersion('hdr-histogram-js'), redis: topo.redisVersion },
    git: gitSha(),
    host: { hostname: os.hostname(), platform: `${os.platform()} ${os.release()}`, cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, memoryGb: Math.round(os.totalmem() / 2 ** 30) },
  };
}
