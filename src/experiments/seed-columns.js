/**
 * `seedColumns:` in a spec: for each column of the seed's table that RESULTS.md puts a figure
 * beside, whether rqbench measures the same quantity or something stands in for it ("stand-in:
 * the SQS emulator for AWS SQS"), so that no seed figure stands beside a different quantity
 * unlabelled. Read when the spec is loaded; printed under the notes.
 */
import { mdTable } from '../results/format.js';

const SAID = /^(same quantity|stand-in:)/i;

/**
 * @param {unknown} v the spec's `seedColumns:` value
 * @param {(msg: string) => Error} problem
 * @returns {Array<[string, string]>|null} [seed column, what stands here], in the spec's order
 */
export function readSeedColumns(v, problem) {
  if (v === undefined) return null;
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.keys(v).length) {
    throw problem('seedColumns must map each seed column to "same quantity …" or "stand-in: X for the seed\'s Y"');
  }
  return Object.entries(v).map(([column, said]) => {
    if (typeof said !== 'string' || !SAID.test(said.trim())) {
      throw problem(`seedColumns.${column} must start with "same quantity" or "stand-in:" (got ${JSON.stringify(said)})`);
    }
    return [column, said.trim()];
  });
}

/**
 * @param {Array<[string, string]>|null} columns
 * @returns {string[]} RESULTS.md lines
 */
export function seedColumnsSection(columns) {
  if (!columns) return [];
  return ['What stands beside each of the seed\'s columns:', '', mdTable(['Seed column', 'Here'], columns.map(([c, s]) => [c, s])), ''];
}
