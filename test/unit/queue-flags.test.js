// Bad input to the queue publisher and consumer (`--target sqs|sns|pubsub`): one line, exit 2,
// nothing written. The commands run in this process; test/integration/queues.test.js runs them on
// the emulators, and queue-faults.test.js refuses what needs a live queue to check.
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { readRun, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { seedScript } from '../helpers/in-process.js';

afterAll(() => removeTempDirs());

/** `node src/producer.js --target …` with --json into a fresh --out, in this process. */
async function publish(args) {
  const out = tempDir('rqbench-pub-');
  const r = await seedScript('producer.js', [...args, '--json', '--out', out]);
  return { ...r, ...readRun(out, r.stdout) };
}

/** `node src/consumer.js --target …` with --json into a fresh --out, in this process. */
async function consumeQueue(args) {
  const out = tempDir('rqbench-con-');
  const r = await seedScript('consumer.js', ['--wait-seconds', '1', ...args, '--json', '--out', out]);
  return { ...r, ...readRun(out, r.stdout) };
}

describe('bad input', () => {
  it('one line, exit 2', async () => {
    const c = await consumeQueue(['--target', 'sqs', '--cache', 'redis']);
    expect(c.code).toBe(2);
    expect(c.stderr.trim().split('\n')).toHaveLength(1);
    const p = await publish(['--target', 'sqs', '--batch-size', '7000']);
    expect(p.code).toBe(2);
    expect(p.stderr).toMatch(/--batch-size 7000 makes [\d,]+-byte messages; sqs allows 262,144 bytes/);
  });

  it('--delete-when: one of its two orders, and only with --target sqs', async () => {
    const odd = await consumeQueue(['--target', 'sqs', '--delete-when', 'never']);
    expect(odd.code).toBe(2);
    expect(odd.stderr).toBe('consumer.js: --delete-when must be one of after-apply, before-apply (got "never")\n');
    expect(odd.dirs).toEqual([]);
    const elsewhere = await consumeQueue(['--target', 'pubsub', '--delete-when', 'before-apply']);
    expect(elsewhere.code).toBe(2);
    expect(elsewhere.stderr).toBe('consumer.js: --delete-when must be used with --target sqs (it is an SQS poller setting)\n');
  });

  it('a --from-folder that does not exist', async () => {
    const bad = await publish([
      '--target',
      'sqs',
      '--endpoint',
      'http://127.0.0.1:9',
      '--queue',
      'folder',
      '--from-folder',
      path.join(tempDir('rqbench-deltas-'), 'nope'),
      '-d',
      '1',
    ]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--from-folder');
  });
});
