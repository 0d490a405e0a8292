// One rule for secrets, everywhere (issue 38, point 1): a known, distinctive password is given in
// every form rqbench accepts one — `--password=X`, `--password X`, a redis:// URL with and without
// a user, REDIS_PASSWORD, an experiment spec, inside k8s's --flags and after its `--` — to every
// command that takes one, against a real redis-server on 127.0.0.1 with `requirepass X`; and a
// wrong password too. Every run really happens (each is checked to have done what it was asked),
// and then the password must be in nothing it printed, in no file under its --out (every file read
// whole: .json, .md, .csv, .hlog, .html, .svg …) and in nothing its metrics endpoint served.
// Here (e2e) because it runs an experiment and capacity searches; each run is a second or two.
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { CLI, PRODUCER, ROOT, freePort, listTree, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { CONSUMER } from '../helpers/consumer-run.js';
import { rqbench } from '../helpers/in-process.js';

const HOST = '127.0.0.1';
/** The server's password: distinctive, so any occurrence anywhere is this test's. */
const SECRET = 'Zq7s3cr3tPWd9x';
/** A wrong one, given to see the refusal does not quote it either. */
const WRONG = 'Wr0ngPWd4kQ2';
/**
 * A second password of the server's default user, holding the characters that end a URL's user
 * or password (`@`, `:`): a URL may hold it %-escaped or as typed (the last `@` ends it).
 */
const PIECES = ['h3adPW', 'm1dPW', 't41lPW'];
const SPECIAL = `${PIECES[0]}@${PIECES[1]}:${PIECES[2]}`;
/** What must appear nowhere: each password, and each piece of the special one (half a password is a leak). */
const SECRETS = [SECRET, WRONG, ...PIECES];
const SLOW = 60_000;
const LONG = { timeout: SLOW };

/** @type {import('../../src/local/local-redis.js').LocalRedis} */ let redis;
/** @type {import('../../src/local/sqs-emulator.js').LocalSqs} */ let sqs;

beforeAll(async () => {
  [redis, sqs] = await Promise.all([startRedis({ password: SECRET }), startSqs()]);
  const admin = new Redis({ host: HOST, port: redis.port, password: SECRET, lazyConnect: true });
  try {
    await admin.connect();
    await admin.call('ACL', 'SETUSER', 'default', `>${SPECIAL}`);
  } finally {
    admin.disconnect();
  }
}, SLOW);

afterAll(async () => {
  await Promise.all([redis?.stop(), sqs?.stop()]);
  removeTempDirs();
}, SLOW);

/**
 * Every form a password can take on a command line or in the environment, for a command that
 * reaches Redis with the connection flags (`flag` names the flag its URL goes in, `db` ends it).
 * @param {string} password
 * @param {string} [flag]
 * @param {string} [db] e.g. '/3'
 * @returns {Array<{ form: string, args: string[], env?: Record<string, string> }>}
 */
function forms(password, flag = '--url', db = '') {
  const url = (auth) => `redis://${auth}${HOST}:${redis.port}${db}`;
  return [
    { form: '--password=X', args: [flag, url(''), `--password=${password}`] },
    { form: '--password X', args: [flag, url(''), '--password', password] },
    { form: 'redis://:X@', args: [flag, url(`:${password}@`)] },
    { form: 'redis://user:X@', args: [flag, url(`default:${password}@`)] },
    { form: 'REDIS_PASSWORD', args: [flag, url('')], env: { REDIS_PASSWORD: password } },
  ];
}

/**
 * Every place a secret could surface: the text printed, every file under the given directories
 * (read whole, as bytes: a binary .hlog or .png too) and any text served.
 * @param {{ stdout: string, stderr: string }} r
 * @param {string[]} dirs
 * @param {string[]} [served]
 * @returns {string[]} where each secret was found
 */
function leaks(r, dirs, served = []) {
  const found = [];
  for (const s of SECRETS) {
    if (r.stdout.includes(s)) found.push(`${s} on stdout`);
    if (r.stderr.includes(s)) found.push(`${s} on stderr`);
    served.forEach((t, i) => t.includes(s) && found.push(`${s} in served text ${i}`));
  }
  for (const dir of dirs) {
    for (const rel of listTree(dir)) {
      const file = path.join(dir, rel);
      if (!fs.statSync(file).isFile()) continue;
      const bytes = fs.readFileSync(file);
      for (const s of SECRETS) if (bytes.includes(s) || bytes.includes(Buffer.from(s, 'utf16le'))) found.push(`${s} in ${file}`);
    }
  }
  return found;
}

/** What a run printed, and its exit, for assertion messages. */
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800) || '(empty)'}; stdout: ${r.stdout.slice(0, 300)}`;

/**
 * `node <args…>` (a CLI of this project) as a real process, with --out pointing at a fresh directory.
 * @param {string[]} args
 * @param {{ env?: Record<string, string>, timeoutMs?: number }} [o]
 */
async function runOut(args, o = {}) {
  const out = tempDir('rqbench-secrets-');
  const r = await runNode([...args, '--out', out], { timeoutMs: o.timeoutMs ?? SLOW, env: o.env });
  return {
    ...r,
    out,
    runs: listTree(out)
      .filter((f) => fs.existsSync(path.join(out, f, 'summary.json')))
      .map((f) => path.join(out, f)),
  };
}

/**
 * `node <args…>` with --metrics-port: the endpoint is read while the run lingers after its summary.
 * @param {string[]} args
 * @param {Record<string, string>} [env]
 */
async function runScraped(args, env) {
  const port = await freePort();
  const out = tempDir('rqbench-secrets-metrics-');
  const child = spawn(process.execPath, [...args, '--out', out, '--metrics-port', String(port), '--metrics-linger', '3'], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, REDIS_PASSWORD: '', ...env },
  });
  let stdout = '';
  let stderr = '';
  /** @type {string[]} */
  const served = [];
  let scraping = null;
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
    if (!scraping && /the final values stay on/.test(stderr)) {
      scraping = fetch(`http://${HOST}:${port}/metrics`)
        .then((res) => res.text())
        .then((t) => served.push(t));
    }
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), SLOW);
  const code = await new Promise((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  await scraping;
  return { code, stdout, stderr, out, served };
}

/** The run succeeded and wrote a run directory with a summary. */
function expectRan(r) {
  expect(r.code, why(r)).toBe(0);
  expect(r.runs.length, why(r)).toBeGreaterThan(0);
}

describe('a password in every form, to every command that takes one: nowhere in what it prints, writes or serves', () => {
  /** A producer run per form (the run directories report, compare and chart read afterwards). */
  const produced = [];

  it('produce (rqbench produce and node src/producer.js), with its metrics endpoint', LONG, async () => {
    const runs = await Promise.all(
      forms(SECRET).map(({ form, args, env }, i) =>
        runOut([...(i % 2 ? [CLI, 'produce'] : [PRODUCER]), ...args, '-t', '1', '-q', '500', '-d', '2', '--warmup', '0', '--ttl', '300'], {
          env,
        }).then((r) => ({ ...r, form })),
      ),
    );
    for (const r of runs) {
      expectRan(r);
      expect(leaks(r, [r.out]), r.form).toEqual([]);
      produced.push(r.runs[0]);
    }
    // the hidden --metrics-label a runner passes: a label quoting a URL is served masked
    const scraped = await runScraped([
      PRODUCER,
      ...forms(SECRET)[2].args,
      ...['-t', '1', '-q', '500', '-d', '1', '--warmup', '0', '--ttl', '300'],
      ...['--metrics-label', `target=redis://:${SECRET}@${HOST}:${redis.port}`],
    ]);
    expect(scraped.code, why(scraped)).toBe(0);
    expect(scraped.served.join(''), 'the endpoint served the run').toMatch(/rqbench_items_acknowledged_total\{/);
    expect(leaks(scraped, [scraped.out], scraped.served)).toEqual([]);
  });

  it('consume (rqbench consume and node src/consumer.js), with its metrics endpoint', LONG, async () => {
    const runs = await Promise.all(
      forms(SECRET).map(({ form, args, env }, i) =>
        // the summary as JSON on stdout here, as markdown from the producers above
        runOut([...(i % 2 ? [CLI, 'consume'] : [CONSUMER]), ...args, '-d', '1', '--warmup', '0', '--ttl', '300', '--json'], { env }).then(
          (r) => ({
            ...r,
            form,
          }),
        ),
      ),
    );
    for (const r of runs) {
      expectRan(r);
      expect(leaks(r, [r.out]), r.form).toEqual([]);
    }
    const scraped = await runScraped([CONSUMER, ...forms(SECRET)[3].args, '-d', '1', '--warmup', '0', '--ttl', '300']);
    expect(scraped.code, why(scraped)).toBe(0);
    expect(scraped.served.join(''), 'the endpoint served the run').toMatch(/\{[^}]*run_id=/);
    expect(leaks(scraped, [scraped.out], scraped.served)).toEqual([]);
  });

  it('ops and load', LONG, async () => {
    const file = path.join(tempDir('rqbench-secrets-delta-'), 'delta.tsv');
    expect((await rqbench(['load', '--generate', file, '--records', '2000', '--quiet'])).code).toBe(0);
    // each load on a database of its own: it wants an empty one
    const runs = await Promise.all([
      ...forms(SECRET).map(({ form, args, env }) =>
        runOut([CLI, 'ops', ...args, '-d', '0.3', '--warmup', '0', '--json'], { env }).then((r) => ({ ...r, form: `ops ${form}` })),
      ),
      ...forms(SECRET).map(({ form, env }, i) =>
        runOut(
          [CLI, 'load', file, ...forms(SECRET, '--url', `/${i + 1}`)[i].args, '--reader-threads', '1', '--connections', '1', '--ttl', '60'],
          {
            env,
          },
        ).then((r) => ({ ...r, form: `load ${form}` })),
      ),
    ]);
    for (const r of runs) {
      expect(r.code, `${r.form}: ${why(r)}`).toBe(0);
      expect(listTree(r.out).length, `${r.form} wrote its run directory`).toBeGreaterThan(0);
      expect(leaks(r, [r.out]), r.form).toEqual([]);
    }
  });

  // five searches at once, each spawning its steps' writers (and one a consumer): the slowest part of this file on a busy host
  it('capacity (and the consumer it runs beside each step)', { timeout: 2 * SLOW }, async () => {
    // one step at its ceiling, whatever the host's latency: the search is the vehicle here, not what is tested
    const search = [
      '-t',
      '1',
      '--start-rate',
      '500',
      '--max-rate',
      '500',
      '--step-seconds',
      '2',
      '--step-warmup',
      '0',
      '--confirm',
      '0',
      '--slo-p99',
      '5000',
    ];
    const runs = await Promise.all(
      forms(SECRET).map(({ form, args, env }, i) =>
        runOut([CLI, 'capacity', ...args, ...search, ...(i === 0 ? ['--consumer=--limit 100'] : []), ...(i % 2 ? ['--json'] : [])], {
          env,
        }).then((r) => ({
          ...r,
          form,
        })),
      ),
    );
    for (const r of runs) {
      expect(r.code, `${r.form}: ${why(r)}`).toBe(0);
      expect(
        listTree(r.out).some((f) => f.endsWith('capacity.json')),
        `${r.form} wrote capacity.json`,
      ).toBe(true);
      expect(leaks(r, [r.out]), r.form).toEqual([]);
    }
  });

  it('a queue consumer with --cache redis (--cache-url)', LONG, async () => {
    const runs = await Promise.all(
      forms(SECRET, '--cache-url').map(async ({ form, args, env }, i) => {
        const queue = ['--target', 'sqs', '--endpoint', sqs.endpoint, '--queue', `secrets-${i}`];
        const p = await runOut([PRODUCER, ...queue, '--create', '--rate', '10', '--batch-size', '10', '-d', '1']);
        expect(p.code, why(p)).toBe(0);
        const c = await runOut([CONSUMER, ...queue, '--cache', 'redis', ...args, '--wait-seconds', '1', '--until-complete', '-d', '10'], {
          env,
        });
        return { ...c, form };
      }),
    );
    for (const r of runs) {
      expectRan(r);
      expect(JSON.stringify(JSON.parse(fs.readFileSync(path.join(r.runs[0], 'summary.json'), 'utf8')).nothingLost)).toMatch(/"ok":true/);
      expect(leaks(r, [r.out]), r.form).toEqual([]);
    }
  });

  it('experiment run: the spec names the server, REDIS_PASSWORD holds its password', LONG, async () => {
    const dir = path.join(tempDir('rqbench-secrets-exp-'), 'exp');
    fs.mkdirSync(dir);
    fs.writeFileSync(
      path.join(dir, 'experiment.yaml'),
      `title: Secrets (test)\nseed: "002 § x"\ntopology: { url: "redis://${HOST}:${redis.port}" }\nrepeat: 1\nduration: 1\nwarmup: 0\nflags: { q: 500, t: 1 }\nsteps:\n  - name: only\n`,
    );
    const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir], { timeoutMs: SLOW, env: { REDIS_PASSWORD: SECRET } });
    expect(r.code, why(r)).toBe(0);
    expect(fs.existsSync(path.join(dir, 'RESULTS.md')), 'RESULTS.md written').toBe(true);
    expect(leaks(r, [dir])).toEqual([]);
  });

  it('a password holding @ and :, in URLs %-escaped and as typed (produce and consume)', LONG, async () => {
    const url = (auth) => `redis://${auth}${HOST}:${redis.port}`;
    const given = [
      [`--password=${SPECIAL}`, '--port', String(redis.port)],
      ['--url', url(`:${encodeURIComponent(SPECIAL)}@`)],
      ['--url', url(`:${SPECIAL}@`)],
      ['--url', url(`default:${SPECIAL}@`)],
    ];
    const runs = await Promise.all(
      given.flatMap((args) => [
        runOut([PRODUCER, ...args, '-t', '1', '-q', '500', '-d', '1', '--warmup', '0', '--ttl', '300']).then((r) => ({ ...r, args })),
        runOut([CONSUMER, ...args, '-d', '1', '--warmup', '0', '--ttl', '300']).then((r) => ({ ...r, args })),
      ]),
    );
    for (const r of runs) {
      expectRan(r);
      expect(leaks(r, [r.out]), r.args.join(' ')).toEqual([]);
    }
  });

  it('report, report --html, a merged report, compare and chart on those runs', LONG, async () => {
    expect(produced.length, 'the producer runs above').toBe(5);
    const [a, b] = produced;
    const charts = tempDir('rqbench-secrets-charts-');
    const runs = await Promise.all([
      runNode([CLI, 'report', a]),
      runNode([CLI, 'report', a, '--html']),
      runNode([CLI, 'report', a, b]),
      runNode([CLI, 'report', a, '--format', 'csv']),
      runNode([CLI, 'report', a, '--format', 'json']),
      runNode([CLI, 'compare', a, b]),
      runNode([CLI, 'chart', a, '--out', charts]),
    ]);
    for (const r of runs) expect(r.code, why(r)).toBe(0);
    expect(fs.existsSync(path.join(a, 'report.html'))).toBe(true);
    for (const r of runs) expect(leaks(r, [...produced, charts])).toEqual([]);
  });
});

describe('refusals and failures do not quote the password they were given', () => {
  it('a wrong password: one line naming the server, never the password', LONG, async () => {
    const runs = await Promise.all(
      forms(WRONG).flatMap(({ form, args, env }) => [
        runOut([PRODUCER, ...args, '-t', '1', '-q', '500', '-d', '1', '--warmup', '0'], { env }).then((r) => ({ ...r, form })),
        runOut([CONSUMER, ...args, '-d', '1', '--warmup', '0'], { env }).then((r) => ({ ...r, form })),
      ]),
    );
    for (const r of runs) {
      expect(r.code, `${r.form}: ${why(r)}`).toBe(1);
      expect(r.stderr, r.form).toMatch(/WRONGPASS|invalid password|NOAUTH/i);
      expect(leaks(r, [r.out]), r.form).toEqual([]);
    }
  });

  it('k8s: the password after --, inside --flags, in a URL, in REDIS_PASSWORD', LONG, async () => {
    const cases = [
      ['--', `--password=${SECRET}`, '-q', '100'],
      ['--', '--password', SECRET, '-q', '100'],
      [`--flags=--password=${SECRET} -q 100`],
      [`--flags=-q 100 --password ${SECRET}`],
      ['--', '--url', `redis://:${SECRET}@${HOST}:6379`, '-q', '100'],
      [`--flags=--url=redis://default:${SECRET}@${HOST}:6379 -q 100`],
    ];
    for (const rest of cases) {
      const out = tempDir('rqbench-secrets-k8s-');
      const r = await rqbench(['k8s', '--pods', '2', '--out', out, ...rest]);
      expect(r.code, `${rest.join(' ')}: ${why(r)}`).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      expect(listTree(out), 'nothing written').toEqual([]);
      expect(leaks(r, [out]), rest.join(' ')).toEqual([]);
    }
    // REDIS_PASSWORD in the environment of k8s: the manifest takes it from the Secret, never from here
    const out = tempDir('rqbench-secrets-k8s-');
    const r = await runNode([CLI, 'k8s', '--pods', '2', '--out', out, '--', '-q', '100'], { env: { REDIS_PASSWORD: SECRET } });
    expect(r.code, why(r)).toBe(0);
    expect(listTree(out).length).toBeGreaterThan(0);
    expect(leaks(r, [out])).toEqual([]);
  });

  it('bad input holding the password: one line, exit 2, the password masked', LONG, async () => {
    const port = String(redis.port);
    const cases = [
      ['produce', '--port', port, `--password=${SECRET}`, `--password=${WRONG}`],
      ['produce', '--port', port, '--password', SECRET, '--password', WRONG],
      ['produce', '--url', `redis://:${SECRET}@${HOST}:notaport`],
      ['produce', '--url', `ftp://default:${SECRET}@${HOST}:${port}`],
      ['produce', '--url', `redis://:${SECRET}@${HOST}:${port}/not-a-db`],
      ['consume', '--url', `redis://:${SECRET}@${HOST}:${port}`, '-d', 'abc'],
      ['consume', '--target', 'sqs', '--queue', 'q', '--cache', 'redis', '--cache-url', `http://:${SECRET}@${HOST}:${port}`],
      ['capacity', '--url', `redis://:${SECRET}@${HOST}:${port}`, `--consumer=--password ${SECRET}`],
      ['ops', '--url', `redis://:${SECRET}@${HOST}:${port}`, '-d', '-1'],
      ['load', '--url', `redis://:${SECRET}@${HOST}:${port}`],
      ['produce', '--password', `-${SECRET}`, '--port', port],
      ['produce', `--password=-${SECRET}`, '--port', port, '-q', 'x'],
      ['produce', '--url', `redis://:${SPECIAL}@${HOST}:notaport`],
      ['produce', '--url', `ftp://default:${SPECIAL}@${HOST}:${port}`],
      ['ops', '--url', `redis://:${SPECIAL}@${HOST}:${port}/x`],
      ['consume', '--target', 'sqs', '--queue', 'q', '--cache', 'redis', '--cache-url', `http://:${SPECIAL}@${HOST}:${port}`],
      ['produce', '--port', port, `--password=${SPECIAL}`, '--password', SECRET],
      ['k8s', '--pods', '2', '--', `--password=${SPECIAL}`, '-q', '100'],
      ['k8s', '--pods', '2', `--flags=REDIS_PASSWORD=${SECRET} -q 100`],
      ['k8s', '--pods', '2', '--', '--url', `redis://:${SPECIAL}@${HOST}:${port}`, '-q', '100'],
    ];
    const found = [];
    for (const argv of cases) {
      const out = tempDir('rqbench-secrets-bad-');
      const r = await rqbench([...argv, '--out', out]);
      expect(r.code, `${argv.join(' ')}: ${why(r)}`).toBe(2);
      expect(r.stderr.trim().split('\n'), r.stderr).toHaveLength(1);
      found.push(...leaks(r, [out]).map((l) => `${l}: ${r.stderr.trim()}`));
    }
    expect(found).toEqual([]);
  });

  it('an experiment spec holding the password: refused without quoting it', LONG, async () => {
    const specs = [
      // a password in the spec's URL is refused (it belongs in REDIS_PASSWORD)
      `title: t\nseed: "002 § x"\ntopology: { url: "redis://:${SECRET}@${HOST}:${redis.port}" }\nflags: { q: 500 }\nsteps:\n  - name: only\n`,
      // and a spec that does not parse, on the line that holds it
      `title: t\nseed: "002 § x"\ntopology: { url: "redis://default:${SECRET}@${HOST}:${redis.port}" \nsteps:\n  - name: only\n`,
      // a step's flags holding it
      `title: t\nseed: "002 § x"\ntopology: { url: "redis://${HOST}:${redis.port}" }\nflags: { q: 500, password: "${SECRET}" }\nsteps:\n  - name: only\n`,
    ];
    for (const yaml of specs) {
      const dir = path.join(tempDir('rqbench-secrets-spec-'), 'exp');
      fs.mkdirSync(dir);
      fs.writeFileSync(path.join(dir, 'experiment.yaml'), yaml);
      const r = await rqbench(['experiment', 'run', '--allow-dirty', dir]);
      expect(r.code, why(r)).toBe(2);
      expect(fs.readdirSync(dir)).toEqual(['experiment.yaml']);
      expect(leaks(r, []), yaml).toEqual([]);
    }
  });
});
