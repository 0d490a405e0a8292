/**
 * Percentiles of each second from an .hlog file: every interval line is one second of one tag
 * (run-recorder.js writes them so), and its percentiles are that second's. The file is read one
 * interval at a time and only a second's histograms are held at once: an hour's log decoded
 * whole would take gigabytes.
 */
import { eachHlogInterval } from '../../record/hlog.js';

/**
 * @typedef {object} SecondStats one second of one tag, values in ms
 * @property {number} second the interval's start, seconds from the run's start
 * @property {string|null} tag
 * @property {number} count values recorded that second
 * @property {number} p50
 * @property {number} p99
 * @property {number} p999
 * @property {number} max
 */

/**
 * @param {string} file an .hlog file (values in µs)
 * @param {(tag: string|null) => boolean} [wanted] the tags to read (default: all)
 * @returns {SecondStats[]} in second order, then in the order tags first appear in the file
 */
export function secondStats(file, wanted = () => true) {
  /** @type {SecondStats[]} */
  const out = [];
  /** @type {Map<string|null, import('hdr-histogram-js').Histogram>} the open second's histograms by tag */
  let open = new Map();
  let openSecond = -Infinity;
  const flush = () => {
    for (const [tag, h] of open) out.push(statsOf(openSecond, tag, h));
    open = new Map();
  };
  eachHlogInterval(file, (iv) => {
    if (!wanted(iv.tag)) return;
    const second = Math.round(iv.startSec);
    if (second !== openSecond) {
      flush();
      openSecond = second;
    }
    // two lines of one second and tag (never written by rqbench, but allowed by the format) add up
    const had = open.get(iv.tag);
    if (had) had.add(iv.histogram);
    else open.set(iv.tag, iv.histogram);
  });
  flush();
  return out.sort((a, b) => a.second - b.second);
}

/**
 * @param {number} second
 * @param {string|null} tag
 * @param {import('hdr-histogram-js').Histogram} h values in µs
 * @returns {SecondStats}
 */
function statsOf(second, tag, h) {
  const ms = (p) => h.getValueAtPercentile(p) / 1000;
  return {
    second,
    tag,
    count: h.totalCount,
    p50: ms(50),
    p99: ms(99),
    p999: ms(99.9),
    max: /** @type {any} */ (h).highestEquivalentValue(h.maxValue) / 1000,
  };
}
