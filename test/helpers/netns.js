// Hosts as Linux network namespaces (issue 26): a "server" namespace with a bridge, and one
// namespace per host joined to it by a veth pair, every address in 127.0.0.0/8 and nothing routed
// anywhere else (no default route, no link to the root namespace). Processes started inside are
// tracked by PID and ended by PID; the namespaces go with remove(), even after a failure.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import { findExecutable, findRedisCli, findRedisServer } from '../../src/local/local-redis.js';
import { isAlive, sleep } from '../../src/local/process.js';
import { ROOT } from './producer-run.js';

/** redis-server's bus port is its port + 10000: both must be free inside the server namespace, and are (it is fresh). */
export const CLUSTER_PORTS = [7001, 7002, 7003];

/**
 * Why namespaces cannot be made here, or null: Linux, root, iproute2 and unshare, and a namespace
 * that can really be added (a container without CAP_SYS_ADMIN cannot).
 * @returns {string|null}
 */
export function netnsProblem() {
  if (process.platform !== 'linux') return 'network namespaces are Linux only';
  if (process.getuid?.() !== 0) return 'making network namespaces needs root';
  for (const tool of ['ip', 'unshare', 'sysctl'])
    if (!findExecutable(tool)) return `${tool} is not installed (apt-get install iproute2 util-linux procps)`;
  const probe = `rqb${process.pid}-probe`;
  try {
    execFileSync('ip', ['netns', 'add', probe], { stdio: 'pipe' });
    execFileSync('ip', ['netns', 'del', probe], { stdio: 'pipe' });
  } catch (e) {
    return `ip netns add failed: ${
      String(/** @type {any} */ (e).stderr ?? e)
        .trim()
        .split('\n')[0]
    }`;
  }
  return null;
}

/** @param {string[]} args an `ip` command line */
function ip(...args) {
  execFileSync('ip', args, { stdio: 'pipe' });
}

/**
 * @typedef {{ ns: string, addr: string, name: string }} Host a namespace, its one address, and
 *   the host name processes started in it see (a UTS namespace of their own)
 */

/**
 * Sysctls and loopback of a fresh namespace. 127.0.0.1/8 on lo makes every 127.x address local,
 * so a packet to another host's 127.0.1.1 would loop back to this one: lo keeps 127.0.0.1/32 only.
 * route_localnet lets 127.x addresses cross an interface other than lo (they are martians otherwise).
 * @param {string} ns
 */
function prepare(ns) {
  execFileSync(
    'ip',
    ['netns', 'exec', ns, 'sysctl', '-qw', 'net.ipv4.conf.all.route_localnet=1', 'net.ipv4.conf.default.route_localnet=1'],
    { stdio: 'pipe' },
  );
  ip('-n', ns, 'link', 'set', 'lo', 'up');
  ip('-n', ns, 'addr', 'del', '127.0.0.1/8', 'dev', 'lo');
  ip('-n', ns, 'addr', 'add', '127.0.0.1/32', 'dev', 'lo');
}

/** @param {string} ns @param {string} dev route_localnet on this interface too (the kernel checks the one a packet crosses) */
function localnet(ns, dev) {
  execFileSync('ip', ['netns', 'exec', ns, 'sysctl', '-qw', `net.ipv4.conf.${dev}.route_localnet=1`], { stdio: 'pipe' });
}

/**
 * The server namespace (127.0.1.1 on a bridge) and `count` host namespaces (127.0.2.i on the host
 * end of a veth whose other end is a port of the bridge), /32 routes both ways. Names carry this
 * process's PID, so runs side by side never meet.
 * @param {number} count
 */
export function makeHosts(count) {
  const id = process.pid;
  /** @type {Host} */
  const server = { ns: `rqb${id}-srv`, addr: '127.0.1.1', name: `rqb-srv` };
  /** @type {Host[]} */
  const hosts = Array.from({ length: count }, (_, i) => ({ ns: `rqb${id}-h${i + 1}`, addr: `127.0.2.${i + 1}`, name: `rqb-h${i + 1}` }));
  /** @type {Set<number>} every process started inside, ended by PID in remove() */
  const pids = new Set();
  const made = [];
  const dropNamespaces = () => {
    for (const ns of made.reverse()) {
      try {
        // its veth ends go with it, and with them their peers in the other namespace
        ip('netns', 'del', ns);
      } catch {
        // gone already
      }
    }
    made.length = 0;
  };
  // the processes first: a namespace some process still runs in outlives `ip netns del`
  const remove = async () => {
    await endAll(pids);
    dropNamespaces();
  };
  try {
    ip('netns', 'add', server.ns);
    made.push(server.ns);
    prepare(server.ns);
    const br = `rqbbr${id}`.slice(0, 15);
    ip('-n', server.ns, 'link', 'add', br, 'type', 'bridge');
    localnet(server.ns, br);
    ip('-n', server.ns, 'addr', 'add', `${server.addr}/32`, 'dev', br);
    ip('-n', server.ns, 'link', 'set', br, 'up');
    hosts.forEach((h, i) => {
      ip('netns', 'add', h.ns);
      made.push(h.ns);
      prepare(h.ns);
      // interface names: at most 15 characters, unique per namespace (PID in them: unique anywhere)
      const [sEnd, hEnd] = [`rqs${i + 1}-${id}`, `rqh${i + 1}-${id}`];
      ip('link', 'add', sEnd, 'netns', server.ns, 'type', 'veth', 'peer', 'name', hEnd, 'netns', h.ns);
      ip('-n', server.ns, 'link', 'set', sEnd, 'master', br);
      ip('-n', server.ns, 'link', 'set', sEnd, 'up');
      localnet(h.ns, hEnd);
      ip('-n', h.ns, 'addr', 'add', `${h.addr}/32`, 'dev', hEnd);
      ip('-n', h.ns, 'link', 'set', hEnd, 'up');
      ip('-n', h.ns, 'route', 'add', `${server.addr}/32`, 'dev', hEnd, 'src', h.addr);
      ip('-n', server.ns, 'route', 'add', `${h.addr}/32`, 'dev', br, 'src', server.addr);
    });
  } catch (e) {
    dropNamespaces();
    throw e;
  }
  return { server, hosts, pids, remove };
}

/**
 * Starts `argv` inside a namespace, as host `name` when given (a UTS namespace of its own, so
 * manifest.json names that host). `ip netns exec`, `unshare` (without --fork) and `sh -c exec` all
 * exec, so the child's PID is the command's own: the one to kill.
 * @param {Host} host
 * @param {string[]} argv
 * @param {Set<number>} pids where the PID is kept for the cleanup
 * @param {{ hostname?: boolean }} [o]
 */
export function spawnIn(host, argv, pids, { hostname = true } = {}) {
  const as = hostname ? ['unshare', '--uts', '--', 'sh', '-c', 'hostname "$0" && exec "$@"', host.name] : [];
  const child = spawn('ip', ['netns', 'exec', host.ns, ...as, ...argv], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, REDIS_PASSWORD: '' },
  });
  if (child.pid) pids.add(child.pid);
  return child;
}

/**
 * Runs `argv` inside a namespace to its end (killed by PID after timeoutMs).
 * @param {Host} host
 * @param {string[]} argv
 * @param {Set<number>} pids
 * @param {{ timeoutMs?: number, onSpawn?: (pid: number) => void, hostname?: boolean }} [o]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string, pid: number, ms: number }>}
 */
export function runIn(host, argv, pids, { timeoutMs = 60_000, onSpawn, hostname } = {}) {
  const started = Date.now();
  const child = spawnIn(host, argv, pids, { hostname });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  const pid = /** @type {number} */ (child.pid);
  onSpawn?.(pid);
  const timer = setTimeout(() => endTree(pid), timeoutMs);
  return new Promise((resolve, reject) => {
    child.once('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, pid, ms: Date.now() - started });
    });
  });
}

/**
 * A process's children, from /proc (a producer forks one writer process per writer).
 * @param {number} pid
 * @returns {number[]}
 */
export function childrenOf(pid) {
  try {
    return fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/**
 * SIGKILL to a process and then to the children it had (they end on their own when their parent's
 * IPC channel closes; this makes sure), each by PID.
 * @param {number} pid
 */
export function endTree(pid) {
  const kids = childrenOf(pid);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // ended already
  }
  for (const k of kids) if (isAlive(k)) process.kill(k, 'SIGKILL');
}

/** @param {Set<number>} pids */
async function endAll(pids) {
  for (const pid of pids) if (isAlive(pid)) endTree(pid);
  for (let i = 0; i < 50 && [...pids].some(isAlive); i++) await sleep(50);
  pids.clear();
}

/**
 * One redis-cli command inside a namespace (no UTS namespace: it names nothing).
 * @param {Host} host where it runs
 * @param {string} addr @param {number} port the server
 * @param {string[]} cmd
 */
export function cliIn(host, addr, port, ...cmd) {
  return execFileSync('ip', ['netns', 'exec', host.ns, /** @type {string} */ (findRedisCli()), '-h', addr, '-p', String(port), ...cmd], {
    encoding: 'utf8',
    timeout: 5000,
  }).trim();
}

/**
 * A Redis Cluster of masters only, inside the server namespace on its address (announced as such,
 * so clients on other hosts follow CLUSTER SLOTS to it): slots given out by hand and the nodes
 * introduced with CLUSTER MEET (faster than redis-cli --cluster create's fixed waits).
 * @param {Host} server
 * @param {Set<number>} pids
 * @param {string} dir node files (nodes-<port>.conf)
 * @returns {Promise<{ url: string }>}
 */
export async function startClusterIn(server, pids, dir) {
  const bin = /** @type {string} */ (findRedisServer());
  for (const port of CLUSTER_PORTS) {
    const child = spawnIn(
      server,
      [
        bin,
        '--bind',
        server.addr,
        '--port',
        String(port),
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        `nodes-${port}.conf`,
        '--cluster-node-timeout',
        '2000',
        '--cluster-announce-ip',
        server.addr,
        '--save',
        '',
        '--appendonly',
        'no',
        '--dir',
        dir,
        '--protected-mode',
        'no',
        '--daemonize',
        'no',
      ],
      pids,
      { hostname: false },
    );
    child.stdout?.resume();
    child.stderr?.resume();
  }
  const ask = (port, ...cmd) => cliIn(server, server.addr, port, ...cmd);
  await until(() => CLUSTER_PORTS.every((p) => tryOr(() => ask(p, 'PING'), '') === 'PONG'), 'the nodes to answer PING');
  const per = Math.ceil(16384 / CLUSTER_PORTS.length);
  CLUSTER_PORTS.forEach((p, i) => ask(p, 'CLUSTER', 'ADDSLOTSRANGE', String(i * per), String(Math.min(16383, (i + 1) * per - 1))));
  for (const p of CLUSTER_PORTS.slice(1)) ask(CLUSTER_PORTS[0], 'CLUSTER', 'MEET', server.addr, String(p));
  const ok = (p) =>
    /cluster_state:ok/.test(tryOr(() => ask(p, 'CLUSTER', 'INFO'), '')) && /cluster_known_nodes:3/.test(ask(p, 'CLUSTER', 'INFO'));
  await until(() => CLUSTER_PORTS.every(ok), 'cluster_state:ok on every node');
  return { url: `redis://${server.addr}:${CLUSTER_PORTS[0]}` };
}

/**
 * @template T
 * @param {() => T} f
 * @param {T} fallback
 */
function tryOr(f, fallback) {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/** @param {() => boolean} cond @param {string} what */
async function until(cond, what, timeoutMs = 15_000) {
  const end = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > end) throw new Error(`gave up waiting for ${what} after ${timeoutMs} ms`);
    await sleep(100);
  }
}

/**
 * fauxqs (the SQS/SNS emulator, an npm dependency) inside a namespace on its address: its CLI
 * binds 0.0.0.0, so it is started from code, as src/local/sqs-emulator.js does on 127.0.0.1.
 * @param {Host} server
 * @param {Set<number>} pids
 * @param {number} port
 * @returns {Promise<{ endpoint: string }>}
 */
export async function startSqsIn(server, pids, port) {
  const script =
    "const { buildApp } = await import('fauxqs'); const app = buildApp({ logger: false, defaultRegion: 'us-east-1' });" +
    " await app.listen({ host: process.argv[1], port: Number(process.argv[2]) }); process.stdout.write('listening\\n');";
  const child = spawnIn(server, [process.execPath, '--input-type=module', '-e', script, server.addr, String(port)], pids, {
    hostname: false,
  });
  let out = '';
  child.stderr?.on('data', (d) => {
    out += d;
  });
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fauxqs did not start in the server namespace: ${out}`)), 15_000);
    child.stdout?.on('data', (d) => {
      if (String(d).includes('listening')) {
        clearTimeout(timer);
        resolve(undefined);
      }
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`fauxqs ended (exit ${code}): ${out}`));
    });
  });
  return { endpoint: `http://${server.addr}:${port}` };
}
