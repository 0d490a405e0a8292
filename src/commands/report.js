/**
 * `rqbench report <run-dir…>`: merges the run directories of one run (writers or readers run as
 * separate processes, on one host or several; queue publishers, or consumers of one queue)
 * exactly and prints the summary, the merged timeline, or wrk2's percentile spectrum of one operation.
 */
import fs from 'node:fs';
import path from 'node:path';
import { UsageError, bad } from '../usage-error.js';
import { readReportDirs } from '../report/read/report-dirs.js';
import { mergeHistograms, mergeRuns } from '../report/merge-runs.js';
import { renderMergedMd, summarizeMerged } from '../report/merged-summary.js';
import { mergedTimelineCsv } from '../report/merged-csv.js';
import { pickHistogram } from '../report/main-op.js';
import { percentileSpectrum } from '../report/spectrum.js';
import { printOutput } from './report-run.js';
import { checkHtmlFile } from '../plans/output.js';
import { runReportHtml } from '../report/html/html-run-report.js';
import { writeHtml } from '../report/html/html-page.js';
import { writeErr } from '../command-io.js';

const PROG = 'rqbench report';
const FORMATS = ['md', 'json', 'csv'];

export const command = 'report [dirs..]';
export const describe =
  'merge run directories exactly (writers, readers, queue publishers or consumers, hosts of one run) and print the summary';

/** @param {import('yargs').Argv} y */
export function builder(y) {
  return y
    .positional('dirs', {
      type: 'string',
      array: true,
      default: undefined,
      describe:
        'run directories (each with manifest.json, timeline.csv, summary.json and .hlog files; a producer or consumer run killed before its end, without summary.json, or whose summary could not be saved, is read up to its last second and named, exit 1)',
    })
    .option('format', {
      alias: 'f',
      type: 'string',
      requiresArg: true,
      describe: 'md (the summary), json (summary.json merged) or csv (the merged timeline, one row per second)',
      defaultDescription: 'md',
    })
    .option('spectrum', {
      type: 'string',
      describe: "print an operation's HdrHistogram percentile spectrum as wrk2 does (ms)",
      defaultDescription: 'batch (producer), cycle (consumer), publish (queue publisher), e2e (queue consumer), all (kv)',
    })
    .option('html', {
      type: 'string',
      describe:
        'also write the report as one HTML page that opens offline (summary, timeline with hover and zoom, CPU per node, percentile spectrum): to FILE.html, or with no value to <dir>/report.html (one directory) or <first dir>/report-merged-<run id>.html (several, merged: written unless --no-html)',
    })
    .option('tag', {
      type: 'string',
      requiresArg: true,
      describe: 'with --spectrum: intended (from the intended start, corrected) or sent (from the actual send, uncorrected)',
      defaultDescription: 'intended',
    })
    .example('$0 report hostA/runs/<run>-a1 hostB/runs/<run>-a2', 'writers 1 and 2 of one run, run on two hosts, as one result')
    .example('$0 report <dir> <dir> --format csv > timeline.csv', 'the merged timeline, one row per second')
    .example('$0 report <dir> --html', 'the run as <dir>/report.html: open it in a browser')
    .example('$0 report A/<run>-a1 B/<run>-a2 --no-html', 'a merged run without its page (written into A/<run>-a1 otherwise)')
    .example('$0 report <dir> --spectrum', 'the batch, cycle, publish or E2E latency spectrum, as wrk2 prints it')
    .example(
      '$0 report <consume-dir-1> <consume-dir-2>',
      "two queue consumers of one queue as one: the seed's table from the merged histograms",
    )
    .example('$0 report --spectrum setex --tag sent <dir>', 'one command kind, uncorrected');
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export async function handler(a) {
  printOutput(PROG, () => report(a));
}

/**
 * @param {Record<string, any>} a
 * @returns {{ text: string, exitCode: number }} what goes to stdout; exit 1 when a run stopped
 *   before its end (a writer killed, a host lost: stopped-run.js), 0 otherwise
 */
function report(a) {
  // optional for yargs, so that `report --spectrum <dir>` reaches the check below
  // with no default, yargs may hand a stray undefined for an empty variadic positional
  const dirs = (a.dirs ?? []).filter((d) => d !== undefined);
  let spectrum = a.spectrum;
  // `report --spectrum dirA dirB` hands dirA to --spectrum: a run directory (or a path, which no
  // operation's name is) is not an operation, and is checked as the directory it was meant to be
  if (spectrum && (/[/\\]/.test(spectrum) || fs.existsSync(path.join(spectrum, 'manifest.json')))) {
    dirs.unshift(spectrum);
    spectrum = '';
  }
  // `report --html dirA` hands dirA to --html: a value that is not an .html file is a directory
  let html = a.html;
  if (html && !/\.html?$/i.test(html)) {
    dirs.unshift(html);
    html = '';
  }
  const format = a.format ?? 'md';
  if (!FORMATS.includes(format)) throw bad('--format', FORMATS.join(', '), format);
  if (spectrum !== undefined && a.format !== undefined) throw bad('--format', "left out with --spectrum (it prints wrk2's text layout)");
  if (a.tag !== undefined && spectrum === undefined) throw bad('--tag', 'used with --spectrum');
  if (typeof html === 'string' && spectrum !== undefined) throw bad('--html', 'left out with --spectrum (the page has the spectrum)');
  // a merged run gets its page unasked (--no-html: not); one directory, when asked
  const asked = typeof html === 'string';
  const wanted = asked || (html === undefined && dirs.length > 1 && spectrum === undefined);
  const runs = readReportDirs(dirs);
  const stopped = runs.filter((r) => r.stopped).map((r) => r.dir);
  // the page is drawn from finished runs only: asked for, that is bad input; unasked, a line
  if (stopped.length && asked) throw bad('--html', `left out when a run stopped before its end (${stopped[0]}: no summary.json)`);
  if (stopped.length && wanted)
    writeErr(`rqbench report: the HTML page is left out (${stopped[0]} stopped before its end); --no-html says so quietly\n`);
  const htmlFile = wanted && !stopped.length ? pageFile(asked && html ? html : defaultHtmlFile(dirs, runs), asked) : null;
  const exitCode = stopped.length ? 1 : 0;
  const merged = mergeRuns(runs);
  if (spectrum !== undefined) {
    const { op, tag, name } = pickHistogram(runs, { op: spectrum, tag: a.tag, opFlag: '--spectrum' });
    // the window the summary covers: the warm-up, a second cut short and the drain are left out
    const h = mergeHistograms(runs, { fromSec: merged.warmupS, toSec: merged.durationS, ops: [op] }).get(name);
    if (!h?.totalCount)
      throw new UsageError(
        `--spectrum ${op} --tag ${tag}: no values in seconds ${merged.warmupS} to ${merged.durationS} (the summary's window) in ${dirs.join(', ')}`,
      );
    return { text: percentileSpectrum(h), exitCode };
  }
  if (htmlFile) writeReportHtml(dirs, htmlFile, asked);
  if (format === 'csv') return { text: mergedTimelineCsv(merged), exitCode };
  const summary = summarizeMerged(merged);
  return { text: format === 'json' ? `${JSON.stringify(summary, null, 2)}\n` : `${renderMergedMd(merged, summary)}\n`, exitCode };
}

/**
 * Where the page goes unless --html names a file: inside the one run directory, or inside the
 * first of several (the run directories of a merged run), named after the run id they share.
 * @param {string[]} dirs
 * @param {import('../report/read/report-dirs.js').ReportRun[]} runs the same, read
 */
function defaultHtmlFile(dirs, runs) {
  if (dirs.length === 1) return path.join(dirs[0], 'report.html');
  const id = runs[0].manifest.runId || path.basename(path.resolve(dirs[0]));
  const name = String(id).replace(/[^A-Za-z0-9._-]/g, '-');
  // inside the first directory, not beside it: a glob over the runs' folder (runs/*) would take it in
  return path.join(dirs[0], `report-merged-${name}.html`);
}

/**
 * The page's file, checked: asked for, a bad one is bad input (exit 2, nothing written); unasked,
 * a run directory that cannot take it leaves it out with one line.
 * @param {string} file
 * @param {boolean} asked
 * @returns {string|null}
 */
function pageFile(file, asked) {
  try {
    return checkHtmlFile(file);
  } catch (e) {
    if (asked) throw e;
    writeErr(`rqbench report: the HTML page is left out (${/** @type {Error} */ (e).message}); --no-html says so quietly\n`);
    return null;
  }
}

/**
 * The page, written before the text is printed. Asked for (--html), a failure to write it is the
 * command's failure; written unasked (a merged run), it is one line on stderr and the summary
 * still prints.
 * @param {string[]} dirs
 * @param {string} file
 * @param {boolean} asked
 */
function writeReportHtml(dirs, file, asked) {
  try {
    writeHtml(file, runReportHtml(dirs));
    writeErr(`report: ${file}\n`);
  } catch (e) {
    if (asked) throw e;
    writeErr(
      `rqbench report: the HTML page was not written (${String(/** @type {Error} */ (e).message).split('\n')[0]}); --no-html says so quietly\n`,
    );
  }
}
