/** `rqbench load`: generate a delta file, or load one with a grid of reader threads x connections (seed 001); either may be in S3. */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { connectionOptions } from '../plans/connection.js';
import { LOAD_ONLY, loadOptions, loadPlan } from '../plans/load-plan.js';
import { outputOptions } from '../plans/output.js';
import { metricsOptions } from '../plans/metrics-plan.js';
import { bad, givenFlags, intIn, UsageError } from '../usage-error.js';
import { generateDeltaFile, INDEX_MARK, keyOf, patternParts } from '../workloads/bulk-load/delta-file.js';
import { runLoad } from '../workloads/bulk-load/run-load.js';
import { inspectS3Delta, parseS3Url, uploadToS3 } from '../workloads/bulk-load/s3-source.js';
import { reportRun } from './report-run.js';
import { grouped } from '../record/format.js';
import { fsReason, isFsError } from '../record/run-dir.js';
import { setExitCode, writeErr, writeOut } from '../command-io.js';

export const command = 'load [file]';
export const describe = 'load one delta file with parallel reader threads into Redis or a noop/memory sink (seed 001 grid)';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return loadOptions(
    outputOptions(metricsOptions(connectionOptions(y))).positional('file', {
      type: 'string',
      describe: 'the delta file to load: a path, or s3://bucket/key',
    }),
  )
    .example('rqbench load --generate /tmp/delta.tsv', '4,000,000 records of 512 bytes')
    .example('rqbench load /tmp/delta.tsv --sink noop --reader-threads 1,2,4 --connections 1', 'reading and parsing alone')
    .example(
      'rqbench load /tmp/delta.tsv --local --reader-threads 16,32,64 --connections 64,128',
      "the seed's grid against a throwaway Redis",
    )
    .example(
      'rqbench load --generate s3://deltas/delta.tsv --endpoint http://127.0.0.1:4566',
      'the same file written to S3 (multipart upload; the bucket must exist)',
    )
    .example(
      'rqbench load s3://deltas/delta.tsv --endpoint http://127.0.0.1:4566 --sink memory --reader-threads 16,32,64 --s3-connections 64,128',
      "the seed's own grid: streamed from S3 into an in-memory cache",
    );
}

/** @param {Record<string, any>} a */
export function handler(a) {
  if (a.generate !== undefined) return generate(a);
  return reportRun(
    async () => {
      const plan = loadPlan(a);
      return runLoad(plan.s3 && !plan.info ? Object.freeze({ ...plan, info: await s3Info(plan) }) : plan);
    },
    a,
    'rqbench load',
  );
}

/**
 * What the object in S3 holds; a missing object or bucket is the user's input (exit 2).
 * @param {Readonly<Record<string, any>>} plan
 */
async function s3Info(plan) {
  try {
    return await inspectS3Delta(plan.file, plan.s3);
  } catch (e) {
    if (/no such object|NoSuchBucket|NoSuchKey|not a (fixed-size )?delta file|is empty/.test(e.message)) throw new UsageError(e.message);
    throw e;
  }
}

/** --generate: writes the file, prints one line. */
function generate(a) {
  try {
    intIn(a.records, '--records', 1, 2 ** 31);
    intIn(a.recordSize, '--record-size', 8, 1 << 20);
    const given = givenFlags(a);
    const stray = given && Object.keys(LOAD_ONLY).find((k) => given.has(k));
    if (stray) throw new UsageError(`${LOAD_ONLY[stray]} is for loading a FILE (--generate writes one and exits)`);
    const pattern = String(a.keyPattern);
    if (!patternParts(pattern))
      throw bad(
        '--key-pattern',
        `a key with ${INDEX_MARK} (or {n:W}, zero-padded to W digits, W from 1 to 99) once in it (the record's index)`,
        pattern,
      );
    if (/[\t\n\r]/.test(pattern) || Buffer.byteLength(pattern) !== pattern.length)
      throw bad('--key-pattern', 'ASCII without TAB or line breaks', pattern);
    const longest = Buffer.byteLength(keyOf(pattern, a.records - 1));
    if (longest + 3 > a.recordSize)
      throw bad(
        '--record-size',
        `at least ${longest + 3} for keys like ${keyOf(pattern, a.records - 1)} (key, TAB, one value byte, LF)`,
        a.recordSize,
      );
    if (a.file !== undefined) throw new UsageError('--generate writes a file and exits: load it with a second command');
    if (/^s3:/i.test(String(a.generate)) && !parseS3Url(a.generate))
      throw bad(
        '--generate',
        's3://bucket/key (a bucket name of 3 to 63 lower-case letters, digits, dots and hyphens, then the key), or a path',
        a.generate,
      );
  } catch (e) {
    writeErr(`rqbench load: ${e.message}\n`);
    setExitCode(2);
    return;
  }
  if (parseS3Url(a.generate)) return generateToS3(a);
  try {
    const r = generateDeltaFile({
      file: a.generate,
      records: a.records,
      recordSize: a.recordSize,
      keyPattern: String(a.keyPattern),
      onProgress: a.quiet ? undefined : (n) => writeErr(`generating: ${grouped(n)} of ${grouped(a.records)} records\n`),
    });
    const line = {
      file: a.generate,
      records: a.records,
      recordSize: a.recordSize,
      keyPattern: a.keyPattern,
      bytes: r.bytes,
      seconds: Math.round(r.ms) / 1000,
    };
    if (a.json) writeOut(`${JSON.stringify(line)}\n`);
    else if (!a.quiet)
      writeOut(
        `wrote ${a.generate}: ${grouped(a.records)} records of ${a.recordSize} bytes (${(r.bytes / 2 ** 20).toFixed(0)} MiB) in ${line.seconds.toFixed(2)} s\n`,
      );
  } catch (e) {
    // what the write made is gone already (delta-file.js): nothing here removes a path the user named
    writeErr(
      `rqbench load: cannot write ${a.generate}: ${e.code === 'ENOENT' ? 'no such directory (ENOENT)' : isFsError(e) ? fsReason(e) : e.message}\n`,
    );
    setExitCode(1);
  }
}

/**
 * --generate s3://bucket/key: the file is written locally (a directory of its own in the OS temp
 * dir, so nothing else is ever removed with it), uploaded in parts, then removed; one line says what was written.
 * @param {Record<string, any>} a
 */
async function generateToS3(a) {
  /** @type {string|null} */
  let tmpDir = null;
  const where = { ...(a.endpoint && { endpoint: String(a.endpoint) }), ...(a.region && { region: String(a.region) }) };
  try {
    tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-delta-upload-'));
    const tmp = path.join(tmpDir, 'delta.tsv');
    const r = generateDeltaFile({ file: tmp, records: a.records, recordSize: a.recordSize, keyPattern: String(a.keyPattern) });
    const t0 = performance.now();
    const up = await uploadToS3(
      tmp,
      a.generate,
      where,
      a.quiet ? undefined : (n) => writeErr(`uploading: ${(n / 2 ** 20).toFixed(0)} of ${(r.bytes / 2 ** 20).toFixed(0)} MiB\n`),
    );
    const line = {
      file: a.generate,
      records: a.records,
      recordSize: a.recordSize,
      keyPattern: a.keyPattern,
      bytes: r.bytes,
      parts: up.parts,
      seconds: Math.round(r.ms + performance.now() - t0) / 1000,
    };
    if (a.json) writeOut(`${JSON.stringify(line)}\n`);
    else if (!a.quiet)
      writeOut(
        `wrote ${a.generate}: ${grouped(a.records)} records of ${a.recordSize} bytes (${(r.bytes / 2 ** 20).toFixed(0)} MiB, ${up.parts} parts) in ${line.seconds.toFixed(2)} s\n`,
      );
  } catch (e) {
    writeErr(
      `rqbench load: cannot write ${a.generate}: ${e.name === 'NoSuchBucket' ? 'no such bucket (create it first)' : (e.code ?? e.message)}\n`,
    );
    setExitCode(1);
  } finally {
    if (tmpDir) fs.rmSync(tmpDir, { recursive: true, force: true });
  }
}
