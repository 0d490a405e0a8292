/**
 * The run directories `rqbench report` reads: finished runs as readRunDirs reads them, and, only
 * here, producer runs that were killed before their end (stopped-run.js), so that the writers of
 * one run merge when a host was lost. compare and chart keep reading finished runs only: a stopped
 * run beside a finished one is not a comparison, and its charts would end without saying why.
 */
import { readRunDir, readRunDirs } from './run-dirs.js';
import { isStoppedRunDir, readStoppedRun } from './stopped-run.js';

/**
 * @typedef {import('./run-dirs.js').RunDir & { stopped?: import('./stopped-run.js').Stopped }} ReportRun
 */

/**
 * @param {string[]} dirs
 * @returns {ReportRun[]} all of one kind, none twice
 */
export function readReportDirs(dirs) {
  return readRunDirs(dirs, (d) => (isStoppedRunDir(d) ? readStoppedRun(d) : readRunDir(d)));
}
