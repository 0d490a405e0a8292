/**
 * `rqbench load FILE`: every cell of the threads x connections grid in turn over one delta file,
 * each checked for exactly-once delivery; one run directory (manifest.json, summary.json,
 * summary.md) for the whole grid.
 */
import os from 'node:os';
import path from 'node:path';
import { connectionFrom, describeConnection } from '../targets/redis.js';
import { createRunDir, writeJson, writeText } from '../results/run-dir.js';
import { cleanFlags, gitSha, packageVersion } from '../results/manifest.js';
import { grouped } from '../results/format.js';
import { withLocal } from '../local/for-run.js';
import { checkOutput } from '../options/output.js';
import { runCell } from './run-cell.js';
import { flushMasters, keyCount, openRouter, readBack } from './redis-check.js';
import { checkLines, loadTable } from './load-table.js';

/**
 * @param {Record<string, any>} a parsed and checked flags (file, info, threads[], connections[], sink…)
 * @returns {Promise<{ dir: string, summary: object, md: string, exitCode: number }>}
 */
export function runLoad(a) {
  // before any connection or load: a directory that cannot be written would waste the grid
  checkOutput(a);
  return withLocal(a.sink === 'redis' ? a : { ...a, local: false }, async (flags) => {
    const conn = a.sink === 'redis' ? connectionFrom(flags) : null;
    const admin = conn ? await openRouter(conn) : null;
    const t0 = Date.now();
    const cells = [];
    try {
      if (admin) {
        const before = await keyCount(admin);
        if (before && !a.flush) throw Object.assign(new Error(`the target holds ${before} keys: rqbench load empties it between cells, so start from an empty database or pass --flush`), { exitCode: 1 });
      }
      const grid = a.connections.flatMap((c) => a.threads.map((t) => [t, c]));
      for (const [k, [threads, connections]] of grid.entries()) {
        if (admin) await flushMasters(admin);
        const label = `load ${k + 1}/${grid.length} (${threads} threads x ${connections} connections)`;
        const r = await runCell({
          file: a.file, info: a.info, threads, connections, sink: a.sink, conn, ttl: a.ttl,
          onProgress: a.quiet ? undefined : (n) => process.stderr.write(`${label}: ${grouped(n)} of ${grouped(a.info.records)} records\n`),
        });
        const check = { ok: true, problems: [...r.problems] };
        if (r.errors) check.problems.push(`${r.errors} commands failed (${r.firstError})`);
        if (admin) {
          check.keys = await keyCount(admin);
          if (check.keys !== a.info.records) check.problems.push(`${check.keys} keys on the target, the file has ${a.info.records} records`);
          check.readBack = await readBack(admin, a.file, a.info, a.sample);
          const rb = check.readBack;
          if (rb.missing || rb.mismatched) check.problems.push(`${rb.missing} sampled records missing and ${rb.mismatched} different from the file (${rb.examples.join(', ')})`);
        }
        check.ok = check.problems.length === 0;
        const cell = {
          threads, connections, loadS: r.loadMs / 1000, recordsPerSec: r.recordsPerSec, setupMs: Math.round(r.setupMs),
          stored: r.stored, errors: r.errors, redirects: r.redirects, check, perThread: r.perThread,
        };
        cells.push(cell);
        if (!a.quiet) process.stderr.write(`${label}: ${cell.loadS.toFixed(2)} s, ${grouped(cell.recordsPerSec)} records/s${check.ok ? '' : ' — CHECK FAILED'}\n`);
      }
    } finally {
      admin?.close();
    }
    const target = conn ? describeConnection(conn) : null;
    const summary = {
      file: a.file, records: a.info.records, recordSize: a.info.recordSize, bytes: a.info.size, sink: a.sink, target, ttl: a.ttl || null,
      cells: cells.map(({ perThread, ...c }) => ({ ...c, loadS: Math.round(c.loadS * 1000) / 1000, recordsPerSec: Math.round(c.recordsPerSec), perThread })),
      ok: cells.every((c) => c.check.ok),
    };
    const dir = createRunDir(a.out, a.name || `load-${a.sink}-${a.threads.join('_')}t-${a.connections.join('_')}c`);
    writeJson(path.join(dir, 'manifest.json'), {
      tool: 'rqbench', command: 'load', dir, startedAt: new Date(t0).toISOString(), t0, flags: cleanFlags(a), target,
      versions: { rqbench: packageVersion('rqbench'), node: process.version }, git: gitSha(),
      host: { hostname: os.hostname(), cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null },
    });
    const md = renderLoad(summary);
    writeJson(path.join(dir, 'summary.json'), summary);
    writeText(path.join(dir, 'summary.md'), md);
    return { dir, summary, md, exitCode: summary.ok ? 0 : 1 };
  });
}

function renderLoad(s) {
  const into = s.sink === 'redis' ? `Redis at ${s.target} (pipelined ${s.ttl ? `SETEX, TTL ${s.ttl} s` : 'SET'})` : `the ${s.sink} sink`;
  return [
    '# rqbench load', '',
    `${grouped(s.records)} records of ${s.recordSize} bytes (${(s.bytes / 2 ** 20).toFixed(0)} MiB) from ${s.file} into ${into}; each reader thread reads its own byte range of the file. Load time runs from every thread ready (file open, connections made) to the last record stored.`, '',
    loadTable(s.cells), '',
    checkLines(s.cells), '',
  ].join('\n');
}
