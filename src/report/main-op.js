/**
 * Which latency histogram a spectrum or a comparison is about: an operation (by default the
 * command's whole unit of work) and a tag (by default from the intended start, corrected for
 * coordinated omission, as wrk2 reports).
 */
import { bad } from '../usage-error.js';
import { histogramName } from './merge-runs.js';
import { readKind } from '../runs/kinds.js';

/**
 * @param {import('./read/run-dirs.js').RunDir[]} runs of one kind
 * @param {{ op?: string, tag?: string, opFlag: string }} want op/tag as given (empty: default);
 *   opFlag names the flag in errors
 * @returns {{ op: string, tag: string, name: string }} name: as in summaries and mergeHistograms()
 */
export function pickHistogram(runs, { op, tag, opFlag }) {
  // what each run recorded after its warm-up, as its summary lists it
  const tagsOf = new Map();
  for (const r of runs) {
    for (const [o, byTag] of Object.entries(r.recorded)) {
      const tags = tagsOf.get(o) ?? new Set();
      for (const [t, count] of Object.entries(byTag)) if (count) tags.add(t);
      tagsOf.set(o, tags);
    }
  }
  // by default the kind's whole unit of work (its mainOp: a producer's chunk, a consumer's cycle…)
  const chosen = op || readKind(runs[0].kind).mainOp;
  const tags = tagsOf.get(chosen);
  if (!tags?.size) {
    const known = [...tagsOf.keys()].filter((o) => tagsOf.get(o).size).sort();
    throw bad(
      opFlag,
      known.length
        ? `an operation these runs recorded: ${known.join(', ')}`
        : 'an operation these runs recorded (they recorded none after their warm-up)',
      chosen,
    );
  }
  // 'lag' (and a queue consumer's read, processing) has one tag of its own; a phase of a consumer cycle has only 'sent'
  const t = tag || (tags.has('intended') || tags.size > 1 ? 'intended' : [...tags][0]);
  if (!tags.has(t)) throw bad('--tag', `one of ${[...tags].sort().join(', ')} for ${chosen}`, t);
  return { op: chosen, tag: t, name: histogramName(chosen, t) };
}
