/** The seed's table (threads | connections | load time | records per sec; from S3, its s3client_max_connections) and the checks under it. */
import { grouped, mdTable } from '../../record/format.js';

/**
 * From S3 the second column is the seed's own, the S3 client's connections (Redis's, for a redis
 * sink, come third); from a file it is the sink's connections.
 * @param {Array<{ threads: number, connections: number, s3Connections?: number, loadS: number, recordsPerSec: number }>} cells
 * @param {{ redis?: boolean, emulatorPct?: Array<number|null>|null }} [o] the sink is Redis (its connections shown beside
 *   S3's); the S3 emulator's CPU in each cell, % of one core (an experiment's runner measures it)
 */
export function loadTable(cells, { redis = true, emulatorPct = null } = {}) {
  const short = cells.filter((c) => isShort(c));
  const s3 = cells.some((c) => c.s3Connections);
  const table = mdTable(
    s3
      ? [
          'data_loading_num_threads',
          's3client_max_connections',
          ...(redis ? ['connections'] : []),
          'data loading time',
          'num records per sec',
          ...(emulatorPct ? ['S3 emulator CPU %'] : []),
        ]
      : ['reader threads', 'connections', 'data loading time', 'num records per sec'],
    cells.map((c, i) => [
      c.threads,
      ...(s3 ? [c.s3Connections ?? '-', ...(redis ? [c.connections] : [])] : [c.connections]),
      `${c.loadS.toFixed(2)} sec${isShort(c) ? ' ⚠' : ''}`,
      `${grouped(c.recordsPerSec / 1000)} k/s${isShort(c) ? ' ⚠' : ''}`,
      ...(s3 && emulatorPct ? [emulatorPct[i] ?? '-'] : []),
    ]),
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
  return cells
    .map((c) => {
      const head = `- ${c.threads} threads x ${c.s3Connections ? `${c.s3Connections} S3 connections` : `${c.connections} connections`}:`;
      if (!c.check.ok) return `${head} **check failed**: ${c.check.problems.join('; ')}`;
      const parts = [`${grouped(c.stored)} records read and stored once each (${c.threads} ranges tile the file)`];
      if (c.check.keys !== undefined) parts.push(`${grouped(c.check.keys)} keys on the target`);
      if (c.check.readBack) parts.push(`${grouped(c.check.readBack.checked)} sampled records read back equal to the file`);
      const rd = c.redirects;
      if (rd && rd.moved + rd.ask + rd.retries > 0)
        parts.push(
          `the cluster changed during the load: ${grouped(rd.moved)} MOVED and ${grouped(rd.ask)} ASK followed, ${grouped(rd.retries)} commands retried`,
        );
      return `${head} ${parts.join(', ')}.`;
    })
    .join('\n');
}
