/**
 * `rqbench load FILE`: every cell of the threads x connections (x S3 connections, for an s3://
 * file) grid in turn over one delta file,
 * each checked for exactly-once delivery; one run directory (manifest.json, summary.json,
 * summary.md) for the whole grid, written as the grid goes: each finished cell is in summary.json
 * as soon as it is checked, so a Ctrl-C (or SIGTERM) mid-grid keeps every finished cell, stops
 * the cell under way and exits 130 (143) with the summary marked interrupted.
 */
import { connectionFrom, describeConnection } from '../../transports/redis.js';
import { grouped } from '../../record/format.js';
import { round } from '../../record/numbers.js';
import { signalExitCode } from '../../record/outcome.js';
import { withLocal } from '../../local/for-run.js';
import { Run } from '../../harness/harness.js';
import { withLiveMetrics } from '../../harness/live-metrics.js';
import { runCell } from './run-cell.js';
import { flushMasters, keyCount, openRouter, readBack, redisCpuSeconds } from './redis-check.js';
import { checkLines, loadTable } from '../../runs/load/load-table.js';
import { S3_CHUNK } from './s3-source.js';
import { writeErr } from '../../command-io.js';

/**
 * @param {Readonly<Record<string, any>>} a the plan, checked and frozen at the command's edge
 *   (plans/load-plan.js: file, info, threads[], connections[], sink…)
 * @returns {Promise<import('../../harness/harness.js').RunResult & { linger?: () => Promise<void> }>}
 */
export function runLoad(a) {
  return withLiveMetrics(a, (live) =>
    withLocal(a.sink === 'redis' ? a : { ...a, local: false }, async (flags) => {
      const name =
        a.name || `load-${a.s3 ? 's3-' : ''}${a.sink}-${a.threads.join('_')}t-${(a.s3 ? a.s3Connections : a.connections).join('_')}c`;
      live?.label({ runName: name });
      const run = new Run({ kind: 'load', command: 'load', a, leaveNote: 'no cell of the grid had finished', live });
      // a stop ends the cell under way (its reader threads are terminated): only whole cells count
      const ac = new AbortController();
      run.on('stop', () => ac.abort());
      const conn = a.sink === 'redis' ? connectionFrom(flags) : null;
      const admin = conn ? await openRouter(conn) : null;
      const target = conn ? describeConnection(conn) : null;
      // S3's connections, then Redis's, then threads: the seed's order (threads vary fastest)
      const grid = (a.s3 ? a.s3Connections : [null]).flatMap((s) => a.connections.flatMap((c) => a.threads.map((t) => [t, c, s])));
      const cells = [];
      /** @param {'SIGINT'|'SIGTERM'|false} interrupted */
      const summaryOf = (interrupted) => ({
        file: a.file,
        records: a.info.records,
        recordSize: a.info.recordSize,
        bytes: a.info.size,
        sink: a.sink,
        target,
        ttl: a.ttl || null,
        ...(a.sink === 'redis' && { command: a.command, ...(a.command !== 'set' && { batch: a.batch }) }),
        ...(a.s3 && { s3: { endpoint: a.s3.endpoint ?? null, region: a.s3.region ?? null } }),
        cells: cells.map(({ perThread, ...c }) => ({
          ...c,
          loadS: Math.round(c.loadS * 1000) / 1000,
          recordsPerSec: Math.round(c.recordsPerSec),
          perThread,
        })),
        ok: cells.every((c) => c.check.ok),
        interrupted,
        cellsPlanned: grid.length,
      });
      try {
        if (admin) {
          const before = await keyCount(admin);
          if (before && !a.flush)
            throw Object.assign(
              new Error(
                `the target holds ${before} keys: rqbench load empties it between cells, so start from an empty database or pass --flush`,
              ),
              { exitCode: 1 },
            );
        }
        run.open({
          name,
          t0: Date.now(),
          facts: { target },
          description: `Load of ${a.file} (${grouped(a.info.records)} records) into ${target ? `Redis at ${target}` : `the ${a.sink} sink`}, grid of ${a.threads.join(',')} reader threads x ${a.s3 ? `${a.s3Connections.join(',')} S3 connections` : `${a.connections.join(',')} connections`}.`,
        });
        for (const [k, [threads, connections, s3Connections]] of grid.entries()) {
          if (run.stopping) break;
          if (admin) await flushMasters(admin);
          const label = `load ${k + 1}/${grid.length} (${threads} threads x ${s3Connections ? `${s3Connections} S3 connections` : `${connections} connections`}${s3Connections && admin ? ` x ${connections} connections` : ''})`;
          // the cell's progress: on stderr, and to the live metrics as the cell's seconds
          const progress = (n) => {
            if (!a.quiet) writeErr(`${label}: ${grouped(n)} of ${grouped(a.info.records)} records\n`);
            run.second(k, label, { cell: { threads, connections, stored: n } });
          };
          // what the cell cost: Redis's CPU (every master) and this process's (its reader threads)
          const redisCpu0 = admin ? await redisCpuSeconds(admin) : 0;
          const clientCpu0 = process.cpuUsage();
          let r;
          try {
            r = await runCell({
              file: a.file,
              info: a.info,
              threads,
              connections,
              sink: a.sink,
              conn,
              ttl: a.ttl,
              command: a.command,
              batch: a.batch,
              signal: ac.signal,
              s3: a.s3 && s3Connections ? { ...a.s3, connections: s3Connections } : null,
              onProgress: a.quiet && !live ? undefined : progress,
            });
          } catch (e) {
            if (run.stopping) break;
            throw e;
          }
          if (run.stopping) break;
          const clientCpu = process.cpuUsage(clientCpu0);
          const cpu = {
            ...(admin && { redisCpuUsPerRecord: round((((await redisCpuSeconds(admin)) - redisCpu0) * 1e6) / a.info.records, 2) }),
            clientCpuUsPerRecord: round((clientCpu.user + clientCpu.system) / a.info.records, 2),
          };
          // without --cluster, a MOVED reply means the target is a node of a Redis Cluster: the
          // sink followed each one (a second round trip a batch), so the cell measured something
          // else than was asked, and its key count and read-back (of one node) mean nothing. Said
          // at once (--quiet too), and the grid stops there, exit 1
          const notCluster =
            conn && !conn.cluster && r.redirects.moved > 0
              ? `${target} answered MOVED ${grouped(r.redirects.moved)} times: it is a node of a Redis Cluster, and this load spoke to it as a standalone server (run again with --cluster)`
              : null;
          if (notCluster) writeErr(`rqbench load: ${notCluster}\n`);
          const check = notCluster ? { ok: false, problems: [notCluster, ...r.problems] } : await checkCell(a, admin, r);
          const cell = {
            threads,
            connections,
            ...(s3Connections && { s3Connections }),
            loadS: r.loadMs / 1000,
            window: r.window,
            recordsPerSec: r.recordsPerSec,
            setupMs: Math.round(r.setupMs),
            stored: r.stored,
            errors: r.errors,
            redirects: r.redirects,
            ...cpu,
            check,
            perThread: r.perThread,
          };
          cells.push(cell);
          run.second(k, label, {
            cell: {
              threads,
              connections,
              stored: r.stored,
              done: { recordsPerSec: r.recordsPerSec, errors: r.errors, redirects: r.redirects },
            },
          });
          run.say(`${label}: ${cell.loadS.toFixed(2)} s, ${grouped(cell.recordsPerSec)} records/s${check.ok ? '' : ' — CHECK FAILED'}`);
          if (notCluster) break;
          // the grid so far: what a run cut short (even by a second Ctrl-C, or a kill) still has
          if (k + 1 < grid.length) {
            const sofar = { ...summaryOf(false), incomplete: true, note: `${cells.length} of ${grid.length} cells finished so far` };
            run.keep(sofar, renderLoad(sofar));
          }
        }
        const summary = summaryOf(run.interrupted);
        return run.save(summary, renderLoad(summary), { exitCode: run.interrupted ? signalExitCode(run.interrupted) : summary.ok ? 0 : 1 });
      } catch (e) {
        run.failed(e);
        throw e;
      } finally {
        admin?.close();
        run.close();
      }
    }),
  );
}

/**
 * Exactly once: the cell's own findings, then (Redis) the key count and a read-back sample.
 * @param {Record<string, any>} a
 * @param {any} admin
 * @param {Awaited<ReturnType<typeof runCell>>} r
 */
async function checkCell(a, admin, r) {
  /** @type {{ ok: boolean, problems: string[], keys?: number, readBack?: any }} */
  const check = { ok: true, problems: [...r.problems] };
  if (r.errors) check.problems.push(`${r.errors} records not stored: their commands failed (${r.firstError})`);
  if (admin) {
    check.keys = await keyCount(admin);
    if (check.keys !== a.info.records) check.problems.push(`${check.keys} keys on the target, the file has ${a.info.records} records`);
    check.readBack = await readBack(admin, a.file, a.info, a.sample);
    const rb = check.readBack;
    if (rb.missing || rb.mismatched)
      check.problems.push(`${rb.missing} sampled records missing and ${rb.mismatched} different from the file (${rb.examples.join(', ')})`);
  }
  check.ok = check.problems.length === 0;
  return check;
}

/** How the records were written, in words. @param {Record<string, any>} s summary */
function commandWords(s) {
  if (s.command === 'mset') return `pipelined MSET of up to ${s.batch} records of one slot`;
  if (s.command === 'eval')
    return `pipelined EVALSHA of up to ${s.batch} records of one slot, a script that SETs each${s.ttl ? ` with EX ${s.ttl}` : ''}`;
  return `pipelined ${s.ttl ? `SETEX, TTL ${s.ttl} s` : 'SET'}`;
}

function renderLoad(s) {
  const into = s.sink === 'redis' ? `Redis at ${s.target} (${commandWords(s)})` : `the ${s.sink} sink`;
  return [
    '# rqbench load',
    '',
    `${grouped(s.records)} records of ${s.recordSize} bytes (${(s.bytes / 2 ** 20).toFixed(0)} MiB) from ${s.file}${s.s3 ? ` (S3${s.s3.endpoint ? ` at ${s.s3.endpoint}` : ''})` : ''} into ${into}; each reader thread reads its own byte range of the file${s.s3 ? ` by ranged GETs of ${S3_CHUNK / 2 ** 20} MiB, through a client of its own whose pool is its share of the S3 connections (up to that many GETs in flight ahead of it)` : ''}. Load time runs from every thread ready (file open, connections made) to the last record stored.`,
    '',
    loadTable(s.cells, { redis: s.sink === 'redis' }),
    '',
    checkLines(s.cells),
    '',
    ...(s.interrupted
      ? [
          `**Interrupted** (${s.interrupted}) after ${s.cells.length} of ${s.cellsPlanned} cells: the cells above finished and were checked; the one under way was stopped and is not shown.`,
          '',
        ]
      : []),
    ...(s.incomplete ? [`_Running: ${s.note}._`, ''] : []),
  ].join('\n');
}
