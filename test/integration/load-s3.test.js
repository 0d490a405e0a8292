// rqbench load from S3 (issue 24, point 2): a delta file written to the S3 emulator by multipart
// upload and streamed back by ranged GETs over the seed's grid of reader threads x S3 connections
// into the memory sink, every record checked to arrive exactly once; a spec step `from: s3`; bad input
// that only the object shows (bad flags and specs: test/unit/load-flags.test.js, experiment-kind-specs.test.js).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { S3Client, CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startSqs } from '../../src/local/sqs-emulator.js';
import { awsClientConfig } from '../../src/transports/aws.js';
import { CLI, describeRun, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';
import { experimentDir } from '../helpers/experiment-spec.js';
import { S3_SPEC as SPEC } from '../helpers/specs.js';
import { rqbench } from '../helpers/in-process.js';

const RECORDS = 60_000;
const SIZE = 200;
let emu;
let s3;

beforeAll(async () => {
  emu = await startSqs();
  s3 = new S3Client({ ...awsClientConfig(emu), forcePathStyle: true });
  await s3.send(new CreateBucketCommand({ Bucket: 'deltas' }));
  // not a delta file: its lines differ in length
  await s3.send(new PutObjectCommand({ Bucket: 'deltas', Key: 'torn.tsv', Body: 'k\tv\nkey2\tvalue22\n' }));
});

afterAll(async () => {
  s3?.destroy();
  await emu?.stop();
  removeTempDirs();
});

const load = async (args, timeoutMs = 60_000) => {
  const out = tempDir('rqbench-load-s3-');
  const r = await runNode([CLI, 'load', ...args, '--out', out], { timeoutMs });
  return { ...r, ...readRun(out, r.stdout) };
};

describe('rqbench load from S3', () => {
  it('--generate s3:// uploads the file in parts; the grid reads it back by ranged GETs, every record stored once in every cell', async () => {
    // 12 MB: two parts, and two ranged GETs of 8 MiB, so a thread's range and a chunk do not line up
    const g = await runNode(
      [
        CLI,
        'load',
        '--generate',
        's3://deltas/delta.tsv',
        '--endpoint',
        emu.endpoint,
        '--records',
        String(RECORDS),
        '--record-size',
        String(SIZE),
        '--json',
      ],
      { timeoutMs: 60_000 },
    );
    expect(g.code, describeRun(g)).toBe(0);
    expect(JSON.parse(g.stdout)).toMatchObject({ file: 's3://deltas/delta.tsv', records: RECORDS, bytes: RECORDS * SIZE, parts: 2 });
    const r = await load([
      's3://deltas/delta.tsv',
      '--endpoint',
      emu.endpoint,
      '--sink',
      'memory',
      '--reader-threads',
      '1,3',
      '--s3-connections',
      '3,4',
      '--json',
    ]);
    expect(r.code, describeRun(r)).toBe(0);
    const s = r.summary;
    expect(s.ok).toBe(true);
    expect(s.s3).toEqual({ endpoint: emu.endpoint, region: null });
    // the seed's order: threads vary fastest, S3 connections outermost
    expect(s.cells.map((c) => [c.threads, c.s3Connections])).toEqual([
      [1, 3],
      [3, 3],
      [1, 4],
      [3, 4],
    ]);
    for (const c of s.cells) {
      expect(c.stored, JSON.stringify(c.check)).toBe(RECORDS);
      expect(c.check.problems).toEqual([]);
      // each thread's share of the S3 connections, and the GETs it made (12 MB in 8 MiB chunks, resync reads included)
      expect(c.perThread.reduce((t, x) => t + x.s3Connections, 0)).toBe(c.s3Connections);
      for (const t of c.perThread) expect(t.gets).toBeGreaterThan(0);
      // the threads' GETs cover the object about once: a chunk each at most beyond the object's own
      expect(c.perThread.reduce((n, t) => n + t.gets, 0)).toBeLessThanOrEqual(Math.ceil((RECORDS * SIZE) / (8 << 20)) + c.threads);
      expect(c.perThread.reduce((t, x) => t + x.keys, 0)).toBe(RECORDS);
    }
    const md = fs.readFileSync(path.join(r.dir, 'summary.md'), 'utf8');
    expect(md).toContain('| data_loading_num_threads | s3client_max_connections | data loading time | num records per sec |');
    expect(md).toMatch(
      /from s3:\/\/deltas\/delta\.tsv \(S3 at http:\/\/127\.0\.0\.1:\d+\) into the memory sink; each reader thread reads its own byte range of the file by ranged GETs of 8 MiB/,
    );
    expect(md).toContain('- 3 threads x 4 S3 connections: 60,000 records read and stored once each (3 ranges tile the file).');
  }, 120_000);

  // what only the object can tell (the flags alone: test/unit/load-flags.test.js), in this process
  it.each([
    [['s3://deltas/missing.tsv', '--sink', 'memory'], /s3:\/\/deltas\/missing\.tsv: no such object/],
    [['s3://deltas/torn.tsv', '--sink', 'memory'], /not a fixed-size delta file/],
  ])('refuses %j: one line, exit 2, no run directory', async (args, says) => {
    const out = tempDir('rqbench-load-s3-');
    const ran = await rqbench(['load', ...args, '--endpoint', emu.endpoint, '--out', out]);
    const r = { ...ran, ...readRun(out, ran.stdout) };
    expect(r.code, describeRun(r)).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toMatch(says);
    expect(r.dirs).toEqual([]);
  });

  it('--generate to a bucket that does not exist says so (exit 1, nothing left)', async () => {
    const g = await runNode(
      [CLI, 'load', '--generate', 's3://nobucket/d.tsv', '--endpoint', emu.endpoint, '--records', '1000', '--quiet'],
      { timeoutMs: 30_000 },
    );
    expect(g.code, describeRun(g)).toBe(1);
    expect(g.stderr).toMatch(/cannot write s3:\/\/nobucket\/d\.tsv: no such bucket/);
  }, 60_000);
});

describe('an experiment step from S3', () => {
  it('the runner puts the file on the S3 emulator it starts and the step reads it from there', async () => {
    const dir = experimentDir(SPEC, 'load-s3');
    const r = await runNode([CLI, 'experiment', 'run', '--allow-dirty', dir], { timeoutMs: 120_000 });
    expect(r.code, describeRun(r)).toBe(0);
    expect(r.stderr).toMatch(/put the delta file on the S3 emulator as s3:\/\/rqbench-deltas\/rqbench-delta-30000x100\.tsv \(1 parts\)/);
    expect(r.stderr).toMatch(
      /\[1\/1\] s3 done in [\d.]+ s: best [\d,]+ records\/s \(\d threads x 2 S3 connections\), 2 cells, each exactly once/,
    );
    const md = fs.readFileSync(path.join(dir, 'RESULTS.md'), 'utf8');
    expect(md).toMatch(
      /node src\/cli\.js load s3:\/\/rqbench-deltas\/rqbench-delta-30000x100\.tsv --sink memory --reader-threads 1,2 --s3-connections 2 --endpoint http:\/\/127\.0\.0\.1:\d+/,
    );
    expect(md).toContain('| data_loading_num_threads | s3client_max_connections | data loading time | num records per sec |');
  }, 150_000);
});
