// Failures are never silent, queue side: dead, hung and frozen endpoints end a run within its
// bound in one line naming the endpoint; exit codes tell the truth (0, 1, 2, 130, 143); --out is
// checked before anything connects; a full disk stops the run in one line; E2E is measured from
// the intended send; malformed updates are refused (publisher) or counted (consumer); the
// summary's figures cover the seconds it says. Real servers only: fauxqs (in this process, or
// as `rqbench local sqs` when it must be frozen) and the Pub/Sub emulator, all on 127.0.0.1.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateQueueCommand, GetQueueAttributesCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { openSqs } from '../../src/transports/sqs.js';
import { awsClientConfig } from '../../src/transports/aws.js';
import { largestAttributes } from '../../src/workloads/queue-updates/message.js';
import { queueDriver } from '../../src/transports/queue-drivers.js';
import { CALL_TIMEOUT_MS, CLOSE_MS, DRAIN_MS, UNREACHABLE_MS } from '../../src/transports/bounds.js';
import { OVERRUN_MS, tcpProbe } from '../../src/transports/pubsub.js';
import { readTimeline } from '../../src/record/timeline.js';
import { ROOT, describeRun, freePort, readRun, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { describePubsub } from '../helpers/emulators.js';
import { seedScript } from '../helpers/in-process.js';

const SLOW = { timeout: 90_000 };
/** Node and an SDK loading, on a busy machine: the slack every elapsed-time bound below allows. */
const START_MS = 4000;
/** The line a queue run writes (unless --quiet) once its SDK is loaded, before the service's first call. */
const CONTACTING = /^contacting .* \(no answer within \d+ s ends the run\)$/m;
/**
 * From that line to the exit: the call timeout, what the Pub/Sub client may overrun it by before
 * rqbench stops waiting (pubsub.js OVERRUN_MS), then closing the SDK, which bounds.js gives
 * CLOSE_MS, and leaving (half a second: the process's own end). The slack was 1.5 s in all, less
 * than the close's own bound: a CI run beside four other workers took 7,756 ms against 7,500.
 */
const EXIT_MS = CALL_TIMEOUT_MS + OVERRUN_MS + CLOSE_MS + 500;
/**
 * From a freeze in a 3 s run's first second to the exit: the run's last 2 s, the drain, the close,
 * and leaving. Timed from the freeze, not the start: Node, the SDK and the queue's creation took
 * more than START_MS on a busy host, and none of that is the frozen service's time.
 */
const AFTER_FREEZE_MS = 2000 + DRAIN_MS + CLOSE_MS + 1000;
/** What must never be in a one-line error. */
const STACK = /\n\s+at |Previous errors|Unhandled/;

let sqs;
let deadPort;
beforeAll(async () => {
  sqs = await startSqs();
  deadPort = await freePort();
});
afterAll(async () => {
  await sqs?.stop();
  removeTempDirs();
});

/**
 * Starts `node <script> <args…> --out <fresh dir>`; `done` resolves with what it printed and how it ended.
 * @param {string} script
 * @param {string[]} args
 */
function start(script, args, { timeoutMs = 80_000, out = tempDir('rqbench-faults-') } = {}) {
  const started = Date.now();
  const child = spawn(process.execPath, [script, ...args, '--out', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  /** when the run said it was contacting the service: its SDK loaded, the service's time begins */
  let contacting = NaN;
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    if (Number.isNaN(contacting) && CONTACTING.test(stderr)) contacting = Date.now();
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const done = new Promise((resolve) =>
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      const now = Date.now();
      resolve({
        code,
        signal,
        stdout,
        stderr,
        ms: now - started,
        endedAt: now,
        sinceContactMs: now - contacting,
        out,
        ...readRun(out, stdout),
      });
    }),
  );
  const until = (re) =>
    new Promise((resolve, reject) => {
      const poll = setInterval(() => {
        if (re.test(stderr)) {
          clearInterval(poll);
          resolve(undefined);
        }
        if (child.exitCode !== null || child.signalCode !== null) {
          clearInterval(poll);
          reject(new Error(`exited before ${re}: ${stderr}`));
        }
      }, 20);
    });
  return { child, done, until, out };
}

const run = (script, args, opts) => start(script, args, opts).done;
const lines = (s) =>
  s
    .split(/[\r\n]+/)
    .map((l) => l.trim())
    .filter(Boolean);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A loopback server that accepts connections and never answers: an endpoint that hangs. */
async function hungServer() {
  const sockets = new Set();
  const srv = net.createServer((s) => {
    sockets.add(s);
    s.on('error', () => {});
  });
  await new Promise((r) => srv.listen({ host: '127.0.0.1', port: 0 }, r));
  return {
    port: /** @type {net.AddressInfo} */ (srv.address()).port,
    close: () => {
      for (const s of sockets) s.destroy();
      srv.close();
    },
  };
}

/** `rqbench local sqs` as a child process of this test: an SQS/SNS endpoint that can be frozen (SIGSTOP). */
async function sqsChild() {
  const child = spawn(process.execPath, ['src/cli.js', 'local', 'sqs'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const endpoint = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no endpoint: ${text}`)), 20_000);
    child.stdout.on('data', (d) => {
      text += d;
      const m = /endpoint: (http:\/\/127\.0\.0\.1:\d+)/.exec(text);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    });
  });
  return {
    endpoint,
    freeze: () => child.kill('SIGSTOP'),
    thaw: () => child.kill('SIGCONT'),
    stop: () =>
      new Promise((r) => {
        child.kill('SIGCONT');
        child.once('close', r);
        child.kill('SIGKILL');
      }),
  };
}

/** The one line a run that could not reach its endpoint ends with. */
function expectOneLine(r, re) {
  const errs = lines(r.stderr).filter((l) => !/^\[\d+s\]|^run directory:/.test(l) && !CONTACTING.test(l));
  expect(errs, describeRun(r)).toHaveLength(1);
  expect(errs[0]).toMatch(re);
  expect(r.stderr).not.toMatch(STACK);
}

describe('an endpoint nobody listens on or that never answers: one line naming it, exit 1, within the bound', () => {
  let hung;
  beforeAll(async () => {
    hung = await hungServer();
  });
  afterAll(() => hung?.close());

  const cases = [
    [
      'SQS consumer, refused',
      'src/consumer.js',
      () => ['--target', 'sqs', '--endpoint', `http://127.0.0.1:${deadPort}`, '-d', '30'],
      () => `SQS at http://127.0.0.1:${deadPort}`,
      /ECONNREFUSED/,
    ],
    [
      'SNS publisher, refused',
      'src/producer.js',
      () => [
        '--target',
        'sns',
        '--endpoint',
        `http://127.0.0.1:${deadPort}`,
        '--topic',
        'arn:aws:sns:us-east-1:000000000000:t',
        '-d',
        '30',
      ],
      () => `SNS at http://127.0.0.1:${deadPort}`,
      /ECONNREFUSED/,
    ],
    [
      'SQS consumer, hung',
      'src/consumer.js',
      () => ['--target', 'sqs', '--endpoint', `http://127.0.0.1:${hung.port}`, '-d', '30'],
      () => `SQS at http://127.0.0.1:${hung.port}`,
      /no answer within 5 s/,
    ],
    [
      'SQS publisher, hung',
      'src/producer.js',
      () => [
        '--target',
        'sqs',
        '--endpoint',
        `http://127.0.0.1:${hung.port}`,
        '--queue',
        `http://127.0.0.1:${hung.port}/000000000000/q`,
        '-d',
        '30',
      ],
      () => `SQS at http://127.0.0.1:${hung.port}`,
      /no answer within 5 s/,
    ],
    // the Pub/Sub client retries a refused connection until its deadline; before, the consumer never exited
    [
      'Pub/Sub consumer, refused',
      'src/consumer.js',
      () => ['--target', 'pubsub', '--endpoint', `127.0.0.1:${deadPort}`, '-d', '30'],
      () => `Pub/Sub at 127.0.0.1:${deadPort}`,
      /no answer within 5 s.*ECONNREFUSED/,
    ],
    [
      'Pub/Sub publisher, hung',
      'src/producer.js',
      () => ['--target', 'pubsub', '--endpoint', `127.0.0.1:${hung.port}`, '-d', '30'],
      () => `Pub/Sub at 127.0.0.1:${hung.port}`,
      /no answer within 5 s/,
    ],
  ];
  for (const [what, script, args, where, why] of cases) {
    it(what, SLOW, async () => {
      const r = await run(script, args());
      expect(r.code, describeRun(r)).toBe(1);
      expectOneLine(r, new RegExp(`^\\S+: cannot open ${where().replace(/[./]/g, '\\$&')}: .*${why.source}`));
      expect(r.stderr, 'it said what it was waiting on').toMatch(
        new RegExp(`^contacting ${where().replace(/[./]/g, '\\$&')} \\(no answer within ${CALL_TIMEOUT_MS / 1000} s`, 'm'),
      );
      // nothing measured, nothing written: the run directory comes after the target is open
      expect(fs.readdirSync(r.out)).toEqual([]);
      // timed from that line, so a slow start (Node and the SDK loading on a busy machine) is not the service's time
      expect(r.sinceContactMs).toBeLessThan(EXIT_MS);
      if (/hung/.test(what)) expect(r.ms).toBeGreaterThanOrEqual(CALL_TIMEOUT_MS);
    });
  }
});

describe('what a client that keeps retrying does not say', () => {
  it('one TCP connect names the cause: refused, or a port that accepts and a service that does not answer', async () => {
    expect(await tcpProbe(`127.0.0.1:${deadPort}`)).toBe(`connect ECONNREFUSED 127.0.0.1:${deadPort}`);
    const server = net.createServer((s) => s.destroy()).listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
    try {
      expect(await tcpProbe(`127.0.0.1:${port}`)).toBe(`a TCP connection to 127.0.0.1:${port} opens, but the service does not answer`);
    } finally {
      server.close();
    }
  });
});

describe('an SQS/SNS endpoint that stops answering mid-run (the emulator frozen with SIGSTOP)', () => {
  let local;
  beforeAll(async () => {
    local = await sqsChild();
  }, 30_000);
  afterAll(() => local?.stop());

  it('the publisher ends within --duration + drain + close, the calls left unanswered counted, exit 1', SLOW, async () => {
    const p = start('src/producer.js', [
      '--target',
      'sqs',
      '--endpoint',
      local.endpoint,
      '--queue',
      'frozen-pub',
      '--create',
      '--rate',
      '20',
      '--batch-size',
      '10',
      '-d',
      '3',
      '--json',
    ]);
    await p.until(/\[1s\]/);
    local.freeze();
    const frozenAt = Date.now();
    let r;
    try {
      r = await p.done;
    } finally {
      local.thaw();
    }
    expect(r.code, describeRun(r)).toBe(1);
    const m = r.summary.messages;
    expect(m.unanswered).toBeGreaterThan(0);
    // nothing silently dropped: every message sent is acknowledged, failed or unanswered
    expect(m.acked + m.failed + m.unanswered).toBe(m.sent);
    expect(m.planned).toBe(60);
    expect(r.summary.window).toEqual({ fromS: 0, toS: 3, seconds: 3 });
    // the run's rest + 5 s drain at most + closing; before, each call waited on its socket for minutes
    expect(r.endedAt - frozenAt).toBeLessThan(AFTER_FREEZE_MS);
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toMatch(/NOT ALL ACKNOWLEDGED: .*\d+ unanswered/);
  });

  it('the consumer stops after the bound with one line naming the endpoint, exit 1, the summary written', SLOW, async () => {
    const c = start('src/consumer.js', [
      '--target',
      'sqs',
      '--endpoint',
      local.endpoint,
      '--queue',
      'frozen-con',
      '--create',
      '--wait-seconds',
      '1',
      '-d',
      '60',
      '--json',
    ]);
    await c.until(/\[2s\]/);
    const frozenAt = Date.now();
    local.freeze();
    let r;
    try {
      r = await c.done;
    } finally {
      local.thaw();
    }
    expect(r.code, describeRun(r)).toBe(1);
    expectOneLine(
      r,
      new RegExp(
        `consumer\\.js: cannot reach SQS at ${local.endpoint.replace(/[./]/g, '\\$&')}: nothing answered for 1\\d\\.\\d s .*the run stopped, what it measured is in `,
      ),
    );
    const stoppedAfter = Date.now() - frozenAt;
    expect(stoppedAfter).toBeGreaterThanOrEqual(UNREACHABLE_MS - 2000);
    expect(stoppedAfter).toBeLessThan(UNREACHABLE_MS + CALL_TIMEOUT_MS + DRAIN_MS + CLOSE_MS);
    // the summary is printed and written, marked with why the run stopped
    expect(r.summary.stoppedBy).toBe('unreachable');
    expect(JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8')).stoppedBy).toBe('unreachable');
    expect(r.summary.window.toS).toBeLessThan(60);
  });
});

describePubsub('a Pub/Sub emulator that stops answering mid-run (frozen with SIGSTOP)', () => {
  let ps;
  beforeAll(async () => {
    ps = await startPubsub();
  }, 60_000);
  afterAll(async () => {
    if (ps) process.kill(ps.pid, 'SIGCONT');
    await ps?.stop();
  });
  const freeze = () => process.kill(ps.pid, 'SIGSTOP');
  const thaw = () => process.kill(ps.pid, 'SIGCONT');

  it("the publisher no longer waits out the client's 60 s: it ends within --duration + drain + close, exit 1", SLOW, async () => {
    const t = ['--target', 'pubsub', '--endpoint', ps.endpoint, '--topic', 'frozen-pub', '--create'];
    const p = start('src/producer.js', [...t, '--rate', '20', '--batch-size', '10', '-d', '3', '--json']);
    await p.until(/\[1s\]/);
    freeze();
    const frozenAt = Date.now();
    let r;
    try {
      r = await p.done;
    } finally {
      thaw();
    }
    expect(r.code, describeRun(r)).toBe(1);
    const m = r.summary.messages;
    expect(m.unanswered).toBeGreaterThan(0);
    expect(m.acked + m.failed + m.unanswered).toBe(m.sent);
    expect(r.endedAt - frozenAt).toBeLessThan(AFTER_FREEZE_MS);
  });

  it('the consumer stops after the bound with one line naming the endpoint, exit 1', SLOW, async () => {
    const t = ['--target', 'pubsub', '--endpoint', ps.endpoint, '--topic', 'frozen-con', '--subscription', 'frozen-con', '--create'];
    const c = start('src/consumer.js', [...t, '-d', '60', '--json']);
    await c.until(/\[2s\]/);
    freeze();
    let r;
    try {
      r = await c.done;
    } finally {
      thaw();
    }
    expect(r.code, describeRun(r)).toBe(1);
    expectOneLine(
      r,
      new RegExp(`consumer\\.js: cannot reach Pub/Sub at ${ps.endpoint.replace(/[./]/g, '\\$&')}: nothing answered for 1\\d\\.\\d s`),
    );
    expect(r.summary.stoppedBy).toBe('unreachable');
    expect(r.ms).toBeLessThan(2000 + UNREACHABLE_MS + CALL_TIMEOUT_MS + DRAIN_MS + CLOSE_MS + START_MS);
  });

  it('a subscription that does not exist (no --create) is one line, exit 1, nothing written', SLOW, async () => {
    const r = await run('src/consumer.js', [
      '--target',
      'pubsub',
      '--endpoint',
      ps.endpoint,
      '--subscription',
      'never-made',
      '-d',
      '30',
      '--quiet',
    ]);
    expect(r.code, describeRun(r)).toBe(1);
    expectOneLine(r, /cannot open Pub\/Sub at .*: .*subscription never-made does not exist \(--create makes it\)/);
    expect(fs.readdirSync(r.out)).toEqual([]);
  });
});

describe('signals: the summary written and marked, exit 130 / 143; a second Ctrl-C leaves at once', () => {
  it('SIGINT ends a publisher with exit 130, its figures cover the seconds before the stop', SLOW, async () => {
    const p = start('src/producer.js', [
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'sigint',
      '--create',
      '--rate',
      '20',
      '--batch-size',
      '10',
      '-d',
      '0',
      '--json',
    ]);
    await p.until(/\[3s\]/);
    await sleep(500);
    p.child.kill('SIGINT');
    const r = await p.done;
    expect(r.code, describeRun(r)).toBe(130);
    const s = r.summary;
    expect(s.interrupted).toBe('SIGINT');
    expect(JSON.parse(fs.readFileSync(path.join(r.dir, 'summary.json'), 'utf8')).interrupted).toBe('SIGINT');
    // stopped in second 3: seconds 0..2 are the window, the stop's second and the drain are only in the files
    expect(s.window).toEqual({ fromS: 0, toS: 3, seconds: 3 });
    expect(s.publish.intended.count).toBe(s.inWindow.acked);
    expect(s.achievedMessagesPerSec).toBeCloseTo(s.inWindow.acked / 3, 6);
    const rows = readTimeline(path.join(r.dir, 'timeline.csv')).rows;
    expect(rows.length).toBeGreaterThan(3);
    expect(rows.filter((row) => row.second < 3).reduce((n, row) => n + row.acked, 0)).toBe(s.inWindow.acked);
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toContain(
      'Rates, latency and counts cover seconds 0 to 3 of the run (3.0 s). The run was interrupted (SIGINT)',
    );
    expect(s.messages.acked).toBeGreaterThan(s.inWindow.acked);
  });

  it('SIGTERM ends a consumer with exit 143, the summary still written', SLOW, async () => {
    const c = start('src/consumer.js', [
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'sigterm',
      '--create',
      '--wait-seconds',
      '1',
      '-d',
      '0',
      '--json',
    ]);
    await c.until(/\[2s\]/);
    c.child.kill('SIGTERM');
    const r = await c.done;
    expect(r.code, describeRun(r)).toBe(143);
    expect(r.summary.interrupted).toBe('SIGTERM');
    expect(fs.existsSync(path.join(r.dir, 'summary.md'))).toBe(true);
  });

  it('a second SIGINT leaves at once, during a drain that would take seconds, with a summary file still there', SLOW, async () => {
    const local = await sqsChild();
    try {
      const p = start('src/producer.js', [
        '--target',
        'sqs',
        '--endpoint',
        local.endpoint,
        '--queue',
        'twice',
        '--create',
        '--rate',
        '20',
        '--batch-size',
        '10',
        '-d',
        '0',
      ]);
      await p.until(/\[1s\]/);
      local.freeze();
      await sleep(300);
      p.child.kill('SIGINT'); // the drain now waits up to 5 s for the calls the frozen endpoint holds
      await sleep(300);
      const second = Date.now();
      p.child.kill('SIGINT');
      const r = await p.done;
      expect(r.code, describeRun(r)).toBe(130);
      expect(Date.now() - second).toBeLessThan(1000);
      const dir = path.join(r.out, fs.readdirSync(r.out)[0]);
      expect(JSON.parse(fs.readFileSync(path.join(dir, 'summary.json'), 'utf8'))).toMatchObject({
        incomplete: true,
        interrupted: 'SIGINT',
      });
    } finally {
      await local.stop();
    }
  });
});

describe('a publisher whose messages the service refuses', () => {
  it('counts them as failed and exits 1; the service answers, so the run goes on to its end', SLOW, async () => {
    // a queue that takes messages of 1 KiB at most: every 30-update message (about 1.3 KB) is refused
    const client = new SQSClient(awsClientConfig({ endpoint: sqs.endpoint }));
    await client.send(new CreateQueueCommand({ QueueName: 'refuses', Attributes: { MaximumMessageSize: '1024' } }));
    client.destroy();
    const r = await run('src/producer.js', [
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'refuses',
      '--rate',
      '10',
      '--batch-size',
      '30',
      '-d',
      '2',
      '--json',
    ]);
    expect(r.code, describeRun(r)).toBe(1);
    expect(r.summary.messages).toMatchObject({ sent: 20, acked: 0, failed: 20, unanswered: 0 });
    expect(r.summary.stoppedBy).toBe(null);
    expect(r.summary.lastError).toMatch(/shorter than 1024 bytes/);
  });
});

describe('--out is checked before anything connects or is created', () => {
  it('an --out that is a file: exit 2, one line, no queue made, nothing written', SLOW, async () => {
    const file = path.join(tempDir('rqbench-faults-out-'), 'a-file');
    fs.writeFileSync(file, '');
    // in this process: the emulator, also in this process, is what shows no queue was made
    for (const [script, queue] of [
      ['consumer.js', 'out-check-c'],
      ['producer.js', 'out-check-p'],
    ]) {
      const { code, stderr } = await seedScript(script, [
        '--target',
        'sqs',
        '--endpoint',
        sqs.endpoint,
        '--queue',
        queue,
        '--create',
        '-d',
        '1',
        '--out',
        path.join(file, 'runs'),
      ]);
      expect(code, stderr).toBe(2);
      expect(lines(stderr)).toHaveLength(1);
      expect(stderr).toMatch(/--out must be a directory rqbench can write \(.*a-file" is not a directory\)/);
      // --create would have made the queue had the target been opened first
      const client = new SQSClient(awsClientConfig({ endpoint: sqs.endpoint }));
      const { QueueUrls = [] } = await client.send(new ListQueuesCommand({ QueueNamePrefix: queue }));
      client.destroy();
      expect(QueueUrls).toEqual([]);
    }
    expect(fs.readFileSync(file, 'utf8')).toBe('');
  });
});

/** Mounts a tmpfs of 64 KiB at a fresh directory; null (and why, for the test's name) when not allowed. */
function tmpfs() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stdio: 'ignore' });
    return { dir };
  } catch {
    fs.rmdirSync(dir);
    return { dir: null, why: 'this machine does not allow mounting a tmpfs (needs root)' };
  }
}
const probe = tmpfs();
if (probe.dir) {
  execFileSync('umount', [probe.dir]);
  fs.rmdirSync(probe.dir);
}
if (probe.why) process.stderr.write(`\nSKIPPED "a full disk": ${probe.why}\n`);

describe.skipIf(!!probe.why)(
  `a full disk: the run stops in one line, exit 1, the summary still printed${probe.why ? ` (SKIPPED: ${probe.why})` : ''}`,
  () => {
    const mounted = [];
    afterAll(() => {
      for (const dir of mounted) {
        execFileSync('umount', [dir]);
        fs.rmdirSync(dir);
      }
    });

    /** A tmpfs with only `pages` 4 KiB pages left free (a filler file takes the rest). */
    function fullDisk(pages) {
      const { dir } = tmpfs();
      mounted.push(dir);
      const free = fs.statfsSync(dir);
      fs.writeFileSync(path.join(dir, 'filler'), Buffer.alloc((free.bavail - pages) * free.bsize));
      expect(fs.statfsSync(dir).bavail).toBe(pages);
      const out = path.join(dir, 'runs');
      fs.mkdirSync(out);
      return out;
    }

    const publish = (out, queue, d) =>
      run(
        'src/producer.js',
        [
          '--target',
          'sqs',
          '--endpoint',
          sqs.endpoint,
          '--queue',
          queue,
          '--create',
          '--rate',
          '20',
          '--batch-size',
          '10',
          '-d',
          String(d),
          '--json',
        ],
        { out },
      );

    it('mid-run: the first second that cannot be written stops the work', SLOW, async () => {
      // room for manifest.json and timeline.csv, none for the first .hlog
      const out = fullDisk(2);
      const r = await publish(out, 'full-mid', 30);
      expect(r.code, describeRun(r)).toBe(1);
      const dir = path.join(out, fs.readdirSync(out)[0]);
      expectOneLine(
        r,
        new RegExp(
          `^producer\\.js: cannot write the run directory ${dir.replace(/[./]/g, '\\$&')}: no space left on device \\(ENOSPC\\); the run stopped there`,
        ),
      );
      // stopped at once, not after its 30 s; the summary computed is on stdout
      expect(r.ms).toBeLessThan(2000 + DRAIN_MS + START_MS);
      const s = JSON.parse(r.stdout);
      expect(s.stoppedBy).toBe('write');
      expect(s.messages.sent).toBeGreaterThan(0);
      expect(fs.readdirSync(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    });

    it('at the end: summary.json cannot be written, its temp file is removed', SLOW, async () => {
      // room for manifest.json, timeline.csv, publish.hlog and lag.hlog: nothing left for the summary
      const out = fullDisk(4);
      const r = await publish(out, 'full-end', 1);
      expect(r.code, describeRun(r)).toBe(1);
      expectOneLine(
        r,
        /cannot write the run directory .*: no space left on device \(ENOSPC\); its summary \(printed above\) could not be saved: timeline.csv and the .hlog files hold what was written before/,
      );
      const s = JSON.parse(r.stdout);
      expect(s.stoppedBy).toBe(null);
      expect(s.messages).toMatchObject({ acked: 20, failed: 0, unanswered: 0 });
      const dir = path.join(out, fs.readdirSync(out)[0]);
      expect(fs.readdirSync(dir).sort()).toEqual(['lag.hlog', 'manifest.json', 'publish.hlog', 'timeline.csv']);
    });
  },
);

describe('E2E from the intended send (coordinated omission)', () => {
  it('a publisher held up: E2E from time_intended shows the wait, from time_sent it does not', SLOW, async () => {
    const local = await sqsChild();
    try {
      const q = ['--target', 'sqs', '--endpoint', local.endpoint, '--queue', 'held-up'];
      const c = start('src/consumer.js', [...q, '--create', '--wait-seconds', '1', '--until-complete', '-d', '40', '--json']);
      await c.until(/\[1s\]/);
      // one send at a time, so the messages due while the queue is frozen wait in the schedule, unsent
      const p = start('src/producer.js', [...q, '--rate', '20', '--batch-size', '10', '-d', '3', '--concurrency', '1', '--json']);
      await p.until(/\[1s\]/);
      local.freeze();
      await sleep(1000);
      local.thaw();
      const [pr, cr] = [await p.done, await c.done];
      expect(pr.code, describeRun(pr)).toBe(0);
      expect(cr.code, describeRun(cr)).toBe(0);
      const L = cr.summary.latency;
      expect(L.e2e.count).toBe(60);
      expect(L.e2eSent.count).toBe(60);
      expect(cr.summary.counts.e2eFromSent).toBe(0);
      // ~20 messages were due during the second the queue was frozen: up to 1 s late
      expect(L.e2e.p90 - L.e2eSent.p90, JSON.stringify(L)).toBeGreaterThan(400);
      expect(pr.summary.publish.intended.p90 - pr.summary.publish.sent.p90).toBeGreaterThan(400);
      const md = fs.readFileSync(path.join(cr.dir, 'summary.md'), 'utf8');
      expect(md).toMatch(/\| E2E \(time_intended → applied: from the publisher's schedule, corrected\) \| 60 \|/);
      expect(md).toMatch(/\| E2E from the actual send \(time_sent → applied, as the seed measured\) \| 60 \|/);
      expect(readTimeline(path.join(cr.dir, 'timeline.csv')).columns).toEqual(
        expect.arrayContaining(['e2e_p99_ms', 'e2e_sent_p99_ms', 'malformed']),
      );
    } finally {
      await local.stop();
    }
  });

  it('messages of an older publisher (no time_intended): E2E from time_sent, and counted', SLOW, async () => {
    const queue = await openSqs({ endpoint: sqs.endpoint, queue: 'old-publisher', create: true });
    try {
      for (let seq = 1; seq <= 5; seq++) {
        await queue.publish(`k${seq}\tv\n`, {
          time_sent: String(BigInt(Date.now()) * 1_000_000n),
          publisher: 'old',
          seq: String(seq),
          ...(seq === 5 && { final: '1' }),
        });
      }
    } finally {
      queue.close();
    }
    const r = await run('src/consumer.js', [
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'old-publisher',
      '--wait-seconds',
      '1',
      '--until-complete',
      '-d',
      '20',
      '--json',
    ]);
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.summary.counts.e2eFromSent).toBe(5);
    expect(r.summary.latency.e2e.count).toBe(5);
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toContain('5 message(s) without time_intended counted from time_sent');
  });

  it('the attributes a publisher sends are the ones the size check counts, none longer', SLOW, async () => {
    const p = await run('src/producer.js', [
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'attrs',
      '--create',
      '--publisher-id',
      'attr-check',
      '--rate',
      '1',
      '--batch-size',
      '2',
      '-d',
      '1',
      '--json',
    ]);
    expect(p.code, describeRun(p)).toBe(0);
    const queue = await openSqs({ endpoint: sqs.endpoint, queue: 'attrs' });
    const got = [];
    const ac = new AbortController();
    await queue.consume({
      threads: 1,
      waitSeconds: 1,
      signal: ac.signal,
      onMessages: async (msgs) => {
        got.push(...msgs);
        ac.abort();
      },
    });
    queue.close();
    const { attrs, body } = got[0];
    const largest = largestAttributes('attr-check');
    // the run's one message is its last: it carries every attribute there is, final too
    expect(Object.keys(attrs).sort()).toEqual(Object.keys(largest).sort());
    for (const [k, v] of Object.entries(attrs)) expect(v.length, k).toBeLessThanOrEqual(largest[k].length);
    const countedBytes = (target, b, a) => queueDriver(target).limits.countedBytes(b, a);
    for (const target of ['sqs', 'pubsub']) expect(countedBytes(target, body, attrs)).toBeLessThan(countedBytes(target, body, largest));
    // intended at or before the send, both within the run
    expect(BigInt(attrs.time_intended)).toBeLessThanOrEqual(BigInt(attrs.time_sent));
    expect(Number(BigInt(attrs.time_sent) / 1_000_000n)).toBeGreaterThan(Date.now() - 60_000);
  });
});

describe('malformed updates are never "nothing lost"', () => {
  it(
    '--from-folder with a line that is not key<TAB>value: exit 2, one line naming file and line, nothing sent or written',
    SLOW,
    async () => {
      const folder = tempDir('rqbench-faults-deltas-');
      fs.writeFileSync(path.join(folder, 'delta-000001.txt'), 'k1\tv1\nk2\tv2\n');
      fs.writeFileSync(path.join(folder, 'delta-000002.txt'), 'k3\tv3\nk4 v4\n');
      const queue = await openSqs({ endpoint: sqs.endpoint, queue: 'bad-folder', create: true });
      queue.close();
      // in this process: the queue, in the emulator here, is what shows nothing was sent
      const out = tempDir('rqbench-faults-');
      const r = await seedScript('producer.js', [
        '--target',
        'sqs',
        '--endpoint',
        sqs.endpoint,
        '--queue',
        'bad-folder',
        '--from-folder',
        folder,
        '-d',
        '1',
        '--out',
        out,
      ]);
      expect(r.code, describeRun(r)).toBe(2);
      expect(lines(r.stderr)).toEqual([
        `producer.js: --from-folder: ${path.join(folder, 'delta-000002.txt')} line 2 is not key<TAB>value (no tab between key and value)`,
      ]);
      expect(fs.readdirSync(out)).toEqual([]);
      const client = new SQSClient(awsClientConfig({ endpoint: sqs.endpoint }));
      const { QueueUrl } = await openSqs({ endpoint: sqs.endpoint, queue: 'bad-folder' }).then((q) => {
        q.close();
        return { QueueUrl: q.queueUrl };
      });
      const { Attributes } = await client.send(
        new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['ApproximateNumberOfMessages'] }),
      );
      client.destroy();
      expect(Attributes.ApproximateNumberOfMessages).toBe('0');
      // an empty key is refused the same way
      fs.writeFileSync(path.join(folder, 'delta-000002.txt'), 'k3\tv3\n\tv4\n');
      const r2 = await seedScript('producer.js', [
        '--target',
        'sqs',
        '--endpoint',
        sqs.endpoint,
        '--queue',
        'bad-folder',
        '--from-folder',
        folder,
        '-d',
        '1',
        '--out',
        tempDir('rqbench-faults-'),
      ]);
      expect(r2.code).toBe(2);
      expect(r2.stderr).toContain('delta-000002.txt line 2 is not key<TAB>value (an empty key)');
    },
  );

  it('a consumer counts body lines without a tab as malformed, says so instead of "Nothing lost", exit 1', SLOW, async () => {
    const queue = await openSqs({ endpoint: sqs.endpoint, queue: 'malformed', create: true });
    try {
      const now = String(BigInt(Date.now()) * 1_000_000n);
      await queue.publish('k1\tv1\nno tab here\n', { time_intended: now, time_sent: now, publisher: 'bad', seq: '1' });
      await queue.publish('k2\tv2\n', { time_intended: now, time_sent: now, publisher: 'bad', seq: '2', final: '1' });
    } finally {
      queue.close();
    }
    const r = await run('src/consumer.js', [
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'malformed',
      '--wait-seconds',
      '1',
      '--until-complete',
      '-d',
      '20',
      '--json',
    ]);
    expect(r.code, describeRun(r)).toBe(1);
    expect(r.summary.countsAll).toMatchObject({ messages: 2, rows: 2, malformed: 1, malformedMessages: 1 });
    expect(r.summary.nothingLost).toMatchObject({ missing: 0, malformed: 1, ok: false });
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toContain('**MALFORMED: 1 line(s) in 1 message(s) were not key<TAB>value** and were not applied.');
    expect(md).not.toContain('Nothing lost:');
  });
});

describe("the summary's figures cover the seconds it names", () => {
  it('a publisher that ran its duration: rate, latency and counts over seconds 0 to 2, exit 0', SLOW, async () => {
    const r = await run('src/producer.js', [
      '--target',
      'sqs',
      '--endpoint',
      sqs.endpoint,
      '--queue',
      'window',
      '--create',
      '--rate',
      '20',
      '--batch-size',
      '10',
      '-d',
      '2',
      '--json',
    ]);
    expect(r.code, describeRun(r)).toBe(0);
    const s = r.summary;
    expect(s.window).toEqual({ fromS: 0, toS: 2, seconds: 2 });
    expect(s.publish.intended.count).toBe(s.inWindow.acked);
    expect(s.publish.sent.count).toBe(s.inWindow.acked);
    expect(s.achievedMessagesPerSec).toBeCloseTo(s.inWindow.acked / 2, 6);
    expect(s.messages).toMatchObject({ planned: 40, sent: 40, acked: 40, failed: 0, unanswered: 0, notSent: 0 });
    expect(fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8')).toContain(
      'Rates, latency and counts cover seconds 0 to 2 of the run (2.0 s).',
    );
  });
});
