/**
 * The CPU of a server inside the runner's own process (the SQS/SNS/S3 emulator, fauxqs) over parts
 * of a step: a load step's grid runs its cells one after another in one child process, and the
 * step's whole-step figure would average a cell that starves the emulator with one that idles it.
 * The runner samples its own CPU time while the step runs; each cell's share comes from the
 * samples around its window (the load's own wall-clock window, summary.json cells[].window).
 */

/** How often the runner reads its own CPU time while a step runs, ms. */
const EVERY_MS = 200;

/** @typedef {Array<[number, number]>} CpuSamples [epoch ms, CPU seconds so far] */

/**
 * Samples `read()` every EVERY_MS until stop() is called.
 * @param {() => number} read CPU seconds so far
 * @returns {{ stop: () => CpuSamples }}
 */
export function sampleCpu(read) {
  /** @type {CpuSamples} */
  const samples = [[Date.now(), read()]];
  const timer = setInterval(() => samples.push([Date.now(), read()]), EVERY_MS);
  return {
    stop: () => {
      clearInterval(timer);
      samples.push([Date.now(), read()]);
      return samples;
    },
  };
}

/**
 * CPU seconds so far at `at`, on the line between the samples around it (null outside them).
 * @param {CpuSamples} samples in time order
 * @param {number} at epoch ms
 * @returns {number|null}
 */
function cpuAt(samples, at) {
  if (!samples.length || at < samples[0][0] || at > samples[samples.length - 1][0]) return null;
  for (let i = 1; i < samples.length; i++) {
    const [t1, c1] = samples[i];
    if (at <= t1) {
      const [t0, c0] = samples[i - 1];
      return t1 === t0 ? c1 : c0 + ((c1 - c0) * (at - t0)) / (t1 - t0);
    }
  }
  return samples[samples.length - 1][1];
}

/**
 * % of one core used between two instants, or null when the samples do not cover them.
 * @param {CpuSamples} samples
 * @param {number} from epoch ms
 * @param {number} to epoch ms
 * @returns {number|null}
 */
export function cpuPctBetween(samples, from, to) {
  const [a, b] = [cpuAt(samples, from), cpuAt(samples, to)];
  if (a === null || b === null || !(to > from)) return null;
  return Math.round(((b - a) / ((to - from) / 1000)) * 1000) / 10;
}
