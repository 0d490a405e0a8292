/**
 * Statistics over repeated trials (one number per trial, a trial being one whole run): pure
 * numbers, no I/O. See docs/experiments.md, "Trials, intervals and verdicts".
 */
export { describe, finite } from './describe.js';
export { mannWhitney } from './mann-whitney.js';
export { changeInterval } from './change.js';
export { signTest, holm } from './tests.js';
export { trialWarnings, kendall } from './warnings.js';
export { compareGroups, noiseWords, smallestP } from './groups.js';
