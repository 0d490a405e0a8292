/**
 * What a run's noise sentinels saw (measure/host-noise.js), in its summary: the figures a reader
 * needs to trust the run's own (outside CPU, steal, load), and "noisy" when something else on the
 * host took enough CPU to move them.
 */

/**
 * The summary's `noise`: the record without its seconds (those stay in manifest.json).
 * @param {import('../../measure/host-noise.js').NoiseRecord} n
 */
export function noiseBrief(n) {
  const { seconds: _seconds, ...brief } = n;
  return brief;
}

/**
 * One line for summary.md.
 * @param {import('../../measure/host-noise.js').NoiseRecord|Record<string, any>} n
 * @returns {string}
 */
export function noiseLine(n) {
  if (!n.available) return 'Host noise: not measured (no /proc here).';
  const what = `other processes on this host took ${n.outsidePct}% of a core on average (busiest second ${n.outsideMaxPct}%), CPU steal ${n.stealPct}%, load average up to ${n.load1Max ?? '-'} on ${n.cores} cores`;
  return n.noisy
    ? `**Noisy run**: ${what} — at or above ${n.thresholdPct}%, enough to move this run's figures; re-run it on a quiet host before comparing.`
    : `Host noise: ${what} (quiet: noisy at ${n.thresholdPct}% and above).`;
}
