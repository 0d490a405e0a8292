/** The seed's table (threads | connections | load time | records per sec) and the checks under it. */
import { grouped, mdTable } from '../../results/format.js';

/**
 * @param {Array<{ threads: number, connections: number, loadS: number, recordsPerSec: number }>} cells
 */
export function loadTable(cells) {
  const short = cells.filter((c) => isShort(c));
  const table = mdTable(
    ['reader threads', 'connections', 'data loading time', 'num records per sec'],
    cells.map((c) => [c.threads, c.connections, `${c.loadS.toFixed(2)} sec${isShort(c) ? ' ⚠' : ''}`, `${grouped(c.recordsPerSec / 1000)} k/s${isShort(c) ? ' ⚠' : ''}`]),
  );
  if (!short.length) return table;
  return `${table}\n\n⚠ ${short.length === cells.length ? 'Every cell' : `${short.length} of ${cells.length} cells`} loaded in under ${SHORT_CELL_S} s: a window that short is decided by start-up and by anything else on the host (such a cell can differ from a re-run by 2x), so its rate is not a measurement to compare. Load more records (a bigger file, --records with --generate) for cells of a second or more.`;
}

/** A cell shorter than this is flagged where its rate is printed: too short a window to carry a rate. */
export const SHORT_CELL_S = 1;

/** @param {{ loadS: number }} c */
export function isShort(c) {
  return c.loadS < SHORT_CELL_S;
}

/**
 * One line per cell saying what the exactly-once check found.
 * @param {object[]} cells summary cells
 */
export function checkLines(cells) {
  return cells.map((c) => {
    const head = `- ${c.threads} threads x ${c.connections} connections:`;
    if (!c.check.ok) return `${head} **check failed**: ${c.check.problems.join('; ')}`;
    const parts = [`${grouped(c.stored)} records read and stored once each (${c.threads} ranges tile the file)`];
    if (c.check.keys !== undefined) parts.push(`${grouped(c.check.keys)} keys on the target`);
    if (c.check.readBack) parts.push(`${grouped(c.check.readBack.checked)} sampled records read back equal to the file`);
    const rd = c.redirects;
    if (rd && rd.moved + rd.ask + rd.retries > 0) parts.push(`the cluster changed during the load: ${grouped(rd.moved)} MOVED and ${grouped(rd.ask)} ASK followed, ${grouped(rd.retries)} commands retried`);
    return `${head} ${parts.join(', ')}.`;
  }).join('\n');
}
