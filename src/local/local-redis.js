/**
 * Throwaway local Redis servers (standalone, standalone + replicas, or a cluster) on
 * 127.0.0.1, for tests, the demo and users (`rqbench local redis`).
 *
 * Facts this follows (DESIGN.md "Local servers"): nodes are started by hand, daemonized,
 * `--save '' --appendonly no`; every node dir is wiped first (replicas write dump.rdb even
 * with `--save ''` and a restarted node then refuses to join); "ready" means every node
 * `cluster_state:ok` and every replica `master_link_status:up`.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { findFreePorts } from './ports.js';
import { isAlive, processName, readPidFile, sleep, terminate } from './process.js';
import { makeCerts } from './tls-certs.js';
import { capProcess, cpusAccepted, probeCpuCap, validCpus } from './cpu-cap.js';
import { parseClusterNodes as parseNodes, parseInfo as parseInfoText } from '../transports/redis.js';

export const INSTALL_HINT =
  'redis-server not found: install it with "apt-get install -y redis-server" (Debian/Ubuntu) or "brew install redis" (macOS)';

const HOST = '127.0.0.1';
const SLOTS = 16384;
const POLL_MS = 100;
/** Attempts per node: a port found free can be taken by someone else before Redis binds it. */
const PORT_ATTEMPTS = 4;
/** How long a freshly daemonized node may take to write its pidfile. */
const PIDFILE_WAIT_MS = 5000;

/**
 * @typedef {{ certFile: string, keyFile: string, caFile: string }} LocalRedisTls
 * @typedef {{
 *   cluster?: boolean, masters?: number, replicas?: number, dir?: string,
 *   tls?: LocalRedisTls|true, enableDebug?: boolean, extraArgs?: string[], password?: string,
 *   readyTimeoutMs?: number, signal?: AbortSignal, cpus?: number, tool?: { command: string, args: string[], env?: Record<string, string> },
 *   clusterNodeTimeoutMs?: number,
 * }} StartRedisOptions
 * cpus caps every node (each in a cgroup of its own, cpu-cap.js) at that many cores: a smaller instance, emulated.
 * tool runs every node in the foreground under that program (Valgrind: callgrind.js), the node's PID being the
 * tool's (Valgrind runs its guest in its own process); clusterNodeTimeoutMs: a slow tool needs a longer one.
 * @typedef {{
 *   host: string, port: number, pid: number, dir: string, role: 'master'|'replica',
 *   id?: string, masterPort?: number, cpus?: number, cgroup?: string,
 * }} LocalRedisNode
 * cpus and cgroup: the node's CPU cap and the group that holds it, when capped.
 * @typedef {{
 *   mode: 'standalone'|'cluster', dir: string, nodes: LocalRedisNode[],
 *   host: string, port: number, url: string, seeds: { host: string, port: number }[],
 *   tls?: LocalRedisTls, cpus: number|null, stop: () => Promise<void>, flush: () => Promise<void>,
 *   addNodes?: (count: number) => Promise<LocalRedisNode[]>,
 * }} LocalRedis
 * flush empties every node (FLUSHALL on each master, then until every replica holds no key too):
 * the next run on the same servers starts from nothing its predecessor left.
 * addNodes (clusters only) starts `count` more cluster-enabled, empty nodes that have joined
 * nothing yet, with the same options; they are appended to `nodes` as masters and stop() stops them.
 */

/**
 * The options once the certificates are made (startRedis turns `tls: true` into files).
 * @typedef {Omit<ReturnType<typeof normalizeOptions>, 'tls'> & { tls?: LocalRedisTls }} StartConfig
 */

/**
 * Absolute path of an executable on PATH (or /usr/bin, /usr/local/bin), or null.
 * @param {string} name
 * @returns {string|null}
 */
export function findExecutable(name) {
  const pathDirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of [...pathDirs, '/usr/bin', '/usr/local/bin']) {
    const file = path.resolve(dir, name);
    try {
      fs.accessSync(file, fs.constants.X_OK);
      if (fs.statSync(file).isFile()) return file;
    } catch {
      // not here
    }
  }
  return null;
}

/** @returns {string|null} absolute path of redis-server, or null when it is not installed */
export function findRedisServer() {
  return findExecutable('redis-server');
}

/** @returns {string|null} absolute path of redis-cli, or null when it is not installed */
export function findRedisCli() {
  return findExecutable('redis-cli');
}

/**
 * Starts a local Redis: standalone (optionally with replicas) or a cluster.
 * `dir` is the parent of the fresh per-start temp dir (default: os.tmpdir()); the temp dir
 * is removed by stop(). The node list describes roles at startup (a failover changes them).
 * With `tls`, every node listens on a TLS port only (replication and the cluster bus too), with
 * the given files, or (`true`) with a CA and certificate made for this start in its temp dir;
 * the url is then rediss:// and `tls.caFile` is what a client must trust.
 * @param {StartRedisOptions} [opts]
 * @returns {Promise<LocalRedis>}
 */
export async function startRedis(opts = {}) {
  const cfg = normalizeOptions(opts);
  // a cap that cannot be set fails here, before any server or directory exists (and before a
  // missing redis-server: the machine's answer to the flag comes first, as other bad input does)
  if (cfg.cpus) await probeCpuCap(cfg.cpus);
  const bins = requireBinaries(cfg.cluster);
  await fsp.mkdir(cfg.parentDir, { recursive: true });
  const base = await fsp.mkdtemp(path.join(cfg.parentDir, 'rqbench-redis-'));
  const ctx = {
    cfg,
    bins,
    base,
    deadline: Date.now() + cfg.readyTimeoutMs,
    /** @type {{ pid: number, port: number, dir: string, cap?: import('./cpu-cap.js').CpuCap, comm?: string }[]} every node started, for stop() */
    started: [],
    usedPorts: new Set(),
  };
  const stop = once(() => stopAll(ctx));
  installExitHook();
  live.add(ctx);
  try {
    if (cfg.tls === true) cfg.tls = await makeCerts({ dir: path.join(base, 'tls') });
    if (cfg.tls) cfg.tlsCa = await fsp.readFile(cfg.tls.caFile);
    const nodes = cfg.cluster ? await startCluster(ctx) : await startStandalone(ctx);
    const local = toLocalRedis(/** @type {StartConfig} the certificates are made */ (cfg), base, nodes, stop);
    if (cfg.cluster) local.addNodes = (count) => addNodes(ctx, nodes, count);
    return local;
  } catch (err) {
    await stop();
    throw err;
  }
}

/**
 * @param {StartRedisOptions} opts
 */
function normalizeOptions(opts) {
  const {
    cluster = false,
    masters = 3,
    replicas = cluster ? 1 : 0,
    dir = os.tmpdir(),
    tls,
    enableDebug = true,
    extraArgs = [],
    readyTimeoutMs = 30_000,
    signal,
    cpus,
    tool,
    clusterNodeTimeoutMs = 2000,
  } = opts;
  // a password may come as an option or inside extraArgs (--requirepass X)
  const i = extraArgs.indexOf('--requirepass');
  const password = opts.password ?? (i >= 0 ? String(extraArgs[i + 1]) : undefined);
  if (tls !== undefined && tls !== true && !(tls?.certFile && tls.keyFile && tls.caFile)) {
    // the CA is not optional: replicas and cluster peers verify each other with it, and so do our checks
    throw new TypeError('startRedis: tls must be true or { certFile, keyFile, caFile }');
  }
  if (!Number.isInteger(replicas) || replicas < 0) {
    throw new RangeError(`startRedis: replicas must be an integer >= 0 (got ${replicas})`);
  }
  if (cluster && (!Number.isInteger(masters) || masters < 3)) {
    // redis-cli --cluster create refuses fewer than 3 masters.
    throw new RangeError(`startRedis: masters must be an integer >= 3 for a cluster (got ${masters})`);
  }
  if (!Array.isArray(extraArgs)) throw new TypeError('startRedis: extraArgs must be an array of strings');
  if (cpus !== undefined && !validCpus(cpus)) throw new RangeError(`startRedis: cpus must be ${cpusAccepted()} (got ${cpus})`);
  return {
    cluster,
    masters: cluster ? masters : 1,
    replicas,
    parentDir: dir,
    enableDebug,
    extraArgs: extraArgs.map(String),
    readyTimeoutMs,
    signal,
    password,
    tls,
    cpus,
    tool,
    clusterNodeTimeoutMs,
    /** @type {Buffer|undefined} the CA's PEM, for our own connections */
    tlsCa: undefined,
  };
}

/**
 * @param {boolean} cluster
 * @returns {{ server: string, cli: string|null }}
 */
function requireBinaries(cluster) {
  const server = findRedisServer();
  const cli = findRedisCli();
  if (!server || (cluster && !cli)) {
    throw Object.assign(new Error(INSTALL_HINT), { code: 'ENOREDIS' });
  }
  return { server, cli };
}

/**
 * @param {StartConfig} cfg
 * @param {string} dir
 * @param {LocalRedisNode[]} nodes masters first
 * @param {() => Promise<void>} stop
 * @returns {LocalRedis}
 */
function toLocalRedis(cfg, dir, nodes, stop) {
  const first = nodes[0];
  return {
    mode: cfg.cluster ? 'cluster' : 'standalone',
    dir,
    nodes,
    host: HOST,
    port: first.port,
    url: `${cfg.tls ? 'rediss' : 'redis'}://${HOST}:${first.port}`,
    seeds: nodes.filter((n) => n.role === 'master').map((n) => ({ host: n.host, port: n.port })),
    ...(cfg.tls && { tls: { caFile: cfg.tls.caFile, certFile: cfg.tls.certFile, keyFile: cfg.tls.keyFile } }),
    cpus: cfg.cpus ?? null,
    stop,
    flush: () => flushAll(nodes),
  };
}

/**
 * FLUSHALL on every master, then wait until every node (replicas too) holds no key.
 * @param {LocalRedisNode[]} nodes as they are now (addNodes appends to them)
 */
async function flushAll(nodes) {
  const masters = nodes.filter((n) => n.role === 'master');
  const answers = await Promise.all(masters.map((n) => query(n.port, 'FLUSHALL')));
  const silent = masters.filter((_, i) => answers[i] !== 'OK');
  if (silent.length)
    throw new Error(`could not empty the local Redis: ${silent.map((n) => `${n.host}:${n.port}`).join(', ')} did not answer FLUSHALL`);
  const deadline = Date.now() + 10_000;
  for (;;) {
    const sizes = await Promise.all(nodes.map((n) => query(n.port, 'DBSIZE')));
    if (sizes.every((s) => s === 0)) return;
    if (Date.now() > deadline) throw new Error(`could not empty the local Redis: keys left after 10 s (${sizes.join(', ')})`);
    await sleep(50);
  }
}

// ---------------------------------------------------------------- standalone

/**
 * One master plus `replicas` replicas (`--replicaof`): "cluster mode disabled" as on ElastiCache.
 * @returns {Promise<LocalRedisNode[]>}
 */
async function startStandalone(ctx) {
  const master = await startNode(ctx, 0, {});
  /** @type {LocalRedisNode[]} */
  const nodes = [{ ...master, role: 'master' }];
  for (let i = 1; i <= ctx.cfg.replicas; i++) {
    const replica = await startNode(ctx, i, { replicaOf: master.port });
    nodes.push({ ...replica, role: 'replica', masterPort: master.port });
  }
  await waitUntil(ctx, `Redis (1 master + ${ctx.cfg.replicas} replicas)`, () => standaloneProblems(nodes));
  return nodes;
}

/**
 * @param {LocalRedisNode[]} nodes
 * @returns {Promise<string[]>} what is not ready yet (empty when ready)
 */
async function standaloneProblems(nodes) {
  const problems = [];
  for (const node of nodes) {
    const info = parseInfo(await query(node.port, 'INFO', 'replication'));
    const name = `${node.host}:${node.port} (${node.role})`;
    if (!info) problems.push(`${name} does not answer`);
    else if (node.role === 'replica' && info.master_link_status !== 'up') {
      problems.push(`${name} master_link_status:${info.master_link_status ?? '?'}`);
    } else if (node.role === 'master' && Number(info.connected_slaves) !== nodes.length - 1) {
      problems.push(`${name} connected_slaves:${info.connected_slaves ?? '?'}`);
    }
  }
  return problems;
}

// ---------------------------------------------------------------- cluster

/**
 * @returns {Promise<LocalRedisNode[]>} masters first, then replicas
 */
async function startCluster(ctx) {
  const { masters, replicas } = ctx.cfg;
  const total = masters * (replicas + 1);
  const started = [];
  for (let i = 0; i < total; i++) started.push(await startNode(ctx, i, { cluster: true }));
  await createCluster(ctx, started);
  const label = `Redis cluster (${masters} masters x ${replicas} replicas)`;
  await waitUntil(ctx, label, () => clusterProblems(started, masters, replicas));
  const view = parseClusterNodes(await query(started[0].port, 'CLUSTER', 'NODES'));
  const nodes = withClusterRoles(started, view);
  if (replicas > 0) {
    // Redis 7 leaves a replica out of CLUSTER SLOTS while its replication offset is 0, which on a new
    // cluster lasts until its master's first write: a client that started first saw no replica, and
    // one that refreshed its map while the nodes still gossiped the offsets lost the replica it had
    // (1 shard's reads of a cycle went to its master in a busy test run). FLUSHALL on an empty master
    // is a write that changes nothing, and it reaches the replicas.
    for (const n of nodes) if (n.role === 'master') await query(n.port, 'FLUSHALL');
    await waitUntil(ctx, `${label}: replicas in CLUSTER SLOTS`, () => slotsProblems(started, masters * replicas));
  }
  return nodes;
}

/**
 * @param {{ port: number, host: string }[]} nodes
 * @param {number} replicas how many replicas every node's CLUSTER SLOTS must name
 * @returns {Promise<string[]>} the nodes whose CLUSTER SLOTS names fewer (empty when none)
 */
async function slotsProblems(nodes, replicas) {
  const problems = [];
  for (const node of nodes) {
    const slots = await query(node.port, 'CLUSTER', 'SLOTS');
    // one entry per range: [start, end, master, ...replicas]
    const named = new Set(Array.isArray(slots) ? slots.flatMap((r) => r.slice(3).map((x) => String(x[1]))) : []);
    if (named.size !== replicas) problems.push(`${node.host}:${node.port} names ${named.size} of ${replicas} replicas in CLUSTER SLOTS`);
  }
  return problems;
}

/**
 * `redis-cli --cluster create`; its output goes to <dir>/cluster-create.log.
 */
async function createCluster(ctx, nodes) {
  const args = [
    '--cluster',
    'create',
    ...nodes.map((n) => `${HOST}:${n.port}`),
    '--cluster-replicas',
    String(ctx.cfg.replicas),
    '--cluster-yes',
  ];
  if (ctx.cfg.tls) args.push('--tls', '--cacert', ctx.cfg.tls.caFile);
  // the password goes in the environment, not on a command line anyone can read with ps
  const env = ctx.cfg.password ? { ...process.env, REDISCLI_AUTH: ctx.cfg.password } : undefined;
  const logFile = path.join(ctx.base, 'cluster-create.log');
  const { code, output } = await run(ctx.bins.cli, args, remaining(ctx), ctx.cfg.signal, env);
  await fsp.writeFile(logFile, output).catch(() => {});
  if (code !== 0) {
    throw new Error(`redis-cli --cluster create failed (${code === null ? 'timed out' : `exit ${code}`}): ${tail(output)}`);
  }
}

/**
 * @param {{ port: number, host: string }[]} nodes
 * @param {number} masters
 * @param {number} replicas
 * @returns {Promise<string[]>} what is not ready yet (empty when ready)
 */
async function clusterProblems(nodes, masters, replicas) {
  const problems = [];
  for (const node of nodes) {
    const name = `${node.host}:${node.port}`;
    const info = parseInfo(await query(node.port, 'CLUSTER', 'INFO'));
    const view = parseClusterNodes(await query(node.port, 'CLUSTER', 'NODES'));
    if (!info || !view) {
      problems.push(`${name} does not answer`);
      continue;
    }
    if (info.cluster_state !== 'ok') problems.push(`${name} cluster_state:${info.cluster_state}`);
    if (Number(info.cluster_slots_ok) !== SLOTS) problems.push(`${name} cluster_slots_ok:${info.cluster_slots_ok}`);
    if (Number(info.cluster_known_nodes) !== nodes.length) {
      problems.push(`${name} cluster_known_nodes:${info.cluster_known_nodes}`);
    }
    // Every node must see the final topology, or a client seeded from it would miss replicas.
    const seenMasters = view.filter((n) => n.role === 'master' && n.slots.length > 0).length;
    const seenReplicas = view.filter((n) => n.role === 'replica').length;
    if (seenMasters !== masters || seenReplicas !== masters * replicas) {
      problems.push(`${name} sees ${seenMasters} masters with slots and ${seenReplicas} replicas`);
    }
    const self = view.find((n) => n.myself);
    if (self?.role === 'replica') {
      const repl = parseInfo(await query(node.port, 'INFO', 'replication'));
      if (repl?.master_link_status !== 'up') problems.push(`${name} master_link_status:${repl?.master_link_status ?? '?'}`);
    }
  }
  return problems;
}

/**
 * @param {{ host: string, port: number, pid: number, dir: string }[]} started
 * @param {import('../transports/redis.js').RedisNode[]} view
 * @returns {LocalRedisNode[]} masters first
 */
function withClusterRoles(started, view) {
  const byPort = new Map(view.map((v) => [v.port, v]));
  const portOf = new Map(view.map((v) => [v.id, v.port]));
  const nodes = started.map((n) => {
    const v = byPort.get(n.port);
    /** @type {LocalRedisNode} */
    const node = { ...n, role: v?.role === 'replica' ? 'replica' : 'master', id: v?.id };
    if (v?.masterId) node.masterPort = portOf.get(v.masterId);
    return node;
  });
  return [...nodes.filter((n) => n.role === 'master'), ...nodes.filter((n) => n.role === 'replica')];
}

/**
 * More empty cluster nodes for a running cluster (adding a shard): started like the first ones,
 * registered for stop(), joined to nothing.
 * @param {*} ctx
 * @param {LocalRedisNode[]} nodes the LocalRedis node list, appended to
 * @param {number} count
 * @returns {Promise<LocalRedisNode[]>}
 */
async function addNodes(ctx, nodes, count) {
  if (!live.has(ctx)) throw new Error('addNodes: this local Redis was stopped');
  ctx.deadline = Date.now() + ctx.cfg.readyTimeoutMs; // the start's deadline has long passed
  const added = [];
  for (let i = 0; i < count; i++) {
    // started only grows, so its length is an unused node-<index> dir
    added.push({ ...(await startNode(ctx, ctx.started.length, { cluster: true })), role: /** @type {const} */ ('master') });
  }
  nodes.push(...added);
  return added;
}

// ---------------------------------------------------------------- nodes

/**
 * Starts one daemonized node in <base>/node-<index>, retrying on another port when the
 * chosen one was taken before Redis could bind it.
 * @param {*} ctx
 * @param {number} index
 * @param {{ cluster?: boolean, replicaOf?: number }} kind
 * @returns {Promise<{ host: string, port: number, pid: number, dir: string, cpus?: number, cgroup?: string }>}
 */
async function startNode(ctx, index, kind) {
  const dir = path.join(ctx.base, `node-${index}`);
  let lastError;
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    ctx.cfg.signal?.throwIfAborted();
    const [port] = await findFreePorts(1, { clusterBus: !!kind.cluster, exclude: ctx.usedPorts });
    ctx.usedPorts.add(port).add(port + 10000);
    await fsp.rm(dir, { recursive: true, force: true });
    await fsp.mkdir(dir, { recursive: true });
    try {
      const pid = await launch(ctx, nodeArgs(ctx.cfg, port, dir, kind), dir);
      // stopped by PID only while the process still has the name it had: a tool's process is named after the tool
      const entry = { pid, port, dir, cap: undefined, comm: ctx.cfg.tool ? (processName(pid) ?? undefined) : undefined };
      ctx.started.push(entry);
      // capped before it serves anything; the group is named for this process and the port, both unique now
      // (a node that died on its own is no cap problem: waitForPing says why it died, from its log)
      if (ctx.cfg.cpus) {
        entry.cap = await capProcess(pid, { cpus: ctx.cfg.cpus, name: `rqbench-${process.pid}-${port}` }).catch((e) => {
          if (isAlive(pid)) throw e;
          return undefined;
        });
      }
      await waitForPing(ctx, port, pid, dir);
      return { host: HOST, port, pid, dir, ...(entry.cap && { cpus: entry.cap.cpus, cgroup: entry.cap.dir }) };
    } catch (err) {
      lastError = err;
      if (!(await portWasTaken(dir))) throw err;
    }
  }
  throw lastError;
}

/**
 * @param {StartConfig} cfg
 * @param {number} port
 * @param {string} dir
 * @param {{ cluster?: boolean, replicaOf?: number }} kind
 * @returns {string[]} redis-server arguments for one node
 */
function nodeArgs(cfg, port, dir, { cluster = false, replicaOf }) {
  const args = [
    ...listenArgs(cfg, port, cluster),
    '--bind',
    HOST,
    '--daemonize',
    // a node under a tool stays in the tool's process: a daemon's fork would leave the tool's control behind
    cfg.tool ? 'no' : 'yes',
    '--pidfile',
    path.join(dir, 'redis.pid'),
    '--logfile',
    path.join(dir, 'redis.log'),
    '--dir',
    dir,
    '--save',
    '',
    '--appendonly',
    'no',
    // Sync replicas at once: the default diskless delay (5 s) only slows startup down.
    '--repl-diskless-sync-delay',
    '0',
    '--repl-diskless-load',
    'on-empty-db',
  ];
  if (cfg.enableDebug) args.push('--enable-debug-command', 'local');
  if (cluster) {
    args.push(
      '--cluster-enabled',
      'yes',
      '--cluster-config-file',
      'nodes.conf',
      '--cluster-node-timeout',
      String(cfg.clusterNodeTimeoutMs),
    );
  }
  if (replicaOf) args.push('--replicaof', HOST, String(replicaOf));
  // Our own checks trust the CA but do not match names: we know whom we dial on 127.0.0.1, and a
  // certificate made for a name only (as a managed service's is) must still start.
  adminAuth.set(port, { password: cfg.password, tls: cfg.tlsCa && { ca: cfg.tlsCa, checkServerIdentity: () => undefined } });
  if (cfg.password) {
    if (!cfg.extraArgs.includes('--requirepass')) args.push('--requirepass', cfg.password);
    args.push('--masterauth', cfg.password);
  }
  return [...args, ...cfg.extraArgs];
}

/**
 * The port a node serves on: plain, or TLS only (`--port 0` closes the plain one), with
 * replication and the cluster bus over TLS too, as on a managed service with in-transit encryption.
 * Clients are not asked for certificates.
 * @param {StartConfig} cfg
 * @param {number} port
 * @param {boolean} cluster
 * @returns {string[]}
 */
function listenArgs(cfg, port, cluster) {
  if (!cfg.tls) return ['--port', String(port)];
  return [
    '--port',
    '0',
    '--tls-port',
    String(port),
    '--tls-cert-file',
    cfg.tls.certFile,
    '--tls-key-file',
    cfg.tls.keyFile,
    '--tls-ca-cert-file',
    cfg.tls.caFile,
    '--tls-auth-clients',
    'no',
    '--tls-replication',
    'yes',
    ...(cluster ? ['--tls-cluster', 'yes'] : []),
  ];
}

/**
 * Runs redis-server (which forks and exits at once) and waits for the daemon's pidfile.
 * @returns {Promise<number>} the daemon's PID
 */
async function launch(ctx, args, dir) {
  if (ctx.cfg.tool) startUnderTool(ctx.cfg.tool, ctx.bins.server, args, dir);
  else {
    const { code, output } = await run(ctx.bins.server, args, remaining(ctx));
    if (code !== 0) throw new Error(`redis-server exited with ${code ?? 'a timeout'}: ${tail(output)}`);
  }
  const pidFile = path.join(dir, 'redis.pid');
  const until = Math.min(ctx.deadline, Date.now() + PIDFILE_WAIT_MS);
  for (;;) {
    const pid = readPidFile(pidFile);
    if (pid) return pid;
    const log = (await readLog(dir)) + (ctx.cfg.tool ? await fsp.readFile(path.join(dir, 'tool.log'), 'utf8').catch(() => '') : '');
    // A node that fails to bind aborts before it writes its pidfile.
    if (/aborting|FATAL/i.test(log) || Date.now() >= until) {
      throw new Error(`redis-server in ${dir} did not start: ${tail(log) || 'no pidfile, empty log'}`);
    }
    await sleep(20);
  }
}

/**
 * A node in the foreground under a tool, detached (its own process group: a Ctrl-C to rqbench reaches it
 * through stop(), as it does a daemon); what the tool says goes to <dir>/tool.log.
 * @param {{ command: string, args: string[], env?: Record<string, string> }} tool
 * @param {string} server
 * @param {string[]} args
 * @param {string} dir
 */
function startUnderTool(tool, server, args, dir) {
  const out = fs.openSync(path.join(dir, 'tool.log'), 'a');
  try {
    spawn(tool.command, [...tool.args, server, ...args], {
      detached: true,
      cwd: dir,
      stdio: ['ignore', out, out],
      env: { ...process.env, ...tool.env },
    }).unref();
  } finally {
    fs.closeSync(out);
  }
}

async function waitForPing(ctx, port, pid, dir) {
  for (;;) {
    if ((await query(port, 'PING')) === 'PONG') return;
    if (!isAlive(pid)) throw new Error(`redis-server on port ${port} exited: ${tail(await readLog(dir))}`);
    if (Date.now() >= ctx.deadline) throw new Error(`redis-server on port ${port} does not answer PING`);
    await sleep(20);
  }
}

async function portWasTaken(dir) {
  return /address already in use/i.test(await readLog(dir));
}

async function readLog(dir) {
  return fsp.readFile(path.join(dir, 'redis.log'), 'utf8').catch(() => '');
}

// ---------------------------------------------------------------- stop

/** Handles not stopped yet: killed (SIGTERM, no waiting) if the process exits without stop(). */
const live = new Set();
let exitHookInstalled = false;

function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const ctx of live) {
      for (const { pid } of ctx.started)
        if (isAlive(pid))
          try {
            process.kill(pid, 'SIGTERM');
          } catch {
            /* gone */
          }
      // a group can go only once its process has exited: this waits for that (2 s at most in all), blocking
      const until = Date.now() + 2000;
      for (const { cap } of ctx.started) cap?.releaseSync(until);
      try {
        fs.rmSync(ctx.base, { recursive: true, force: true });
      } catch {
        /* best effort */
      }
    }
  });
}

/**
 * Kills every node this start launched, by PID, removes each one's CPU group once it has exited,
 * and removes the temp dir.
 */
async function stopAll(ctx) {
  const name = path.basename(ctx.bins.server).slice(0, 15); // Linux comm is at most 15 chars
  await Promise.all(
    ctx.started.map(async ({ pid, cap, comm }) => {
      await terminate(pid, { graceMs: 3000, expectName: comm ?? name });
      await cap?.release();
    }),
  );
  await fsp.rm(ctx.base, { recursive: true, force: true });
  live.delete(ctx);
}

// ---------------------------------------------------------------- helpers

/**
 * Polls `check` until it reports no problems; throws naming what was not ready at the deadline.
 * @param {*} ctx
 * @param {string} what
 * @param {() => Promise<string[]>} check
 */
async function waitUntil(ctx, what, check) {
  for (;;) {
    ctx.cfg.signal?.throwIfAborted();
    const problems = await check();
    if (problems.length === 0) return;
    if (Date.now() >= ctx.deadline) {
      const secs = (ctx.cfg.readyTimeoutMs / 1000).toFixed(0);
      throw new Error(`${what} not ready after ${secs} s: ${problems.join('; ')}`);
    }
    await sleep(POLL_MS);
  }
}

/**
 * One command on a fresh connection; null when the node does not answer.
 * @param {number} port
 * @param {...string} args
 * @returns {Promise<any>}
 */
async function query(port, ...args) {
  const auth = adminAuth.get(port);
  // loaded here, not at the top: most runs never start a server, and a process's imports are most of a short run's cost
  const { Redis } = await import('ioredis');
  const client = new Redis({
    host: HOST,
    port,
    password: auth?.password,
    tls: auth?.tls,
    lazyConnect: true,
    connectTimeout: 1000,
    commandTimeout: 2000,
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    enableReadyCheck: false,
    enableOfflineQueue: false,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const [command, ...rest] = args;
    return await client.call(command, ...rest);
  } catch {
    return null;
  } finally {
    client.disconnect();
  }
}

/**
 * How the readiness checks reach each node started here, by port: its password and TLS options.
 * @type {Map<number, { password?: string, tls?: import('node:tls').ConnectionOptions }>}
 */
const adminAuth = new Map();

/** INFO text → fields; null when the node did not answer. */
function parseInfo(text) {
  return typeof text === 'string' ? parseInfoText(text) : null;
}

/** CLUSTER NODES text → nodes; null when the node did not answer. */
function parseClusterNodes(text) {
  return typeof text === 'string' ? parseNodes(text) : null;
}

/**
 * Runs a program to completion (killed by its PID at the timeout or when `signal` aborts).
 * @returns {Promise<{ code: number|null, output: string }>} code null on timeout
 */
function run(file, args, timeoutMs, signal, env) {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, env });
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), Math.max(timeoutMs, 1000));
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code, sig) => {
      clearTimeout(timer);
      resolve({ code: sig ? null : code, output });
    });
  });
}

function remaining(ctx) {
  return ctx.deadline - Date.now();
}

// eslint-disable-next-line no-control-regex -- redis-cli colours its output
const COLOURS = /\x1b\[[0-9;]*m/g;

/** Last few non-empty lines of a log, on one line, for error messages. */
function tail(text, lines = 3) {
  return String(text).replace(COLOURS, '').trim().split('\n').filter(Boolean).slice(-lines).join(' | ').replace(/\s+/g, ' ');
}

/**
 * @template T
 * @param {() => Promise<T>} fn
 * @returns {() => Promise<T>} calls fn once, then returns the same promise
 */
function once(fn) {
  /** @type {Promise<T>|undefined} */
  let p;
  return () => (p ??= fn());
}
