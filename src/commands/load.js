/** `rqbench load`: generate a delta file, or load one with a grid of reader threads x connections (seed 001). */
import fs from 'node:fs';
import { connectionOptions } from '../plans/connection.js';
import { loadOptions, loadPlan } from '../plans/load-plan.js';
import { outputOptions } from '../plans/output.js';
import { metricsOptions } from '../plans/metrics-plan.js';
import { bad, intIn, UsageError } from '../usage-error.js';
import { generateDeltaFile, INDEX_MARK, keyOf } from '../workloads/bulk-load/delta-file.js';
import { runLoad } from '../workloads/bulk-load/run-load.js';
import { reportRun } from './report-run.js';
import { grouped } from '../results/format.js';

export const command = 'load [file]';
export const describe = 'load one delta file with parallel reader threads into Redis or a noop/memory sink (seed 001 grid)';


/** @param {import('yargs').Argv} y */
export function builder(y) {
  return loadOptions(outputOptions(metricsOptions(connectionOptions(y)))
    .positional('file', { type: 'string', describe: 'the delta file to load' }))
    .example('rqbench load --generate /tmp/delta.tsv', '4,000,000 records of 512 bytes')
    .example('rqbench load /tmp/delta.tsv --sink noop --reader-threads 1,2,4 --connections 1', 'reading and parsing alone')
    .example('rqbench load /tmp/delta.tsv --local --reader-threads 16,32,64 --connections 64,128', "the seed's grid against a throwaway Redis");
}

/** @param {Record<string, any>} a */
export function handler(a) {
  if (a.generate !== undefined) return generate(a);
  return reportRun(async () => {
    return runLoad(loadPlan(a));
  }, a, 'rqbench load');
}


/** --generate: writes the file, prints one line. */
function generate(a) {
  try {
    intIn(a.records, '--records', 1, 2 ** 31);
    intIn(a.recordSize, '--record-size', 8, 1 << 20);
    const pattern = String(a.keyPattern);
    if (pattern.split(INDEX_MARK).length !== 2) throw bad('--key-pattern', `a key with ${INDEX_MARK} once in it (the record's index)`, pattern);
    if (/[\t\n\r]/.test(pattern) || Buffer.byteLength(pattern) !== pattern.length) throw bad('--key-pattern', 'ASCII without TAB or line breaks', pattern);
    const longest = Buffer.byteLength(keyOf(pattern, a.records - 1));
    if (longest + 3 > a.recordSize) throw bad('--record-size', `at least ${longest + 3} for keys like ${keyOf(pattern, a.records - 1)} (key, TAB, one value byte, LF)`, a.recordSize);
    if (a.file !== undefined) throw new UsageError('--generate writes a file and exits: load it with a second command');
  } catch (e) {
    process.stderr.write(`rqbench load: ${e.message}\n`);
    process.exitCode = 2;
    return;
  }
  try {
    const r = generateDeltaFile({
      file: a.generate, records: a.records, recordSize: a.recordSize, keyPattern: String(a.keyPattern),
      onProgress: a.quiet ? undefined : (n) => process.stderr.write(`generating: ${grouped(n)} of ${grouped(a.records)} records\n`),
    });
    const line = { file: a.generate, records: a.records, recordSize: a.recordSize, keyPattern: a.keyPattern, bytes: r.bytes, seconds: Math.round(r.ms) / 1000 };
    if (a.json) process.stdout.write(`${JSON.stringify(line)}\n`);
    else if (!a.quiet) process.stdout.write(`wrote ${a.generate}: ${grouped(a.records)} records of ${a.recordSize} bytes (${(r.bytes / 2 ** 20).toFixed(0)} MiB) in ${line.seconds.toFixed(2)} s\n`);
  } catch (e) {
    fs.rmSync(a.generate, { force: true });
    process.stderr.write(`rqbench load: cannot write ${a.generate}: ${e.code ?? e.message}\n`);
    process.exitCode = 1;
  }
}
