// Security (TLS and ACL) against real redis-server processes on 127.0.0.1, started for this
// file: a TLS-only standalone, a TLS-only 3 x 1 cluster whose default user has a password, and
// a plain standalone with a password. A CA and a server certificate are made here with openssl.
// An ACL user with a distinctive password runs the producer and the consumer; afterwards every
// file those runs wrote and everything they printed is searched for that password.
import fs from 'node:fs';
import path from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { makeCerts } from '../../src/local/tls-certs.js';
import { openPipe } from '../../src/transports/redis.js';
import { PRODUCER, describeRun, listTree, produce, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { consume, describeConsumer } from '../helpers/consumer-run.js';

const HOST = '127.0.0.1';
const USER = 'bench';
const PASSWORD = 'S3cr3t-pa55-XYZ';
const WRONG = 'Wr0ng-pa55-QQQ';
/** The default user's password on the password-protected servers (the harness's admin access). */
const ADMIN = 'adm1n-pa55-JKL';
/** Every ordinary command, none of @dangerous (FLUSHALL, KEYS, CONFIG, DEBUG …) except INFO for the CPU sampler. */
const ACL_RULES = ['reset', 'on', `>${PASSWORD}`, '~*', '&*', '+@all', '-@dangerous', '+info'];
const SLOW = 60_000;

/** @type {import('../../src/local/tls-certs.js').LocalCerts} */ let certs;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let tlsStd;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let tlsClu;
/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let plain;
const servers = new Set();
/** Every run given PASSWORD (or WRONG): what it printed and where it wrote, for the secret grep. */
const withSecrets = [];

beforeAll(async () => {
  certs = await makeCerts({ dir: path.join(tempDir('rqbench-certs-'), 'tls') });
  const tls = { caFile: certs.caFile, certFile: certs.certFile, keyFile: certs.keyFile };
  const started = await Promise.allSettled([
    startRedis({ tls }),
    startRedis({ tls, cluster: true, password: ADMIN }),
    startRedis({ password: ADMIN }),
  ]);
  for (const s of started) if (s.status === 'fulfilled') servers.add(s.value);
  for (const s of started) if (s.status === 'rejected') throw s.reason;
  [tlsStd, tlsClu, plain] = started.map((s) => s.value);
  // ACL users are per node: every node of the cluster, replicas too (they serve the reads)
  await Promise.all(
    [...tlsClu.nodes, ...plain.nodes].map((n) =>
      admin(tlsClu.nodes.includes(n), n.port, (c) => c.call('ACL', 'SETUSER', USER, ...ACL_RULES)),
    ),
  );
}, SLOW);

afterAll(async () => {
  await Promise.all([...servers].map((s) => s.stop()));
  servers.clear();
  removeTempDirs();
}, SLOW);

/** Runs fn with an admin client (default user) of one node, then closes it. */
async function admin(useTls, port, fn) {
  const c = new Redis({
    host: HOST,
    port,
    password: ADMIN,
    tls: useTls ? { ca: fs.readFileSync(certs.caFile) } : undefined,
    lazyConnect: true,
    maxRetriesPerRequest: 1,
  });
  try {
    await c.connect();
    return await fn(c);
  } finally {
    c.disconnect();
  }
}

const tlsUrl = (local, auth = '') => `rediss://${auth}${HOST}:${local.port}`;

function expectProduced(r) {
  const why = describeRun(r);
  expect(r.code, why).toBe(0);
  expect(r.summary?.totals?.acked, why).toBeGreaterThan(0);
  expect(r.summary.totals.failed, why).toBe(0);
  expect(r.summary.writerErrors, why).toEqual([]);
}

/** The consumer read items, all of them its own, with no errors, from `readFrom`. */
function expectConsumed(r, readFrom) {
  const why = describeConsumer(r);
  expect(r.code, why).toBe(0);
  expect(r.summary?.readFrom, why).toBe(readFrom);
  expect(r.summary.totals.errors, why).toBe(0);
  expect(r.summary.readerErrors, why).toEqual([]);
  expect(r.summary.totals.fetched, why).toBeGreaterThan(0);
  expect(r.summary.totals.mismatched, why).toBe(0);
}

/** Exit 1 at once, exactly one line on stderr naming the node, no stack trace, nothing on stdout or disk. */
function expectOneLineFailure(r, port, pattern) {
  const why = describeRun(r);
  expect(r.code, why).toBe(1);
  expect(r.ms, why).toBeLessThan(5000);
  expect(r.stdout, why).toBe('');
  const lines = r.stderr.split('\n').filter(Boolean);
  expect(lines, why).toHaveLength(1);
  expect(lines[0], why).toContain(`${HOST}:${port}`);
  expect(lines[0], why).toMatch(pattern);
  expect(r.stderr, why).not.toMatch(/^\s+at /m);
  expect(listTree(r.out), 'no run directory').toEqual([]);
}

describe('TLS, standalone', () => {
  it(
    'rediss:// with --tls-ca succeeds; the target is shown as rediss://',
    async () => {
      const r = await produce({ port: tlsStd.port, url: tlsUrl(tlsStd), q: 2000, extra: ['--tls-ca', certs.caFile] });
      expectProduced(r);
      expect(r.manifest.target).toBe(tlsUrl(tlsStd));
      expect(r.manifest.flags.tlsCa).toBe(certs.caFile);
    },
    SLOW,
  );

  it(
    '--tls-insecure without a CA succeeds, and so does --tls-ca with --host/--port (TLS implied)',
    async () => {
      const [insecure, implied] = await Promise.all([
        produce({ port: tlsStd.port, url: tlsUrl(tlsStd), q: 2000, extra: ['--tls-insecure'] }),
        produce({ port: tlsStd.port, q: 2000, extra: ['--tls-ca', certs.caFile] }),
      ]);
      expectProduced(insecure);
      expectProduced(implied);
    },
    SLOW,
  );

  it(
    'neither a CA nor --tls-insecure: one line saying the certificate is not trusted, exit 1',
    async () => {
      const r = await produce({ port: tlsStd.port, url: tlsUrl(tlsStd), q: 2000 });
      expectOneLineFailure(r, tlsStd.port, /certificate not trusted/);
    },
    SLOW,
  );

  it(
    'a node known by IP is verified against the name the user connected to; without a name, against its IP',
    async () => {
      // a certificate for localhost only, as a managed service's is for its domain, not its IPs
      const named = await makeCerts({ dir: path.join(tempDir('rqbench-certs-'), 'named'), altNames: ['DNS:localhost'] });
      const local = await startRedis({ tls: named });
      servers.add(local);
      const ca = fs.readFileSync(named.caFile);
      const conn = (host) => ({ host, port: local.port, cluster: false, tls: { ca } });
      const pipe = await openPipe(conn('localhost'), HOST, local.port); // as for a replica or cluster node listed by IP
      expect(await pipe.call(['PING'])).toBe('PONG');
      pipe.close();
      await expect(openPipe(conn(HOST), HOST, local.port)).rejects.toThrow(
        `cannot connect to ${HOST}:${local.port}: TLS certificate not trusted`,
      );
    },
    SLOW,
  );
});

describe('TLS cluster with an ACL user', () => {
  it(
    'producer --cluster --user --password over TLS, then consumer --cluster from the replicas (user and password in the URL); every node sampled',
    async () => {
      const p = await produce({
        port: tlsClu.port,
        cluster: true,
        url: tlsUrl(tlsClu),
        q: 2000,
        extra: ['--tls-ca', certs.caFile, '--user', USER, '--password', PASSWORD],
      });
      withSecrets.push(p);
      expectProduced(p);
      expect(p.manifest.topology).toHaveLength(6);
      expect(p.manifest.target).toBe(`rediss://${USER}:***@${HOST}:${tlsClu.port}`);
      expect(p.manifest.flags.password).toBe('***');

      const c = await consume({
        port: tlsClu.port,
        cluster: true,
        url: tlsUrl(tlsClu, `${USER}:${PASSWORD}@`),
        d: 2,
        warmup: 0,
        extra: ['--tls-ca', certs.caFile],
      });
      withSecrets.push(c);
      expectConsumed(c, 'replica');
      // the CPU sampler reached every master and replica over TLS with the user's credentials
      const cpu = c.summary.cpu.nodes;
      expect(cpu.map((n) => n.role).sort(), JSON.stringify(cpu)).toEqual(['master', 'master', 'master', 'replica', 'replica', 'replica']);
      for (const n of cpu) expect(n.avg, `CPU of ${n.addr}: ${JSON.stringify(cpu)}`).toEqual(expect.any(Number));
    },
    SLOW,
  );

  it(
    '--fetch get (the ioredis cluster client) reads from the replicas over TLS too',
    async () => {
      const c = await consume({
        port: tlsClu.port,
        cluster: true,
        url: tlsUrl(tlsClu),
        d: 2,
        warmup: 0,
        extra: ['--tls-ca', certs.caFile, '--user', USER, '--password', PASSWORD, '--fetch', 'get'],
      });
      withSecrets.push(c);
      expectConsumed(c, 'replica');
    },
    SLOW,
  );
});

describe('ACL user on a plain server', () => {
  it(
    'redis://user:password@host:port for the producer (not --quiet: the markdown and the run line too), --user/--password for the consumer',
    async () => {
      const out = tempDir('rqbench-produce-');
      const args = [
        PRODUCER,
        '--url',
        `redis://${USER}:${PASSWORD}@${HOST}:${plain.port}`,
        '-q',
        '2000',
        '-d',
        '2',
        '--warmup',
        '0',
        '--ttl',
        '30',
        '--out',
        out,
      ];
      const res = await runNode(args);
      const { dir } = readRun(out, '');
      const p = { ...res, args, out, summary: dir ? JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8')) : null };
      withSecrets.push(p);
      expectProduced(p);
      expect(p.stdout).toContain(`redis://${USER}:***@${HOST}:${plain.port}`); // the summary names its target, masked
      expect(p.stderr).toContain('run directory:');
      const c = await consume({ port: plain.port, d: 2, warmup: 0, extra: ['--user', USER, '--password', PASSWORD] });
      withSecrets.push(c);
      expectConsumed(c, 'master');
      expect(c.summary.totals.items, describeConsumer(c)).toBeGreaterThan(0);
    },
    SLOW,
  );

  it(
    'a wrong password fails at once with one line naming host:port and the user, never the password',
    async () => {
      const runs = await Promise.all([
        produce({ port: plain.port, q: 2000, extra: ['--user', USER, '--password', WRONG] }),
        consume({ port: tlsClu.port, cluster: true, url: tlsUrl(tlsClu, `${USER}:${WRONG}@`), d: 2, extra: ['--tls-ca', certs.caFile] }),
      ]);
      withSecrets.push(...runs);
      expectOneLineFailure(runs[0], plain.port, new RegExp(`cannot authenticate to .* as ${USER}: WRONGPASS`));
      expectOneLineFailure(runs[1], tlsClu.port, /WRONGPASS/);
    },
    SLOW,
  );
});

describe('no secret anywhere', () => {
  it('the password is in no file of any run directory, and in nothing a run printed', () => {
    for (const r of withSecrets) {
      const files = listTree(r.out)
        .map((f) => path.join(r.out, f))
        .filter((f) => fs.statSync(f).isFile());
      for (const file of files) {
        const text = fs.readFileSync(file, 'latin1');
        for (const secret of [PASSWORD, WRONG]) expect(text.includes(secret), `${secret} in ${file}`).toBe(false);
      }
      for (const secret of [PASSWORD, WRONG]) {
        expect(r.stdout.includes(secret), `${secret} on stdout of ${r.args.join(' ')}`).toBe(false);
        expect(r.stderr.includes(secret), `${secret} on stderr of ${r.args.join(' ')}`).toBe(false);
      }
    }
    expect(withSecrets.length, 'every run above ran').toBe(7);
    // the successful runs did write their files (the grep above saw them)
    const written = withSecrets.filter((r) => r.code === 0).map((r) => listTree(r.out).map((f) => path.basename(f)));
    for (const names of written)
      expect(names).toEqual(expect.arrayContaining(['manifest.json', 'summary.json', 'summary.md', 'timeline.csv']));
  });
});
