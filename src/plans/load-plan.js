/** `rqbench load`'s flags checked into its plan: the delta file, the sink, the grid. */
import { bad, intIn, UsageError } from '../usage-error.js';
import { inspectDeltaFile } from '../workloads/bulk-load/delta-file.js';
import { checkConnection } from './connection.js';
import { checkOutput } from './output.js';
import { checkMetrics } from './metrics-plan.js';
import { planOf } from './freeze.js';

/** Where a load writes. */
export const SINKS = ['redis', 'noop', 'memory'];

/**
 * A comma-separated list of integers within [min, max].
 * @param {unknown} v
 * @param {string} flag
 */
export function intList(v, flag, min, max) {
  const parts = String(v).split(',').map((s) => s.trim());
  if (!parts.length || parts.some((p) => !/^\d+$/.test(p) || Number(p) < min || Number(p) > max)) {
    throw bad(flag, `an integer from ${min} to ${max}, or a comma-separated list of them`, String(v));
  }
  return [...new Set(parts.map(Number))];
}

/**
 * Every check of a load run, once, at the command's edge: the frozen plan it runs from (the
 * grid's thread and connection counts as lists, what the delta file holds).
 * @param {Readonly<Record<string, any>>} a parsed flags (left as they are)
 */
export function loadPlan(a) {
  checkConnection(a);
  if (a.file === undefined) throw new UsageError('a FILE to load is needed (or --generate FILE to write one)');
  if (!SINKS.includes(a.sink)) throw bad('--sink', SINKS.join(', '), a.sink);
  const threads = intList(a.readerThreads, '--reader-threads', 1, 256);
  const connections = intList(a.connections, '--connections', 1, 4096);
  intIn(a.ttl, '--ttl', 0);
  intIn(a.sample, '--sample', 0, 1_000_000);
  const metrics = checkMetrics(a);
  let info;
  try {
    info = inspectDeltaFile(a.file);
  } catch (e) {
    throw new UsageError(e.code ? `${a.file}: ${e.code === 'ENOENT' ? 'no such file' : e.code}` : e.message);
  }
  // every cell of the grid needs a connection per thread: sockets cannot be shared across threads
  if (a.sink === 'redis' && Math.min(...connections) < Math.max(...threads)) {
    throw bad('--connections', `at least --reader-threads with the redis sink (each thread needs a connection of its own; grid ${threads.join(',')} x ${connections.join(',')})`, Math.min(...connections));
  }
  checkOutput(a);
  return planOf(a, { threads, connections, info, ...metrics });
}
