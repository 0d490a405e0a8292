// Integration tests for src/local/local-redis.js and `rqbench local redis`: real redis-server
// processes on 127.0.0.1, no mocks.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis, Cluster } from 'ioredis';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { isAlive } from '../../src/local/process.js';
import { toStartOptions } from '../../src/commands/local.js';

// The real entry point when it is there; otherwise a fixture that registers only `local`.
const MAIN_CLI = fileURLToPath(new URL('../../src/cli.js', import.meta.url));
const CLI = fs.existsSync(MAIN_CLI) ? MAIN_CLI : fileURLToPath(new URL('../fixtures/local-cli.mjs', import.meta.url));
const SLOW = { timeout: 60_000 };

/** Everything a test started, stopped even when the test fails. */
const running = new Set();
async function start(opts) {
  const local = await startRedis(opts);
  running.add(local);
  return local;
}
async function stop(local) {
  await local.stop();
  running.delete(local);
}
afterAll(async () => {
  await Promise.all([...running].map((l) => l.stop()));
}, 30_000);

/** Runs fn with a connected client, then closes it. */
async function withClient(port, fn) {
  const client = new Redis({ host: '127.0.0.1', port, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await client.connect();
    return await fn(client);
  } finally {
    client.disconnect();
  }
}

function info(text) {
  return Object.fromEntries(
    text
      .split(/\r?\n/)
      .filter((l) => l.includes(':') && !l.startsWith('#'))
      .map((l) => {
        const i = l.indexOf(':');
        return [l.slice(0, i), l.slice(i + 1).trim()];
      }),
  );
}

/** CLUSTER NODES as seen by one node: port → { role, slots }. */
async function clusterView(port) {
  const text = await withClient(port, (c) => c.call('CLUSTER', 'NODES'));
  const view = new Map();
  for (const line of text.trim().split('\n')) {
    const [, addr, flags, , , , , , ...slots] = line.split(' ');
    const role = flags.split(',').includes('master') ? 'master' : flags.split(',').includes('slave') ? 'replica' : '?';
    const count = slots
      .filter((s) => !s.startsWith('['))
      .reduce((sum, r) => {
        const [a, b = a] = r.split('-').map(Number);
        return sum + b - a + 1;
      }, 0);
    view.set(Number(addr.split('@')[0].split(':')[1]), { role, slots: count });
  }
  return view;
}

async function expectClusterReady(local, masters, replicas) {
  expect(local.mode).toBe('cluster');
  expect(local.nodes).toHaveLength(masters * (replicas + 1));
  expect(local.nodes.filter((n) => n.role === 'master')).toHaveLength(masters);
  expect(local.seeds).toEqual(local.nodes.filter((n) => n.role === 'master').map(({ host, port }) => ({ host, port })));
  for (const node of local.nodes) {
    const ci = info(await withClient(node.port, (c) => c.call('CLUSTER', 'INFO')));
    expect(ci.cluster_state, `${node.port} cluster_state`).toBe('ok');
    if (node.role === 'replica') {
      const repl = info(await withClient(node.port, (c) => c.info('replication')));
      expect(repl.master_link_status, `${node.port} master link`).toBe('up');
    }
    // Every node agrees on every role, and the masters cover all 16384 slots.
    const view = await clusterView(node.port);
    expect(view.size).toBe(local.nodes.length);
    for (const other of local.nodes) expect(view.get(other.port)?.role).toBe(other.role);
    const slots = [...view.values()].filter((v) => v.role === 'master').reduce((s, v) => s + v.slots, 0);
    expect(slots).toBe(16384);
  }
}

function expectStopped(local) {
  for (const node of local.nodes) expect(isAlive(node.pid), `pid ${node.pid} alive`).toBe(false);
  expect(fs.existsSync(local.dir)).toBe(false);
}

describe('startRedis standalone', SLOW, () => {
  it('starts, answers PING, and stop() kills the PID and removes the dir', async () => {
    const local = await start();
    expect(local.mode).toBe('standalone');
    expect(local.nodes).toHaveLength(1);
    expect(local.url).toBe(`redis://127.0.0.1:${local.port}`);
    expect(local.seeds).toEqual([{ host: '127.0.0.1', port: local.port }]);
    const [node] = local.nodes;
    expect(node).toMatchObject({ host: '127.0.0.1', port: local.port, role: 'master' });
    expect(isAlive(node.pid)).toBe(true);
    expect(fs.existsSync(path.join(node.dir, 'redis.log'))).toBe(true);
    const client = new Redis(local.url, { lazyConnect: true });
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    // DEBUG is enabled for local connections by default (fault-injection tests need it).
    expect(await client.call('DEBUG', 'SLEEP', '0')).toBe('OK');
    client.disconnect();
    await stop(local);
    expectStopped(local);
    await local.stop(); // idempotent
  });

  it('starts 1 master + 1 replica (cluster mode disabled) with the replica linked', async () => {
    const local = await start({ replicas: 1 });
    try {
      expect(local.nodes.map((n) => n.role)).toEqual(['master', 'replica']);
      const [master, replica] = local.nodes;
      expect(replica.masterPort).toBe(master.port);
      const repl = info(await withClient(replica.port, (c) => c.info('replication')));
      expect(repl.role).toBe('slave');
      expect(repl.master_port).toBe(String(master.port));
      expect(repl.master_link_status).toBe('up');
      expect(info(await withClient(master.port, (c) => c.info('replication'))).connected_slaves).toBe('1');
    } finally {
      await stop(local);
    }
    expectStopped(local);
  });

  it('tls: true makes a CA, serves TLS only (replication too), and stop() removes the certificates', async () => {
    const local = await start({ tls: true, replicas: 1 });
    try {
      expect(local.url).toBe(`rediss://127.0.0.1:${local.port}`);
      expect(local.tls.caFile.startsWith(local.dir)).toBe(true);
      const ca = fs.readFileSync(local.tls.caFile);
      const client = new Redis({ host: '127.0.0.1', port: local.port, tls: { ca }, lazyConnect: true, maxRetriesPerRequest: 1 });
      try {
        await client.connect();
        expect(await client.ping()).toBe('PONG');
        expect(info(await client.info('replication')).connected_slaves).toBe('1');
      } finally {
        client.disconnect();
      }
      const replica = new Redis({ host: '127.0.0.1', port: local.nodes[1].port, tls: { ca }, lazyConnect: true });
      try {
        await replica.connect();
        expect(info(await replica.info('replication')).master_link_status).toBe('up');
      } finally {
        replica.disconnect();
      }
      // no plain port: a client without TLS gets no answer
      const plain = new Redis({
        host: '127.0.0.1',
        port: local.port,
        lazyConnect: true,
        retryStrategy: () => null,
        maxRetriesPerRequest: 0,
        connectTimeout: 1000,
        commandTimeout: 1000,
      });
      plain.on('error', () => {});
      await expect(plain.connect().then(() => plain.ping())).rejects.toThrow();
      plain.disconnect();
    } finally {
      await stop(local);
    }
    expectStopped(local);
  });

  it('refuses a tls option without its CA', async () => {
    await expect(startRedis({ tls: { certFile: 'a', keyFile: 'b' } })).rejects.toThrow(
      /tls must be true or \{ certFile, keyFile, caFile \}/,
    );
  });
});

describe('startRedis cluster', SLOW, () => {
  it('3 masters x 1 replica by default: ready, right roles, all slots, usable by ioredis', async () => {
    const local = await start({ cluster: true });
    try {
      await expectClusterReady(local, 3, 1);
      const cluster = new Cluster(local.seeds, { lazyConnect: true });
      try {
        await cluster.connect();
        for (let i = 0; i < 20; i++) await cluster.set(`k${i}`, String(i));
        expect(await cluster.get('k7')).toBe('7');
      } finally {
        cluster.disconnect();
      }
    } finally {
      await stop(local);
    }
    expectStopped(local);
  });

  it('replicas: 2 gives 9 nodes (3 masters, 6 replicas), all stopped by stop()', async () => {
    const local = await start({ cluster: true, replicas: 2 });
    try {
      await expectClusterReady(local, 3, 2);
    } finally {
      await stop(local);
    }
    expectStopped(local);
  });

  it('refuses fewer than 3 masters', async () => {
    await expect(startRedis({ cluster: true, masters: 2 })).rejects.toThrow(/masters must be an integer >= 3/);
  });
});

describe('local command options', () => {
  it('defaults depend on the mode and bad values are named', () => {
    expect(toStartOptions({ cluster: false })).toEqual({ cluster: false });
    expect(toStartOptions({ cluster: true, masters: '4', replicas: '0' })).toEqual({ cluster: true, masters: 4, replicas: 0 });
    expect(toStartOptions({ cluster: false, tls: true })).toEqual({ cluster: false, tls: true });
    expect(() => toStartOptions({ cluster: true, masters: 'x' })).toThrow('--masters must be an integer from 3 to 64 (got "x")');
    // the same rule as produce --local and a spec's topology
    expect(() => toStartOptions({ cluster: true, masters: '65' })).toThrow('--masters must be an integer from 3 to 64 (got "65")');
    expect(() => toStartOptions({ replicas: '6' })).toThrow('--replicas must be an integer from 0 to 5 (got "6")');
    expect(() => toStartOptions({ replicas: '1.5' })).toThrow(/--replicas/);
  });
});

/**
 * Spawns the CLI; resolves the output so far when `until` matches stdout, or at exit.
 */
function spawnCli(args) {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const out = { stdout: '', stderr: '' };
  child.stdout.on('data', (d) => {
    out.stdout += d;
  });
  child.stderr.on('data', (d) => {
    out.stderr += d;
  });
  const exited = new Promise((resolve) => child.once('close', (code, signal) => resolve({ code, signal })));
  const waitFor = (re, ms) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re}: ${JSON.stringify(out)}`)), ms);
      const check = () => {
        if (re.test(out.stdout)) {
          clearTimeout(timer);
          resolve(out.stdout);
        }
      };
      child.stdout.on('data', check);
      exited.then(() => {
        clearTimeout(timer);
        re.test(out.stdout) ? resolve(out.stdout) : reject(new Error(`exited: ${JSON.stringify(out)}`));
      });
      check();
    });
  return { child, out, exited, waitFor };
}

describe('rqbench local redis', SLOW, () => {
  /** @type {import('node:child_process').ChildProcess|undefined} */
  let child;
  afterEach(() => {
    // Only the child this test spawned, by its PID; its own exit hook stops its servers.
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
  });

  it('--cluster prints the URL and nodes, serves PING, and SIGINT stops it (exit 0)', async () => {
    const cli = spawnCli(['local', 'redis', '--cluster']);
    child = cli.child;
    const stdout = await cli.waitFor(/Ctrl-C stops/, 45_000);
    const url = stdout.match(/^url:\s+(redis:\/\/127\.0\.0\.1:\d+)$/m)?.[1];
    expect(url).toBeTruthy();
    expect(stdout).toMatch(/^seeds: (127\.0\.0\.1:\d+ ?){3}$/m);
    expect(stdout).toContain(`rqbench produce --url ${url} --cluster`);
    expect(stdout).toMatch(/redis-cli -c -p \d+/);
    const rows = [...stdout.matchAll(/^(master|replica)\s+127\.0\.0\.1:(\d+)\s+(\d+)/gm)];
    expect(rows.map((r) => r[1]).sort()).toEqual(['master', 'master', 'master', 'replica', 'replica', 'replica']);
    const pids = rows.map((r) => Number(r[3]));
    const dir = stdout.match(/^dir:\s+(.+)$/m)[1];

    const client = new Redis(url, { lazyConnect: true });
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();

    child.kill('SIGINT');
    const { code } = await cli.exited;
    expect(code).toBe(0);
    for (const pid of pids) expect(isAlive(pid), `pid ${pid}`).toBe(false);
    expect(fs.existsSync(dir)).toBe(false);
    expect(cli.out.stderr).toBe('');
  });

  it('--tls prints a rediss:// URL and the CA to trust, and the commands that use it', async () => {
    const cli = spawnCli(['local', 'redis', '--tls']);
    child = cli.child;
    const stdout = await cli.waitFor(/Ctrl-C stops/, 45_000);
    const url = stdout.match(/^url:\s+(rediss:\/\/127\.0\.0\.1:(\d+))$/m);
    const ca = stdout.match(/^ca:\s+(\S+)$/m)?.[1];
    expect(url, stdout).toBeTruthy();
    expect(ca, stdout).toBeTruthy();
    expect(stdout).toContain(`rqbench produce --url ${url[1]} --tls-ca ${ca}`);
    expect(stdout).toContain(`redis-cli --tls --cacert ${ca} -p ${url[2]}`);
    const client = new Redis({ host: '127.0.0.1', port: Number(url[2]), tls: { ca: fs.readFileSync(ca) }, lazyConnect: true });
    await client.connect();
    expect(await client.ping()).toBe('PONG');
    client.disconnect();
    child.kill('SIGINT');
    expect((await cli.exited).code).toBe(0);
    expect(fs.existsSync(ca)).toBe(false);
  });
});
