/**
 * The files of a run directory agree with its summary.json: the timeline and the .hlog files
 * hold every second and every value the summary counted. A file cut short or emptied would
 * otherwise give a report with smaller numbers than the run's own, and no word about it.
 */
import { UsageError, fileReason } from '../../usage-error.js';
import { eachHlogInterval } from '../../record/hlog.js';
import { readKind } from '../../runs/kinds.js';

/**
 * The timeline holds the columns its kind needs (runs/<kind>/) and, in the summary's window, as many seconds as
 * the summary counted: fewer means rows were lost, and every figure recomputed from it would be off.
 * @param {string} file
 * @param {import('../../record/timeline.js').TimelineFile} timeline
 * @param {string} kind
 * @param {{ fromSecond: number, toSecond: number }} window from runs/kinds.js's windowOf
 * @param {number} counted the seconds summary.json counts in it (a queue run's last may be a part
 *   of one: its row is there all the same)
 */
export function checkTimeline(file, timeline, kind, { fromSecond, toSecond }, counted) {
  const { rows, words } = readKind(kind);
  const missing = rows.needed.find((c) => !timeline.columns.includes(c));
  if (missing) throw new UsageError(`${file}:1: no ${missing} column: not a ${words} run's timeline`);
  const seconds = Math.ceil(counted);
  // readTimeline checked: a whole number
  const inWindow = timeline.rows.filter(
    (r) => /** @type {number} */ (r.second) >= fromSecond && /** @type {number} */ (r.second) < toSecond,
  ).length;
  if (inWindow !== seconds) {
    throw new UsageError(
      `${file}: ${inWindow} rows in seconds ${fromSecond} to ${toSecond}, where summary.json's window has ${seconds} (the file has ${timeline.lines} lines)`,
    );
  }
}

/**
 * Reads every .hlog once: a line that is not an interval throws, naming the file and line; and
 * each tag must hold at least the values the summary counted from its window's start (it counts
 * [fromSecond, toSecond), an older rqbench everything after fromSecond): fewer means the file
 * was cut short. A last line cut by a crash is left out; it is refused here only when the
 * summary counted its values.
 * @param {string} dir
 * @param {Map<string, string>} hlogs
 * @param {{ fromSecond: number }} window from runs/kinds.js's windowOf
 * @param {Record<string, Record<string, number>>} recorded op → tag → values the summary counted
 */
export function checkHlogs(dir, hlogs, { fromSecond: from }, recorded) {
  for (const [op, file] of hlogs) {
    /** @type {Map<string|null, number>} */
    const counts = new Map();
    const read = readable(file, () =>
      eachHlogInterval(file, (iv) => {
        if (iv.startSec >= from) counts.set(iv.tag, (counts.get(iv.tag) ?? 0) + iv.histogram.totalCount);
      }),
    );
    if (read.lines === 0) throw new UsageError(`${file}: empty (an HdrHistogram log starts with its header)`);
    if (read.startTimeMs === null) throw new UsageError(`${file}: no #[StartTime: …] line: not an HdrHistogram log written by rqbench`);
    for (const [tag, count] of Object.entries(recorded[op] ?? {})) {
      const have = counts.get(tag) ?? 0;
      if (have >= count) continue;
      const end = read.cutLine ? `line ${read.cutLine} is cut short` : `the file ends at line ${read.lines}`;
      throw new UsageError(`${file}: ${have} values tagged ${tag} from second ${from} on, where summary.json counts ${count}: ${end}`);
    }
  }
  for (const [op, byTag] of Object.entries(recorded)) {
    const counted = Object.values(byTag).reduce((n, c) => n + c, 0);
    if (counted && !hlogs.has(op)) throw new UsageError(`${dir}: no ${op}.hlog, where summary.json has ${counted} ${op} values`);
  }
}

/**
 * Runs a read; a file-system error (a directory where a file should be, no permission) becomes
 * a usage error naming the file.
 * @template T
 * @param {string} file
 * @param {() => T} read
 * @returns {T}
 */
export function readable(file, read) {
  try {
    return read();
  } catch (e) {
    const err = /** @type {NodeJS.ErrnoException} */ (e);
    if (typeof err?.code === 'string' && typeof err.syscall === 'string')
      throw new UsageError(`${file}: cannot be read (${fileReason(err)})`);
    throw e;
  }
}
