// Docs that are run (issue 25, point 3): every ```sh block of README.md and docs/*.md is either run
// here, as written, by bash (against servers this file starts on 127.0.0.1, with the shorter
// durations listed in EXAMPLES), or its first line says what it needs that a test machine does not
// have (`# needs: …`). A block that is neither fails, and so does a runnable block that exits
// non-zero or whose output no longer shows what its page says. Relative links must resolve too.
//
// Why bash and not a parser: the examples are shell (background jobs, $T, globs, redirections);
// running them as a reader would is the only way to know a reader can. `rqbench` is a two-line
// shim on PATH (`exec node src/cli.js "$@"`, what `npm link` gives), and each block runs in a
// directory of its own holding links to the checkout's src/, scripts/, deploy/, node_modules and
// package.json, and a copy of the one experiment the examples read, so nothing lands in the repo.
//
// Two test files run them: docs-examples.test.js, in the shared pool, and docs-examples-quiet.test.js,
// alone after everything else (vitest.config.js), for the examples marked `quiet` whose load a host
// busy with other tests cannot give them.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '../../src/local/local-redis.js';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { findPubsubEmulator, startPubsub } from '../../src/local/pubsub-emulator.js';
import { findMotoServer, startMoto } from '../../src/local/moto-emulator.js';
import { ROOT, freePort } from './producer-run.js';

/** The pages whose examples are held to this. */
const PAGES = [
  'README.md',
  ...fs
    .readdirSync(path.join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`),
];

/** What a block may say it needs, as its first line `# needs: <reason>`; nothing else is accepted. */
const NEEDS = [
  'a real AWS account',
  'a real Google Cloud project',
  'several hosts',
  'your own Redis with TLS and an ACL user',
  'a Kubernetes cluster',
  /^a long run \(.+\)$/,
];

/** A block of servers: each line is started, waited for, and stopped with SIGINT. */
const SERVE = '# runs until Ctrl-C';

/** The commands CI itself runs (.ci/run), so the quick start's `npm ci` and `npm test` are not run again here. */
const CI_RUNS = ['npm ci', 'npm test'];

/**
 * @typedef {object} Context  what the servers started here are reached at
 * @property {string} url           a local Redis Cluster (3 masters x 1 replica): stands for redis://10.0.0.5:6379
 * @property {string[]} urls        one such cluster per lane
 * @property {string} endpoint      fauxqs (SQS, SNS, S3): $ENDPOINT
 * @property {string} pubsub        the Pub/Sub emulator, host:port: $PUBSUB_ENDPOINT
 * @property {string} api           moto's server: $API_ENDPOINT
 * @property {Record<string, number>} ports  free loopback ports, by name, for examples that name a fixed one
 */

/**
 * @typedef {object} Example  what the test knows about one runnable block
 * @property {string} page
 * @property {string} has          a line (or part of one) that picks the block out on its page
 * @property {[string|RegExp, string|((c: Context) => string)][]} [subs]  each must match: shorter runs, free ports
 * @property {RegExp[]} expect     each must match the block's output (stdout and stderr)
 * @property {string[]} [files]    paths (relative to the block's directory) the block must leave
 * @property {1|2} lane            the examples of a lane run one after another, on a cluster of the lane's
 *                                  own (one flushes it, one fails a master over); the two lanes side by side
 * @property {number} [timeoutMs]
 * @property {(code: number|null, out: string) => boolean} [exitOk]  a non-zero exit that is a right answer too (exit 0 is)
 * @property {(dir: string, out: string) => void} [also]  further checks
 * @property {boolean} [quiet]   run alone, after every other test (docs-examples-quiet.test.js): its load needs the host
 * @property {Tool[]} [tools]     emulators it needs beyond fauxqs (skipped, with a message, where missing, but not under CI=true)
 */

/** @typedef {'pubsub'|'moto'} Tool */

/** The emulators that are not installed here: their examples are skipped, said so, except under CI, where they fail. */
const MISSING = /** @type {Tool[]} */ ([...(findPubsubEmulator() ? [] : ['pubsub']), ...(findMotoServer() ? [] : ['moto'])]).filter(
  () => process.env.CI !== 'true',
);

/**
 * The tools a block (or a server line) needs that are missing here.
 * @param {Tool[]} tools
 */
const missing = (tools) => tools.filter((x) => MISSING.includes(x));

/** The address every example names for "a Redis of yours". */
const YOUR_REDIS = 'redis://10.0.0.5:6379';

/** A bare `wait` waits for every background job and fails with the first that failed (bash's own `wait` returns 0). */
const WAIT_ALL = 'for j in $(jobs -p); do wait "$j"; done';

/** @type {Example[]} */
/**
 * A capacity search on a host too busy for its steps: no rate held, exit 1, and the search says the
 * host was noisy. A right answer on such a host, where the page's example promises exit 0 on a quiet one.
 * @param {number|null} code
 * @param {string} out
 */
const noRateOnABusyHost = (code, out) => code === 1 && /^no rate held/m.test(out) && /^noise: \d+ of \d+ step runs were noisy/m.test(out);

const EXAMPLES = [
  {
    page: 'README.md',
    has: 'npm ci && npm run demo',
    lane: 1,
    // npm ci (would reinstall node_modules under the other tests) and npm test (this very suite) are
    // what .ci/run runs: checked to be there below, not run again
    subs: [
      ['npm ci && npm run demo', 'npm run demo'],
      [/^npm test .*$/m, ''],
    ],
    expect: [
      /\| Writers \| Items per writer per sec \| master CPU \| replica CPU/,
      /\*\*Rate:\*\* target 40,000 items\/s, achieved [\d,]+ items\/s/,
      /run directory: runs\/\d{8}-\d{6}-demo-seed-baseline/,
    ],
    also: () => {
      const ci = fs
        .readFileSync(path.join(ROOT, '.ci/run'), 'utf8')
        .split('\n')
        .map((l) => l.trim());
      for (const c of CI_RUNS)
        expect(
          ci.some((l) => l === c || l.startsWith(`${c} `)),
          `.ci/run runs ${c}`,
        ).toBe(true);
    },
    timeoutMs: 60_000,
  },
  {
    page: 'docs/producer-consumer.md',
    has: '-t 8 -a 1 --ns 10 --same-slot',
    lane: 2,
    subs: [
      ['-q 300000', '-q 16000'],
      ['--same-slot', '--same-slot -d 1 --warmup 0'],
      [/-t 8$/m, '-t 8 -d 1 --warmup 0'],
      ['-d 20', '-d 1'],
    ],
    expect: [
      /\| Writers \| Items per writer per sec \| master CPU \| replica CPU/,
      /produce-zset-q16000-t8-a1-ns10-same-slot-cluster/,
      /produce-zset-q16000-t8-cluster/,
      /produce-zset-q40000-t2-cluster/,
    ],
    timeoutMs: 90_000,
  },
  {
    page: 'docs/producer-consumer.md',
    has: 'node src/consumer.js --url redis://10.0.0.5:6379 --cluster -d 10 ',
    lane: 1,
    subs: [
      ['-d 60', '-d 14'],
      [/-d 10/g, '-d 2'],
      ['--readers 8', '--readers 2'],
    ],
    expect: [
      /Cardinality \| Responses received \| Batch processed p50/,
      /reading every live item every 1000 ms from the replicas/,
      /reading the newest 1000 live items/,
      /2 reader process\(es\) each reading every live item every 250 ms .*values by get/,
    ],
    timeoutMs: 90_000,
  },
  {
    page: 'docs/cluster-changes.md',
    has: '--at 10:failover',
    lane: 2,
    subs: [
      ['-d 40', '-d 10'],
      ['-d 30', '-d 6'],
      ['--at 10:failover', '--at 2:failover'],
    ],
    expect: [/Cluster actions/, /2:failover/, /done in [\d.]+ s/],
    timeoutMs: 90_000,
  },
  {
    page: 'docs/live-metrics.md',
    has: '--metrics-port 9100 --quiet &',
    lane: 1,
    subs: [
      ['--metrics-port 9100', (c) => `--metrics-port ${c.ports.m1} --metrics-linger 0`],
      ['--metrics-port 9101', (c) => `--metrics-port ${c.ports.m2} --metrics-linger 0`],
      ['127.0.0.1:9100/metrics |', (c) => `127.0.0.1:${c.ports.m1}/metrics |`],
      ['127.0.0.1:9101/metrics |', (c) => `127.0.0.1:${c.ports.m2}/metrics |`],
      [/-d 60/g, '-d 6'],
      ['sleep 5', 'sleep 4'],
    ],
    expect: [/^rqbench_items_acknowledged_total\{.*run_id=.*\} \d+/m, /^rqbench_cycles_total\{.*\} \d+/m],
    timeoutMs: 60_000,
  },
  {
    page: 'docs/reports-and-charts.md',
    has: '--run-id zset-20k --out A',
    lane: 1,
    // the page's 5 s lead kept: two producers and their four writers start in it. Run alone: beside
    // the shared pool (load average 15) they took 7.5 and 8.6 s to be ready and, rightly, ran nothing
    quiet: true,
    subs: [[/-d 10/g, '-d 2']],
    expect: [/\| Writers \| Items per writer per sec/, /Detailed Percentile spectrum/, /#\[Mean {4}=/],
    files: ['merged.json', 'merged-timeline.csv'],
    also: (dir) => {
      const merged = JSON.parse(fs.readFileSync(path.join(dir, 'merged.json'), 'utf8'));
      expect(merged.merged.runId ?? merged.merged.run_id ?? JSON.stringify(merged.merged)).toMatch(/zset-20k/);
      expect(fs.readFileSync(path.join(dir, 'merged-timeline.csv'), 'utf8').split('\n')[0]).toMatch(/intended.*acked/);
    },
    timeoutMs: 120_000,
  },
  {
    page: 'docs/reports-and-charts.md',
    has: 'rqbench compare cmp/*-zset cmp/*-list',
    lane: 2,
    subs: [[/-d 5/g, '-d 1']],
    expect: [/\| Metric \| A \| B \| Δ \| Δ % \|/, /\| Achieved items\/s \| 20,000 \| 20,000 \|/, /\| batch p99 ms \|/],
    timeoutMs: 60_000,
  },
  {
    page: 'docs/reports-and-charts.md',
    has: 'data/*/zset experiments/002-store-models/data/*/list',
    lane: 1,
    expect: [
      /\| Metric \| A median \[95% CI\] \| B median \[95% CI\] \| Change \[95% CI\] \| p \| n \|/,
      /\| replica CPU avg % \| .* \| 6\+6 \|/,
    ],
  },
  {
    page: 'docs/reports-and-charts.md',
    has: '--at 10:failover --out runs --quiet',
    lane: 2,
    subs: [
      ['-d 20', '-d 4'],
      ['--at 10:failover', '--at 2:failover'],
    ],
    expect: [/^report: runs\/\d{8}-\d{6}-produce-zset-q20000-t1-cluster\/report\.html$/m, /\*\*Cluster actions:\*\*/],
    also: (dir) => {
      const [run] = fs.readdirSync(path.join(dir, 'runs'));
      const html = fs.readFileSync(path.join(dir, 'runs', run, 'report.html'), 'utf8');
      expect(html.startsWith('<!doctype html>')).toBe(true);
      expect(html.includes('failover')).toBe(true);
    },
    timeoutMs: 60_000,
  },
  {
    page: 'docs/reports-and-charts.md',
    has: 'rqbench chart experiments/002-store-models',
    lane: 1,
    expect: [/cpu\.svg/, /throughput\.png/, /latency\.svg/, /percentiles\.png/],
    files: ['charts/cpu.svg', 'charts/cpu.png', 'charts/throughput.svg', 'charts/latency.svg', 'charts/percentiles.svg'],
    timeoutMs: 60_000,
  },
  {
    page: 'docs/capacity.md',
    has: 'rqbench capacity --local -t 2 -c 10 --slo-p99 200',
    lane: 1,
    // two steps of 2 s each: a ramp from 5,000 that ends at the ceiling, no re-tests; run outside the
    // checkout with the default --out (runs), as a user's search lands in their own directory
    subs: [
      ['--slo-p99 200', '--slo-p99 200 --start-rate 5000 --max-rate 10000 --step-seconds 2 --step-warmup 0 --confirm 0'],
      ['--hourly-price 0.1008', '--hourly-price 0.1008 --start-rate 5000 --max-rate 10000 --step-seconds 2 --step-warmup 0 --confirm 0'],
      ['-t 8', '-t 2'],
    ],
    // two answers, one per search: on a quiet machine both hold up to the 10,000 ceiling; CI runs
    // test files side by side, and a step a busy host could not hold ends the search lower (the
    // page's other answer forms). What the page promises is the answer line and the projection.
    exitOk: noRateOnABusyHost,
    expect: [
      /^(held up to the ceiling of 10,000 items\/s|max sustainable(, not confirmed:)? [\d,]+ items\/s|no rate held)[\s\S]*^(held up to the ceiling of 10,000 items\/s|max sustainable(, not confirmed:)? [\d,]+ items\/s|no rate held)/m,
      /projection: /,
    ],
    also: (dir) => {
      // each search's steps under its own run directory here, none in the checkout's runs/
      for (const d of fs.readdirSync(path.join(dir, 'runs'))) {
        const steps = fs.readdirSync(path.join(dir, 'runs', d)).filter((f) => f.startsWith('step-'));
        expect(steps.length, d).toBeGreaterThan(0);
        for (const st of steps)
          expect(
            fs.readdirSync(path.join(dir, 'runs', d, st)).some((f) => f.endsWith('-producer')),
            `${d}/${st}`,
          ).toBe(true);
      }
      // the instance facts travel with the search into its capacity.md
      const mds = fs
        .readdirSync(path.join(dir, 'runs'))
        .map((d) => path.join(dir, 'runs', d, 'capacity.md'))
        .filter((f) => fs.existsSync(f));
      expect(mds.length).toBe(2);
      expect(mds.some((f) => fs.readFileSync(f, 'utf8').includes('r6g.large'))).toBe(true);
    },
    timeoutMs: 120_000,
  },
  {
    page: 'docs/capacity.md',
    has: 'rqbench capacity --local --cluster --node-cpus 0.1 --kv=',
    lane: 1,
    // two steps of 2 s: a ramp from 5,000 operations/s to a ceiling of 10,000, no re-tests
    subs: [['--start-rate 10000', '--start-rate 5000 --max-rate 10000 --step-seconds 2 --step-warmup 0 --confirm 0']],
    exitOk: noRateOnABusyHost,
    expect: [
      /^(held up to the ceiling of 10,000 operations\/s|max sustainable(, not confirmed:)? [\d,]+ operations\/s|no rate held)/m,
      /projection: /,
    ],
    also: (dir) => {
      // every step is a kv run, and capacity.md names the node that took the most operations
      const [d] = fs.readdirSync(path.join(dir, 'runs'));
      const steps = fs.readdirSync(path.join(dir, 'runs', d)).filter((f) => f.startsWith('step-'));
      expect(steps.length).toBeGreaterThan(0);
      for (const st of steps)
        expect(
          fs.readdirSync(path.join(dir, 'runs', d, st)).some((f) => f.endsWith('-kv')),
          st,
        ).toBe(true);
      const md = fs.readFileSync(path.join(dir, 'runs', d, 'capacity.md'), 'utf8');
      expect(md).toContain('| Node with most operations: % of them |');
      expect(md).toMatch(/\| 127\.0\.0\.1:\d+: \d+\.\d \|/);
    },
    timeoutMs: 120_000,
  },
  {
    page: 'docs/experiments.md',
    has: 'rqbench experiment report experiments/002-store-models',
    lane: 1,
    expect: [/RESULTS\.md/],
    also: (dir) => {
      // written again from the committed data: the same bytes as the committed RESULTS.md
      const rel = 'experiments/002-store-models/RESULTS.md';
      expect(fs.readFileSync(path.join(dir, rel), 'utf8')).toBe(fs.readFileSync(path.join(ROOT, rel), 'utf8'));
    },
    timeoutMs: 60_000,
  },
  {
    page: 'docs/kv.md',
    has: 'rqbench kv --local --cluster --key-dist zipf:0.99',
    lane: 1,
    subs: [['-d 10', '-d 2 --warmup 0']],
    expect: [
      /\*\*Rate:\*\* 20,000 operations\/s due/,
      /Operations per node \(each node's share/,
      /\| Node \| Role \| Shard \| Operations \| Share \| CPU avg \|/,
    ],
    timeoutMs: 60_000,
  },
  {
    page: 'docs/loading-and-ops.md',
    has: 'rqbench load --generate /tmp/delta.tsv',
    lane: 2,
    // 20,000 records (10 MB), not the seed's 2 GB; grids of 1-4 threads, not 16-64
    subs: [
      ['--generate /tmp/delta.tsv', '--generate /tmp/delta.tsv --records 20000'],
      [/\/tmp\/delta\.tsv/g, 'delta.tsv'],
      ['--reader-threads 16,32,64 --connections 64,128', '--reader-threads 2,4 --connections 4'],
      ['--reader-threads 8 --connections 32', '--reader-threads 2 --connections 4'],
    ],
    expect: [/\| reader threads \| connections \| data loading time \| num records per sec \|/, /\| 4 \| 1 \|/, /\| 2 \| 4 \|/],
    timeoutMs: 90_000,
  },
  {
    page: 'docs/loading-and-ops.md',
    has: "--key-pattern 'key:{n:12}'",
    lane: 2,
    // 20,000 records (10 MB), not the seed's 2 GB
    subs: [
      ["--key-pattern 'key:{n:12}'", "--key-pattern 'key:{n:12}' --records 20000"],
      [/\/tmp\/delta-k\.tsv/g, 'delta-k.tsv'],
    ],
    expect: [
      /pipelined MSET of up to 1,?000 records of one slot/,
      /pipelined EVALSHA of up to 1,?000 records of one slot, a script that SETs each with EX 3600/,
    ],
    timeoutMs: 90_000,
  },
  {
    page: 'docs/loading-and-ops.md',
    has: 'aws --endpoint-url "$ENDPOINT" s3 mb s3://deltas',
    lane: 2,
    subs: [
      // the aws CLI is not on every test machine: the same bucket made through the SDK rqbench carries
      ['aws --endpoint-url "$ENDPOINT" s3 mb s3://deltas', `node --input-type=module -e "${makeBucketScript('deltas')}"`],
      [
        '--generate s3://deltas/delta.tsv --endpoint "$ENDPOINT"',
        '--generate s3://deltas/delta.tsv --endpoint "$ENDPOINT" --records 20000',
      ],
      ['--reader-threads 16,32,64 --s3-connections 64,128', '--reader-threads 1,2 --s3-connections 2,4'],
    ],
    expect: [/data_loading_num_threads \| s3client_max_connections/],
    timeoutMs: 90_000,
  },
  {
    page: 'docs/loading-and-ops.md',
    has: 'rqbench ops --only sqs,sns --endpoint',
    lane: 2,
    // each operation 0.3 s measured after no warm-up, not 5 s + 15 s
    subs: [
      [' -d 10 ', ' '],
      [/^(rqbench ops [^#\n]*?)(\s+#.*)?$/gm, '$1 -d 0.3 --warmup 0$2'],
    ],
    tools: ['pubsub', 'moto'],
    expect: [
      /Overhead \(ms\)/,
      /Round trip \(ms\)/,
      /\*\*Redis\*\*/,
      /\*\*SQS\*\*/,
      /\*\*SNS\*\*/,
      /\*\*Pub\/Sub\*\*/,
      /\*\*DynamoDB\*\*/,
      /\*\*STS\*\*/,
    ],
    timeoutMs: 120_000,
  },
  {
    page: 'docs/queues.md',
    has: 'npm run demo:queues',
    lane: 2,
    // 45 messages/s of 1,000 updates through the in-process emulator: on a host loaded with other
    // tests (load average 15) the publisher fell 1.9 s behind and did not send 40 of its 225
    quiet: true,
    tools: ['pubsub'],
    expect: [/\| Percentile \| Reading off SQS \| Server side processing \| E2E \|/, /\| Percentile \| Server side processing \| E2E \|/],
    timeoutMs: 90_000,
  },
  {
    page: 'docs/queues.md',
    has: '--endpoint "$ENDPOINT" --queue updates --create --threads 4',
    lane: 1,
    // the same load, applied to a cluster: on a loaded host the publisher sent 18 messages/s of its 45
    quiet: true,
    subs: [
      ['--metrics-port 9100', (c) => `--metrics-port ${c.ports.q1}`],
      ['-d 330', '-d 20'],
      ['-d 300', '-d 3'],
      // a queue of its own, so nothing another run left in the emulator is read
      [/--queue updates/g, '--queue docs-updates'],
      [/--topic updates/g, '--topic docs-updates'],
    ],
    expect: [/\| Percentile \| Reading off SQS \| Server side processing \| E2E \|/, /Nothing lost/],
    timeoutMs: 90_000,
  },
  {
    // rendering needs no cluster: the Job and PodMonitor files, a start in ms since the epoch
    page: 'docs/multi-host.md',
    has: 'rqbench k8s --pods 3 --writers-per-pod 2 --podmonitor --out k8s',
    lane: 1,
    expect: [
      /^k8s\/job\.yaml$/m,
      /^k8s\/podmonitor\.yaml$/m,
      /name: WRITERS\n\s+value: "6"/,
      /name: START_AT\n\s+value: "\d{13}"/,
      /rqbench k8s: 3 pod\(s\) × 2 writer\(s\), run k8s-\d{8}-\d{6}/,
      /Examples:/,
    ],
    files: ['k8s/job.yaml', 'k8s/podmonitor.yaml'],
    timeoutMs: 30_000,
  },
];

/**
 * A one-line module that makes an S3 bucket on $ENDPOINT with the SDK rqbench depends on.
 * @param {string} bucket
 * @returns {string}
 */
function makeBucketScript(bucket) {
  return (
    `import { S3Client, CreateBucketCommand } from '@aws-sdk/client-s3';` +
    ` await new S3Client({ endpoint: process.env.ENDPOINT, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'test', secretAccessKey: 'test' } })` +
    `.send(new CreateBucketCommand({ Bucket: '${bucket}' }));`
  );
}

/** What each server line of a `# runs until Ctrl-C` block must print before it is stopped. */
const SERVE_READY = [
  [/^rqbench local redis --cluster --tls\b/, /url: +rediss:\/\/127\.0\.0\.1:\d+/],
  [/^rqbench local redis\b/, /url: +redis:\/\/127\.0\.0\.1:\d+/],
  [/^rqbench local pubsub\b/, /endpoint: 127\.0\.0\.1:\d+/],
  [/^rqbench local (sqs|moto)\b/, /endpoint: http:\/\/127\.0\.0\.1:\d+/],
  [/^prometheus\b/, /Server is ready to receive web requests/],
];

/** Substitutions for server lines: a free port for Prometheus (9090 may be taken), its data in the block's dir. */
const SERVE_SUBS = /** @type {[RegExp, (c: Context) => string][]} */ ([
  [/--storage\.tsdb\.path=\S+/, (c) => `--storage.tsdb.path=prom-data --web.listen-address=127.0.0.1:${c.ports.prom}`],
]);

// ---------------------------------------------------------------- reading the pages

/**
 * @typedef {{ page: string, line: number, lang: string, body: string }} Block  line: of the opening fence, 1-based
 */

/**
 * Every fenced block of a page.
 * @param {string} page relative to the repo root
 * @returns {Block[]}
 */
function fences(page) {
  const lines = fs.readFileSync(path.join(ROOT, page), 'utf8').split('\n');
  const out = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const end = lines.findIndex((l, k) => k > i && /^```\s*$/.test(l));
    if (end < 0) throw new Error(`${page}:${i + 1}: a fence that is never closed`);
    out.push({ page, line: i + 1, lang: open[1], body: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return out;
}

/**
 * How a block is marked: needs (not run), serve (servers until Ctrl-C), or run.
 * @param {Block} b
 * @returns {{ kind: 'needs', reason: string } | { kind: 'serve' } | { kind: 'run' }}
 */
function marking(b) {
  const first = b.body.split('\n').find((l) => l.trim() !== '') ?? '';
  const needs = /^# needs: (.+)$/.exec(first);
  if (needs) return { kind: 'needs', reason: needs[1] };
  if (first === SERVE) return { kind: 'serve' };
  return { kind: 'run' };
}

/** @param {string} reason */
const knownReason = (reason) => NEEDS.some((n) => (typeof n === 'string' ? n === reason : n.test(reason)));

/** @param {Block} b */
const where = (b) => `${b.page}:${b.line}`;

/**
 * The EXAMPLES entry of a runnable block: exactly one must pick it out.
 * @param {Block} b
 * @returns {Example[]}
 */
const entriesFor = (b) => EXAMPLES.filter((e) => e.page === b.page && b.body.includes(e.has));

/**
 * A block's text with its substitutions made; throws when one no longer matches (a stale entry).
 * @param {string} text
 * @param {[string|RegExp, string|((c: Context) => string)][]} subs
 * @param {Context} ctx
 * @returns {string}
 */
function substitute(text, subs, ctx) {
  let out = text;
  for (const [from, to] of subs) {
    const value = typeof to === 'function' ? to(ctx) : to;
    const hit = typeof from === 'string' ? out.includes(from) : new RegExp(from.source, from.flags.replace('g', '')).test(out);
    if (!hit) throw new Error(`substitution ${String(from)} matches nothing: the example changed; update EXAMPLES`);
    out = typeof from === 'string' ? out.replaceAll(from, value) : out.replace(from, value);
  }
  return out;
}

/**
 * The substitutions every runnable block gets: "your Redis" is the cluster started here, and a bare
 * `wait` fails when a background job did.
 * @param {Context} ctx
 * @returns {[string|RegExp, string][]}
 */
const commonSubs = (ctx) => [
  [YOUR_REDIS, ctx.url],
  [/^wait(\s+#.*)?$/gm, WAIT_ALL],
];

/**
 * Makes the common substitutions that apply (they are optional: not every block names a Redis).
 * @param {string} text
 * @param {Context} ctx
 */
function commonSubstitute(text, ctx) {
  return commonSubs(ctx).reduce((t, [from, to]) => (typeof from === 'string' ? t.replaceAll(from, to) : t.replace(from, to)), text);
}

// ---------------------------------------------------------------- running them

const made = /** @type {string[]} */ ([]);

/**
 * A directory for one block: links to the checkout's code, a copy of the experiment the examples read.
 * @returns {string}
 */
function workDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-docs-'));
  made.push(dir);
  for (const name of ['src', 'scripts', 'deploy', 'node_modules', 'package.json']) {
    fs.symlinkSync(path.join(ROOT, name), path.join(dir, name));
  }
  // a copy (without runs/), so that `experiment report` writes there, not into the checkout
  const spec = 'experiments/002-store-models';
  const from = path.join(ROOT, spec);
  fs.cpSync(from, path.join(dir, spec), { recursive: true, filter: (src) => path.relative(from, src).split(path.sep)[0] !== 'runs' });
  return dir;
}

/** PATH with `rqbench` on it, as `npm link` would put it. */
function shimDir() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-bin-'));
  made.push(dir);
  fs.writeFileSync(path.join(dir, 'rqbench'), `#!/bin/sh\nexec "${process.execPath}" "${path.join(ROOT, 'src/cli.js')}" "$@"\n`, {
    mode: 0o755,
  });
  return dir;
}

/**
 * The environment a block runs in.
 * @param {Context} ctx
 * @param {string} bin
 */
function blockEnv(ctx, bin) {
  return {
    ...process.env,
    PATH: `${bin}${path.delimiter}${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`,
    ENDPOINT: ctx.endpoint,
    PUBSUB_ENDPOINT: ctx.pubsub,
    API_ENDPOINT: ctx.api,
    REDIS_PASSWORD: '',
    NO_COLOR: '1',
  };
}

/**
 * Runs a process in a group of its own; on exit or timeout the group is killed by its leader's PID,
 * so a background job an example left behind does not outlive it.
 * @param {string[]} argv
 * @param {{ cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number, until?: RegExp }} o
 *   until: once the output matches it, SIGINT goes to the process (a server's Ctrl-C)
 * @returns {Promise<{ code: number|null, signal: string|null, out: string, ms: number, timedOut: boolean, sawReady: boolean }>}
 */
function runGroup(argv, { cwd, env, timeoutMs, until }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(argv[0], argv.slice(1), { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let timedOut = false;
    let sawReady = false;
    const killGroup = (/** @type {NodeJS.Signals} */ sig) => {
      try {
        process.kill(-(/** @type {number} */ (child.pid)), sig);
      } catch {
        /* already gone */
      }
    };
    const onData = (/** @type {Buffer} */ d) => {
      out += d;
      if (until && !sawReady && until.test(out)) {
        sawReady = true;
        child.kill('SIGINT');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup('SIGKILL');
    }, timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      killGroup('SIGKILL');
      resolve({ code, signal, out, ms: Date.now() - started, timedOut, sawReady });
    });
  });
}

/**
 * Runs one runnable block with bash, as written but for its substitutions.
 * @param {Block} b
 * @param {Example} ex
 * @param {Context} ctx
 * @param {string} bin
 */
async function runBlock(b, ex, ctx, bin) {
  const dir = workDir();
  const script = commonSubstitute(substitute(b.body, ex.subs ?? [], ctx), ctx);
  fs.writeFileSync(path.join(dir, 'example.sh'), script);
  const r = await runGroup(['bash', '-euo', 'pipefail', 'example.sh'], {
    cwd: dir,
    env: blockEnv(ctx, bin),
    timeoutMs: ex.timeoutMs ?? 30_000,
  });
  return { ...r, dir, script };
}

/**
 * Starts every server line of a `# runs until Ctrl-C` block at once, stops each with SIGINT once it
 * printed its address.
 * @param {Block} b
 * @param {Context} ctx
 * @param {string} bin
 */
async function serveBlock(b, ctx, bin) {
  const dir = workDir();
  const lines = b.body
    .split('\n')
    .map((l) => l.replace(/\s+#.*$/, '').trim())
    .filter((l) => l && !l.startsWith('#'))
    .filter((l) => !missing(serverTools(l)).length);
  return Promise.all(
    lines.map(async (line) => {
      const ready = SERVE_READY.find(([cmd]) => cmd.test(line))?.[1];
      if (!ready) return { line, error: 'no readiness line known for this server: add it to SERVE_READY' };
      const cmd = SERVE_SUBS.reduce((t, [from, to]) => t.replace(from, to(ctx)), line);
      const r = await runGroup(['bash', '-c', `exec ${cmd}`], { cwd: dir, env: blockEnv(ctx, bin), timeoutMs: 60_000, until: ready });
      return { line, ...r };
    }),
  );
}

/**
 * The emulators a server line starts.
 * @param {string} line
 * @returns {Tool[]}
 */
const serverTools = (line) => /** @type {Tool[]} */ (['pubsub', 'moto'].filter((x) => new RegExp(`^rqbench local ${x}\\b`).test(line)));

// ---------------------------------------------------------------- the tests

const BLOCKS = PAGES.flatMap(fences);
const SH = BLOCKS.filter((b) => b.lang === 'sh');

/**
 * The tests of the examples: the quiet ones (their own file, run alone), or every other one and the
 * checks that each block is run or marked.
 * @param {{ quiet: boolean }} which
 */
export function docsExampleTests({ quiet }) {
  /** @param {Example|undefined} ex */
  const here = (ex) => Boolean(ex?.quiet) === quiet;
  if (!quiet) {
    describe('every shell example is run or marked', () => {
      it('finds the pages and their examples', () => {
        expect(PAGES).toContain('README.md');
        expect(PAGES.length).toBeGreaterThanOrEqual(10);
        expect(SH.length).toBeGreaterThanOrEqual(15);
      });

      it.each(SH.map((b) => [where(b), b]))('%s is marked, served, or known to EXAMPLES', (_w, b) => {
        const m = marking(b);
        if (m.kind === 'needs')
          expect(knownReason(m.reason), `${where(b)}: "# needs: ${m.reason}" is not one of the reasons in NEEDS`).toBe(true);
        else if (m.kind === 'run')
          expect(entriesFor(b).length, `${where(b)}: neither marked "# needs: …" nor run by an EXAMPLES entry`).toBe(1);
      });

      it('every EXAMPLES entry picks out exactly one block', () => {
        for (const e of EXAMPLES) {
          const hits = SH.filter((b) => e.page === b.page && b.body.includes(e.has) && marking(b).kind === 'run');
          expect(hits.length, `EXAMPLES entry ${e.page} "${e.has}"`).toBe(1);
        }
      });

      it('no command hides in an untagged block (commands go in ```sh, output in ``` or ```text)', () => {
        const hidden = BLOCKS.filter((b) => b.lang !== 'sh' && /^(rqbench|node|npm|npx) /m.test(b.body)).map(where);
        expect(hidden).toEqual([]);
      });

      it('every relative link resolves to a file that exists, and its #anchor to a heading there', () => {
        const broken = PAGES.flatMap((page) => brokenLinks(page));
        expect(broken).toEqual([]);
      });
    });
  }

  describe('the runnable examples run', () => {
    /** @type {Context} */
    const ctx = /** @type {any} */ ({ ports: {} });
    /** @type {Map<Block, Promise<any>>} */
    const results = new Map();
    /** @type {(() => Promise<void>)[]} */
    const stops = [];

    beforeAll(async () => {
      // the servers every 'cluster' and endpoint example shares, started side by side
      const [cluster1, cluster2, sqs, pubsub, moto] = await Promise.all([
        startRedis({ cluster: true, masters: 3, replicas: 1 }),
        startRedis({ cluster: true, masters: 3, replicas: 1 }),
        startSqs(),
        findPubsubEmulator() ? startPubsub() : null,
        findMotoServer() ? startMoto() : null,
      ]);
      for (const s of [cluster1, cluster2, sqs, pubsub, moto]) if (s) stops.push(() => s.stop());
      ctx.urls = [cluster1.url, cluster2.url];
      ctx.endpoint = sqs.endpoint;
      ctx.pubsub = pubsub?.endpoint ?? '127.0.0.1:1';
      ctx.api = moto?.endpoint ?? 'http://127.0.0.1:1';
      for (const name of ['m1', 'm2', 'q1', 'prom']) ctx.ports[name] = await freePort();
      const bin = shimDir();
      // two lanes side by side, each with its own cluster, its examples one after another
      const lanes = [Promise.resolve(), Promise.resolve()];
      for (const b of SH) {
        const m = marking(b);
        const [ex] = m.kind === 'run' ? entriesFor(b) : [];
        if (m.kind === 'needs' || (m.kind === 'run' && (!ex || missing(ex.tools ?? []).length))) continue;
        if (m.kind === 'serve' ? quiet : !here(ex)) continue;
        const lane = m.kind === 'serve' ? 1 : ex.lane - 1; // servers: the lane with less to do
        const laneCtx = { ...ctx, url: ctx.urls[lane] };
        const p = lanes[lane].then(() => (m.kind === 'serve' ? serveBlock(b, laneCtx, bin) : runBlock(b, ex, laneCtx, bin)));
        lanes[lane] = p.then(
          () => undefined,
          () => undefined,
        );
        results.set(b, p);
      }
    }, 120_000);

    afterAll(async () => {
      await Promise.allSettled([...results.values()]);
      await Promise.all(stops.map((s) => s()));
      for (const d of made) fs.rmSync(d, { recursive: true, force: true });
    }, 240_000); // the lanes run on even when `-t` filters their tests out: wait for them, then stop the servers

    for (const b of SH) {
      const m = marking(b);
      if (m.kind === 'needs') continue;
      const [ex] = m.kind === 'run' ? entriesFor(b) : [];
      if (m.kind === 'run' && !ex) continue; // failed above
      if (m.kind === 'serve' ? quiet : !here(ex)) continue;
      const lacking = m.kind === 'run' ? missing(ex.tools ?? []) : [];
      if (lacking.length) {
        process.stderr.write(
          `\nSKIPPED ${where(b)}: needs ${lacking.join(' and ')}, not installed here (the Pub/Sub emulator: apt-get install google-cloud-cli-pubsub-emulator; moto: npm run install:moto)\n`,
        );
        it.skipIf(lacking.length > 0)(`${where(b)} (SKIPPED: ${lacking.join(', ')} not installed)`, () => {});
        continue;
      }
      if (m.kind === 'serve') {
        if (MISSING.length) process.stderr.write(`\nSKIPPED in ${where(b)}: the servers of ${MISSING.join(', ')} (not installed here)\n`);
        it(`${where(b)}: each server starts, prints its address, and stops on Ctrl-C`, async () => {
          const runs = await results.get(b);
          for (const r of runs) {
            expect(r.error, r.line).toBeUndefined();
            expect(r.sawReady, `${r.line}: never printed its address\n${r.out.slice(-1500)}`).toBe(true);
            expect(r.code, `${r.line}: exit ${r.code} ${r.signal ?? ''} after Ctrl-C\n${r.out.slice(-1500)}`).toBe(0);
          }
        }, 180_000);
        continue;
      }
      it(`${where(b)}: runs and shows what the page says`, async () => {
        const r = await results.get(b);
        const tell = `\n--- script\n${r.script}\n--- output (last 3000 chars)\n${r.out.slice(-3000)}`;
        expect(r.timedOut, `timed out after ${r.ms} ms${tell}`).toBe(false);
        if (!ex.exitOk?.(r.code, r.out)) expect(r.code, `exit ${r.code}${tell}`).toBe(0);
        for (const re of ex.expect) expect(r.out, `output shows ${re}${tell}`).toMatch(re);
        for (const f of ex.files ?? []) expect(fs.existsSync(path.join(r.dir, f)), `${f} written${tell}`).toBe(true);
        ex.also?.(r.dir, r.out);
      }, 180_000);
    }
  });
}

// ---------------------------------------------------------------- links

/**
 * GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept),
 * spaces to hyphens.
 * @param {string} heading
 */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/**
 * @param {string} file absolute
 * @returns {Set<string>}
 */
function anchors(file) {
  const text = fs.readFileSync(file, 'utf8').replace(/^```[\s\S]*?^```/gm, '');
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1])));
}

/**
 * Links of a page (outside code) that lead nowhere: "page: target".
 * @param {string} page
 * @returns {string[]}
 */
function brokenLinks(page) {
  const file = path.join(ROOT, page);
  const text = fs
    .readFileSync(file, 'utf8')
    .replace(/^```[\s\S]*?^```/gm, '')
    .replace(/`[^`\n]*`/g, '');
  const bad = [];
  for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue; // http:, https:, mailto:
    const [rel, anchor] = target.split('#');
    const dest = rel ? path.resolve(path.dirname(file), rel) : file;
    if (!dest.startsWith(ROOT) || !fs.existsSync(dest)) bad.push(`${page}: ${target} (no such file in the repository)`);
    else if (anchor && dest.endsWith('.md') && !anchors(dest).has(anchor)) bad.push(`${page}: ${target} (no such heading)`);
  }
  return bad;
}
