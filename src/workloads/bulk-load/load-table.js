/** The seed's table (threads | connections | load time | records per sec) and the checks under it. */
import { grouped, mdTable } from '../../results/format.js';

/**
 * @param {Array<{ threads: number, connections: number, loadS: number, recordsPerSec: number }>} cells
 */
export function loadTable(cells) {
  return mdTable(
    ['reader threads', 'connections', 'data loading time', 'num records per sec'],
    cells.map((c) => [c.threads, c.connections, `${c.loadS.toFixed(2)} sec`, `${grouped(c.recordsPerSec / 1000)} k/s`]),
  );
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
