/**
 * HdrHistogram interval logs (.hlog), readable by HdrHistogram's own tools (Java
 * HistogramLogProcessor, hdr-histogram-js HistogramLogReader, HdrHistogram_py, Rust, Go):
 *
 *   #[<comment>]
 *   #[Values in microseconds]
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1700000000.123 (seconds since epoch), 2023-11-14T22:13:20.123Z]
 *   #[BaseTime: 1700000000.123 (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   Tag=<tag>,<start s>,<length s>,<max ms>,<base64 compressed V2 histogram>
 *
 * Interval start times are relative to BaseTime (= StartTime). The max column is informational
 * (readers ignore it): µs divided by maxValueUnitRatio 1000, i.e. milliseconds.
 */
import fs from 'node:fs';
import hdr from 'hdr-histogram-js';
import { encode, decode, newHistogram } from '../measure/histogram.js';
import { UsageError } from '../usage-error.js';

/** @typedef {import('hdr-histogram-js').Histogram} Histogram */
/**
 * @typedef {object} HlogInterval
 * @property {string|null} tag null for an untagged line
 * @property {number} startSec interval start, seconds relative to startTimeMs
 * @property {number} endSec interval end, seconds relative to startTimeMs
 * @property {Histogram} histogram values in µs
 */

/** Histogram values are µs; the max column is written in ms. */
export const MAX_VALUE_UNIT_RATIO = 1000;

// Java's reader splits on spaces and commas, so a tag may contain neither.
const TAG_RE = /^[^\s,]+$/;
const TAG_PREFIX = 'Tag=';

/** Appends one header/interval line per write(2): a crash or Ctrl-C loses at most the line in flight. */
export class HlogWriter {
  /**
   * Creates the file (refuses to overwrite an existing one: run outputs are never overwritten)
   * and writes the header.
   * @param {string} filePath
   * @param {{ startTimeMs: number, comment?: string }} options startTimeMs: epoch ms of t=0
   */
  constructor(filePath, { startTimeMs, comment }) {
    if (!Number.isFinite(startTimeMs)) throw new TypeError('HlogWriter: startTimeMs (epoch ms) is required');
    this.filePath = filePath;
    this.startTimeMs = startTimeMs;
    /** @type {number|null} */
    this.fd = fs.openSync(filePath, 'wx');
    this.#writeHeader(comment);
  }

  /** @param {string|undefined} comment */
  #writeHeader(comment) {
    /** @type {string[]} */
    const lines = [];
    // The library writer is used for the lines it gets right; StartTime is written here because
    // the library's adds a blank line and a locale date, and it has no BaseTime at all.
    const writer = new hdr.HistogramLogWriter((text) => lines.push(text));
    if (comment) for (const line of String(comment).split(/\r?\n/)) writer.outputComment(`[${line}]`);
    writer.outputComment('[Values in microseconds]');
    writer.outputLogFormatVersion();
    const sec = (this.startTimeMs / 1000).toFixed(3);
    lines.push(`#[StartTime: ${sec} (seconds since epoch), ${new Date(this.startTimeMs).toISOString()}]\n`);
    lines.push(`#[BaseTime: ${sec} (seconds since epoch)]\n`);
    writer.outputLegend();
    this.#append(lines.join(''));
  }

  /**
   * Appends one interval line. The histogram is not modified.
   * @param {Histogram} histogram values in µs
   * @param {{ tag?: string, startSec: number, endSec: number }} interval seconds relative to startTimeMs
   */
  writeInterval(histogram, { tag, startSec, endSec }) {
    if (tag !== undefined && tag !== null && !TAG_RE.test(tag)) {
      throw new RangeError(`HlogWriter: tag must be non-empty without spaces or commas: ${JSON.stringify(tag)}`);
    }
    if (!Number.isFinite(startSec) || !Number.isFinite(endSec) || endSec < startSec) {
      throw new RangeError(`HlogWriter: bad interval ${startSec}..${endSec}`);
    }
    // Same layout as Java's "%.3f,%.3f,%.3f,%s"; max like Java's getMaxValue (bucket's highest value).
    const h = /** @type {any} */ (histogram);
    const maxUs = h.totalCount > 0 ? h.highestEquivalentValue(h.maxValue) : 0;
    const fields = [startSec.toFixed(3), (endSec - startSec).toFixed(3), (maxUs / MAX_VALUE_UNIT_RATIO).toFixed(3), encode(histogram)].join(
      ',',
    );
    this.#append(tag ? `${TAG_PREFIX}${tag},${fields}\n` : `${fields}\n`);
  }

  /** Closes the file; further writes throw. Safe to call twice. */
  close() {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
  }

  /** @param {string} text */
  #append(text) {
    if (this.fd === null) throw new Error(`HlogWriter: ${this.filePath} is closed`);
    fs.writeSync(this.fd, text);
  }
}

/**
 * Reads an .hlog file. A last line cut short by a crash (no newline after it, and only the
 * characters an interval line is made of) is left out; any other line that is not a header, the
 * legend or an interval line throws, naming the file and the line.
 * @param {string} filePath
 * @returns {{ startTimeMs: number|null, intervals: HlogInterval[], lines: number, cutLine: number|null }}
 *   startTimeMs: epoch ms from #[StartTime], null when the file has none; lines, cutLine: as
 *   eachHlogInterval returns them
 */
export function readHlog(filePath) {
  /** @type {HlogInterval[]} */
  const intervals = [];
  const read = eachHlogInterval(filePath, (interval) => intervals.push(interval));
  return { ...read, intervals };
}

/** The legend line, as Java's HistogramLogWriter starts it. */
const LEGEND = '"StartTimestamp"';
/** What a cut-short line can hold: a crash ends a line anywhere, but never adds other bytes. */
const CUT_LINE_RE = /^[A-Za-z0-9+/=.,_:-]*$/;

/**
 * Reads an .hlog file one interval at a time, as readHlog does, without holding every decoded
 * histogram at once (a one-hour log has thousands of them, ~190 kB each once decoded).
 * @param {string} filePath
 * @param {(interval: HlogInterval) => void} onInterval called in file order
 * @returns {{ startTimeMs: number|null, lines: number, cutLine: number|null }} lines: how many
 *   the file has; cutLine: the cut-short last line left out, null when there is none
 * @throws {UsageError} on a line that is not a header, the legend or an interval line
 */
export function eachHlogInterval(filePath, onInterval) {
  const text = fs.readFileSync(filePath, 'utf8');
  const lines = text.split(/\r\n|\r|\n/);
  // each line is one write(2) ending in its newline: only the text after the last one can be cut
  const tailLineNo = lines.at(-1) === '' ? null : lines.length;
  /** @type {number|null} */
  let startSec = null;
  /** @type {number|null} */
  let baseSec = null;
  /** @type {{ tokens: string[], lineNo: number, raw: string }[]} */
  const pending = [];
  lines.forEach((raw, i) => {
    const line = raw.trim();
    if (line.startsWith('#[StartTime:')) startSec = parseHeaderSeconds(line);
    else if (line.startsWith('#[BaseTime:')) baseSec = parseHeaderSeconds(line);
    else if (line === '' || line.startsWith('#') || line.startsWith(LEGEND)) return;
    else pending.push({ tokens: line.split(','), lineNo: i + 1, raw });
  });
  // Timestamps are relative to BaseTime when present; otherwise Java's rule: absolute unless
  // more than a year before StartTime.
  const offsetSec = relativeOffsetSec(startSec, baseSec, pending[0]?.tokens);
  let cutLine = null;
  for (const { tokens, lineNo, raw } of pending) {
    const interval = parseIntervalLine(tokens, offsetSec);
    if (typeof interval !== 'string') onInterval(interval);
    else if (lineNo === tailLineNo && CUT_LINE_RE.test(raw)) cutLine = lineNo;
    else throw new UsageError(`${filePath}:${lineNo}: not an interval line: ${interval}`);
  }
  return { startTimeMs: startSec === null ? null : Math.round(startSec * 1000), lines: tailLineNo ?? lines.length - 1, cutLine };
}

/** @param {string} line e.g. "#[StartTime: 1700000000.123 (seconds since epoch), ...]" */
function parseHeaderSeconds(line) {
  const v = Number.parseFloat(line.split(/\s+/)[1]);
  return Number.isFinite(v) ? v : null;
}

/**
 * Seconds to add to a line's timestamp to make it relative to StartTime.
 * @param {number|null} startSec
 * @param {number|null} baseSec
 * @param {string[]|undefined} firstTokens
 */
function relativeOffsetSec(startSec, baseSec, firstTokens) {
  if (startSec === null) return 0;
  if (baseSec !== null) return baseSec === startSec ? 0 : baseSec - startSec;
  const first = firstTokens ? Number.parseFloat(firstTokens[firstTokens[0].startsWith(TAG_PREFIX) ? 1 : 0]) : 0;
  return first < startSec - 365 * 24 * 3600 ? 0 : -startSec;
}

/**
 * @param {string[]} tokens
 * @param {number} offsetSec
 * @returns {HlogInterval|string} the interval, or what is wrong with the line
 */
function parseIntervalLine(tokens, offsetSec) {
  let tag = null;
  if (tokens[0].startsWith(TAG_PREFIX)) tag = tokens.shift().slice(TAG_PREFIX.length);
  if (tokens.length !== 4)
    return `${tokens.length} field${tokens.length === 1 ? '' : 's'}${tag === null ? '' : ' after the tag'}, where 4 are expected (start, length, max, histogram)`;
  const [start, length, max, base64] = tokens;
  const ts = Number(start);
  const len = Number(length);
  // Number('') is 0: an empty field is not a zero
  if (start === '' || !Number.isFinite(ts)) return 'the start is not a number';
  if (length === '' || !(len >= 0)) return 'the length is not a number >= 0';
  if (max === '' || !Number.isFinite(Number(max))) return 'the max is not a number';
  let histogram;
  try {
    histogram = decode(base64);
  } catch {
    return 'the histogram does not decode'; // cut-off base64 or deflate stream
  }
  const startSec = roundMs(ts + offsetSec);
  return { tag, startSec, endSec: roundMs(startSec + len), histogram };
}

/** The format has ms resolution; rounding removes float noise from the sums. */
const roundMs = (sec) => Math.round(sec * 1000) / 1000;

/**
 * Exact sum of every interval with the given tag across files.
 * @param {string[]} paths
 * @param {{ tag?: string|null, fromSec?: number }} [options] tag undefined/null selects untagged
 *   lines; fromSec leaves out intervals that start earlier (a run's warm-up)
 * @returns {Histogram} values in µs
 */
export function mergeHlogFiles(paths, { tag = null, fromSec = -Infinity } = {}) {
  const wanted = tag ?? null;
  const out = newHistogram();
  for (const p of paths) {
    eachHlogInterval(p, (interval) => {
      if (interval.tag === wanted && interval.startSec >= fromSec) out.add(interval.histogram);
    });
  }
  return out;
}
