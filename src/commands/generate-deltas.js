/** `rqbench generate-deltas`: N delta files of B updates each, for `produce --from-folder` (the seed's data generator). */
import { bad, intIn } from '../usage-error.js';
import { queueDefaults } from '../plans/queue-plan.js';
import { writeDeltas } from '../workloads/queue-updates/delta-folder.js';
import { printOutput } from './report-run.js';
import { checkOutput } from '../plans/output.js';

export const command = 'generate-deltas';
export const describe = 'write N delta files of B key/value updates each, for produce --target … --from-folder';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return y
    .option('out', {
      alias: 'o',
      type: 'string',
      requiresArg: true,
      demandOption: true,
      describe: 'folder to write the files into (created if missing)',
    })
    .option('count', { alias: 'n', type: 'number', requiresArg: true, default: 10, describe: 'files (deltas) to write' })
    .option('batch-size', { type: 'number', requiresArg: true, default: queueDefaults.batchSize, describe: 'updates per file' })
    .option('key-size', { type: 'number', requiresArg: true, default: queueDefaults.keySize, describe: 'characters per key' })
    .option('value-size', { type: 'number', requiresArg: true, default: queueDefaults.valueSize, describe: 'characters per value' })
    .example('rqbench generate-deltas --out deltas -n 100 --batch-size 500', '100 files of 500 updates')
    .example('rqbench produce --target sqs --create --from-folder deltas --rate 45', 'publish them');
}

/** @param {Record<string, any>} a */
export function handler(a) {
  printOutput('rqbench generate-deltas', () => {
    if (!String(a.out).trim()) throw bad('--out', 'a folder');
    // a path that exists and is no directory (/dev/null), or one nobody may write, is named here, not by mkdir
    checkOutput({ out: a.out });
    intIn(a.count, '--count', 1, 10_000_000);
    intIn(a.batchSize, '--batch-size', 1, 10_000_000);
    intIn(a.keySize, '--key-size', 8, 1024);
    intIn(a.valueSize, '--value-size', 1, 1_000_000);
    const files = writeDeltas({ dir: a.out, count: a.count, batchSize: a.batchSize, keySize: a.keySize, valueSize: a.valueSize });
    return `wrote ${files.length} delta files of ${a.batchSize} updates to ${a.out}\n`;
  });
}
