/**
 * Delta files, as the seed's tools use them: `rqbench generate-deltas` writes N files of B
 * updates each (one `key\tvalue\n` line per update, the bodies the publisher would make), and
 * `--from-folder` publishes a folder's files as message bodies, in name order, one file per
 * message, starting over when the run needs more messages than there are files.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BodyMaker, lineProblem } from './message.js';
import { UsageError } from '../../usage-error.js';

/**
 * @param {{ dir: string, count: number, batchSize: number, keySize: number, valueSize: number }} p
 * @returns {string[]} the files written
 */
export function writeDeltas({ dir, count, batchSize, keySize, valueSize }) {
  fs.mkdirSync(dir, { recursive: true });
  const maker = new BodyMaker({ publisherId: 'delta', batchSize, keySize, valueSize });
  const width = String(count).length;
  const files = [];
  for (let i = 1; i <= count; i++) {
    const file = path.join(dir, `delta-${String(i).padStart(Math.max(6, width), '0')}.txt`);
    fs.writeFileSync(file, maker.body(i));
    files.push(file);
  }
  return files;
}

/**
 * Message bodies read from a folder's files (all read up front: a send never waits on the disk),
 * every line checked first: a line that is not `key\tvalue` is bad input, refused before
 * anything connects, so no consumer ever applies half a delta and calls it nothing lost.
 */
export class FolderBodies {
  /** @param {string} dir */
  constructor(dir) {
    let names;
    try {
      names = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isFile() && !e.name.startsWith('.'))
        .map((e) => e.name)
        .sort();
    } catch (e) {
      throw new UsageError(`--from-folder must be a readable folder of delta files (${e.code ?? e.message}: ${dir})`);
    }
    if (!names.length) throw new UsageError(`--from-folder must hold at least one delta file (none in ${dir})`);
    this.dir = dir;
    this.bodies = names.map((n) => fs.readFileSync(path.join(dir, n), 'utf8'));
    const lines = this.bodies.map((b, i) => countUpdates(b, path.join(dir, names[i])));
    if (lines.some((n) => n === 0)) throw new UsageError(`--from-folder: ${path.join(dir, names[lines.indexOf(0)])} holds no update`);
    /** Updates per message (the first file's; generate-deltas makes them all the same). */
    this.batchSize = lines[0];
    this.largestIndex = this.bodies.reduce((best, b, i) => (Buffer.byteLength(b) > Buffer.byteLength(this.bodies[best]) ? i : best), 0);
  }

  /** Body of message `seq` (1-based). @param {number} seq */
  body(seq) {
    return this.bodies[(seq - 1) % this.bodies.length];
  }

  /** The largest body: what must fit the service's limit. */
  largest() {
    return this.bodies[this.largestIndex];
  }

  get count() {
    return this.bodies.length;
  }
}

/**
 * Updates in one delta file; the first line that is not one is a UsageError naming the file and line.
 * @param {string} body
 * @param {string} file
 */
function countUpdates(body, file) {
  const lines = body.split('\n');
  let n = 0;
  for (let i = 0; i < lines.length; i++) {
    const problem = lineProblem(lines[i]);
    if (problem) throw new UsageError(`--from-folder: ${file} line ${i + 1} is not key<TAB>value (${problem})`);
    if (lines[i] !== '') n++;
  }
  return n;
}
