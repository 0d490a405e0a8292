// Experiment steps of kind queue (issue 15, points 1, 3 and 6): a two-step spec on the SQS
// emulator the runner starts, the consumer and the publisher run together with the real CLIs,
// RESULTS.md with the seed's table per step (the seed's figures beside), the CPU of the emulator
// and of rqbench measured around each step, the verdict and the charts. Bad queue steps (the field
// named; an endpoint with credentials, not echoed) are refused in test/unit/experiment-kind-specs.test.js.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, removeTempDirs, runNode } from '../helpers/producer-run.js';
import { experimentDir } from '../helpers/experiment-spec.js';
import { QUEUE_SPEC as SPEC } from '../helpers/specs.js';
import { startSqs } from '../../src/local/sqs-emulator.js';

afterAll(() => removeTempDirs());

const rq = (args, timeoutMs = 120_000) => runNode([CLI, ...args], { timeoutMs });
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(-800)}`;

describe('an experiment of queue steps', () => {
  it("runs publisher and consumer per step on the emulator and writes the seed's tables, the CPU, the verdict and the charts", async () => {
    const dir = experimentDir(SPEC, 'queue');
    // seed 5 runs the steps in the order written
    const r = await rq(['experiment', 'run', '--allow-dirty', dir, '--seed', '5']);
    expect(r.code, why(r)).toBe(0);
    expect(r.stderr).toMatch(/started the SQS\/SNS emulator \(in this process\) at http:\/\/127\.0\.0\.1:\d+/);
    expect(r.stderr).toMatch(/\[1\/2\] big \(trial 1\/1, Batch 200 x 10\/s\): sqs → sqs, 3 s … ETA/);
    expect(r.stderr).toMatch(/\[2\/2\] small done in [\d.]+ s: \d+ messages\/s, E2E p50 \d+ ms, p999 \d+ ms, nothing lost/);
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toContain(
      '| Step | Batch size | Messages/s | Thread pool | Updates/s | E2E p50 | E2E p999 | E2E from the schedule p50 / p999 | Missing / duplicates | Emulator CPU % | rqbench CPU % |',
    );
    // about 10 and 20 messages a second, every one applied, the CPU of both sides measured
    expect(md).toMatch(
      /\| Batch 200 x 10\/s \| 200 \| [\d.]+ \| 2 \| [\d,]+ \| [\d.]+u?m?s \| [\d.]+u?m?s ⚠ \| [\d.]+u?m?s \/ [\d.]+u?m?s ⚠ \| 0 \/ 0 \| \d+ \| \d+ \|/,
    );
    // the rate is the messages applied over the span from the first to the last (n - 1 intervals of
    // the schedule): within 10% of it, widened by what the publisher's own schedule lag and the
    // consumer's E2E could take off the span or add to it (a publisher 0.7 s late on a busy CI host,
    // then catching up, packed 60 messages into 2.25 s: 26 a second for 20)
    const [stamp] = fs.readdirSync(path.join(dir, 'runs'));
    for (const [label, batch, rate, name] of [
      ['Batch 200 x 10/s', 200, 10, 'big'],
      ['Batch 100 x 20/s', 100, 20, 'small'],
    ]) {
      const got = Number(new RegExp(`\\| ${label.replace('/', '\\/')} \\| ${batch} \\| ([\\d.]+) \\| 2 \\|`).exec(md)?.[1]);
      const stepDir = path.join(dir, 'runs', stamp, name, 'trial-1');
      const summary = (kind) =>
        JSON.parse(
          fs.readFileSync(
            path.join(
              stepDir,
              fs.readdirSync(stepDir).find((d) => d.endsWith(`-${kind}`)),
              'summary.json',
            ),
            'utf8',
          ),
        );
      const n = rate * 3;
      const lagS = summary('publisher').lag.max / 1000;
      const e2eS = summary('consumer').latency.e2eSent.max / 1000;
      const span = (n - 1) / rate;
      const [low, high] = [(0.9 * n) / (span + lagS + e2eS), (1.1 * n) / Math.max(span - lagS - e2eS, 0.1)];
      expect(got, `${label}: ${got} messages/s (schedule lag up to ${lagS} s, E2E up to ${e2eS} s)`).toBeGreaterThan(low);
      expect(got, `${label}: ${got} messages/s (schedule lag up to ${lagS} s, E2E up to ${e2eS} s)`).toBeLessThan(high);
      expect(summary('consumer').counts.messages, label).toBe(n);
    }
    expect(md).toContain('### Batch 200 x 10/s: Batch size - 200, Rate - 10 = 2,000, Thread pool size - 2');
    // the seed's E2E (from right before the send) under its figure, the corrected one beside
    expect(md).toContain('| Percentile | Reading off SQS | Server side processing | E2E | E2E from the schedule (CO-corrected) |');
    expect(md).toMatch(/\| p50 \| [\d.]+u?m?s \(seed 77ms\) \| [\d.]+u?m?s \(seed 3ms\) \| [\d.]+u?m?s \(seed 316ms\) \| [\d.]+u?m?s \|/);
    expect(md).toMatch(
      /\| p999 \| [\d.]+u?m?s ⚠ \(seed 505ms\) \| [\d.]+u?m?s ⚠ \(seed 34ms\) \| [\d.]+u?m?s ⚠ \(seed 1\.2s\) \| [\d.]+u?m?s ⚠ \|/,
    );
    // a p999 of some 30 messages is their largest: flagged, and the note says why
    expect(md).toMatch(
      /⚠ fewer than 10 samples \([\d,]+ messages, [\d,]+ timed receive calls that returned messages\) lie beyond this percentile/,
    );
    // the step under the latency model says so, and what the model held
    expect(md).toContain('### Batch 100 x 20/s: Batch size - 100, Rate - 20 = 2,000, Thread pool size - 2, under the latency model');
    expect(md).toMatch(/\*\*Latency model\*\* \(steps Batch 100 x 20\/s\): .*ReceiveMessage p50 30ms, p999 60ms/);
    expect(r.stderr).toMatch(/\[2\/2\] small \(trial 1\/1, Batch 100 x 20\/s\): sqs → sqs, 3 s, under the latency model … ETA/);
    expect(md).toMatch(
      /Here: \*\*inconclusive\*\* \(1 trial per step\) — `big\.messages_per_sec < small\.messages_per_sec and big\.missing == 0 and small\.missing == 0`/,
    );
    expect(md).toMatch(
      /node src\/consumer\.js --target sqs --threads 2 --endpoint http:\/\/127\.0\.0\.1:\d+ --topic rqbench-big-t1 --queue rqbench-big-t1 --create --until-complete -d 33 --warmup 0 --json --quiet --out \S+ --name consumer/,
    );
    expect(md).toMatch(
      /node src\/producer\.js --target sqs --key-size 30 --value-size 10 --batch-size 200 --rate 10 --endpoint http:\/\/127\.0\.0\.1:\d+ --topic rqbench-big-t1 --queue rqbench-big-t1 --create -d 3/,
    );
    // step.json holds the CPU measured around the step
    const meta = JSON.parse(fs.readFileSync(path.join(dir, 'runs', stamp, 'big', 'trial-1', 'step.json'), 'utf8'));
    expect(meta.cpu.emulatorPct).toBeGreaterThan(0);
    expect(meta.cpu.rqbenchPct).toBeGreaterThan(0);
    expect(meta.latencyModel).toBeUndefined();
    const under = JSON.parse(fs.readFileSync(path.join(dir, 'runs', stamp, 'small', 'trial-1', 'step.json'), 'utf8'));
    expect(under.latencyModel.model).toEqual({ ReceiveMessage: { p50Ms: 30, p999Ms: 60 } });
    // every receive went through the model; sends and deletes were counted and passed at once
    expect(under.latencyModel.drawn.ReceiveMessage.calls).toBeGreaterThan(10);
    const passed = Object.entries(under.latencyModel.drawn).filter(([action]) => action !== 'ReceiveMessage');
    expect(passed.map(([action]) => action)).toContain('SendMessage');
    for (const [action, d] of passed) expect(d.delayMs, action).toBeNull();
    expect(under.commands.join(' ')).not.toContain(`--endpoint ${meta.commands[0].match(/--endpoint (\S+)/)[1]} `);
    // no message leaves before it is due: E2E from the intended send is never shorter than from the actual one
    for (const step of ['big', 'small']) {
      const stepDir = path.join(dir, 'runs', stamp, step, 'trial-1');
      const consumer = fs.readdirSync(stepDir).find((d) => d.endsWith('-consumer'));
      const L = JSON.parse(fs.readFileSync(path.join(stepDir, consumer, 'summary.json'), 'utf8')).latency;
      for (const q of ['min', 'p50', 'p99'])
        expect(L.e2e[q], `${step} E2E ${q}: intended ${L.e2e[q]} vs sent ${L.e2eSent[q]}`).toBeGreaterThanOrEqual(L.e2eSent[q] * 0.99);
    }
    // charts over the consumers' runs: messages per second, E2E per second, the seed's metrics by percentile
    const charts = fs.readdirSync(path.join(dir, 'charts'));
    for (const name of ['throughput', 'latency', 'percentiles']) {
      expect(charts).toContain(`${name}.png`);
      const png = fs.readFileSync(path.join(dir, 'charts', `${name}.png`));
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
      expect(md).toContain(`(charts/${name}.png)`);
    }
  }, 150_000);

  it('points at a named endpoint instead of an emulator of its own', async () => {
    const sqs = await startSqs();
    try {
      const one = SPEC.replace(
        '{ queue: { emulator: sqs } }',
        `{ queue: { endpoint: "${sqs.endpoint}" }, instanceType: "an SQS endpoint" }`,
      )
        .replace(/ {2}- name: small[\s\S]*?latencyModel: [^\n]*\n/, '')
        .replace(
          'check: "big.messages_per_sec < small.messages_per_sec and big.missing == 0 and small.missing == 0"',
          'check: "big.missing == 0"',
        );
      const dir = experimentDir(one, 'queue');
      const r = await rq(['experiment', 'run', '--allow-dirty', dir]);
      expect(r.code, why(r)).toBe(0);
      expect(r.stderr).not.toMatch(/started the SQS\/SNS emulator/);
      const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
      expect(md).toMatch(/Topology: an SQS endpoint; host \d+ CPUs \(.*?\), Node v/);
      expect(md).toContain(`--endpoint ${sqs.endpoint} --topic rqbench-big-t1`);
      expect(md).toMatch(/Here: \*\*inconclusive\*\* \(1 trial per step\)/);
    } finally {
      await sqs.stop();
    }
  }, 90_000);
});
