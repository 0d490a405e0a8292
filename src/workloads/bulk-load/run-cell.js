/**
 * One cell of the grid: `threads` reader threads over one file into one sink, timed from the
 * moment every thread is ready (file open, connections made) to the last record stored.
 */
import { Worker } from 'node:worker_threads';
import { byteRanges, tilingProblems } from './ranges.js';

const THREAD = new URL('./reader-thread.js', import.meta.url);

/**
 * Connections per thread: as even as possible, in order (16 threads x 64 → 4 each).
 * @param {number} connections
 * @param {number} threads
 */
export function connectionShares(connections, threads) {
  return Array.from({ length: threads }, (_, i) => Math.floor((connections * (i + 1)) / threads) - Math.floor((connections * i) / threads));
}

/**
 * @param {object} o
 * @param {string} o.file
 * @param {{ size: number, recordSize: number, records: number }} o.info from inspectDeltaFile()
 * @param {number} o.threads
 * @param {number} o.connections
 * @param {{ endpoint?: string, region?: string, connections: number }|null} [o.s3] an s3:// file:
 *   where S3 is and the connections of the S3 clients in all (the seed's s3client_max_connections)
 * @param {'noop'|'memory'|'redis'} o.sink
 * @param {object} [o.conn] RedisConn (redis sink)
 * @param {number} [o.ttl]
 * @param {string} [o.command] set, mset or eval (redis sink)
 * @param {number} [o.batch] records per command (mset, eval)
 * @param {(records: number) => void} [o.onProgress] records stored so far, about twice a second
 * @param {AbortSignal} [o.signal] stops the cell: its threads are terminated and it rejects
 * @returns {Promise<{ threads: number, connections: number, loadMs: number, window: { startedAt: number, endedAt: number }, setupMs: number, recordsPerSec: number, perThread: object[], stored: number, errors: number, redirects: { moved: number, ask: number, retries: number }, firstError: string|null, problems: string[] }>}
 */
export async function runCell({ file, info, threads, connections, s3 = null, sink, conn, ttl, command, batch, onProgress, signal }) {
  const ranges = byteRanges(info.size, threads);
  const shares = connectionShares(connections, threads);
  const s3Shares = s3 ? connectionShares(s3.connections, threads) : null;
  const t0 = performance.now();
  const progress = new Float64Array(threads);
  // ready: resolves when the thread has connected (set just below)
  const workers = ranges.map(
    (r, i) =>
      /** @type {Worker & { ready: Promise<unknown> }} */ (
        new Worker(THREAD, {
          workerData: {
            file,
            start: r.start,
            end: r.end,
            recordSize: info.recordSize,
            sink,
            connections: shares[i],
            conn,
            ttl,
            command,
            batch,
            ...(s3 && s3Shares && { s3: { endpoint: s3.endpoint, region: s3.region, size: info.size, connections: s3Shares[i] } }),
          },
        })
      ),
  );
  const settled = workers.map(
    (w, i) =>
      new Promise((resolve, reject) => {
        let ready;
        const readyP = new Promise((res) => {
          ready = res;
        });
        w.on('message', (m) => {
          if (m.type === 'ready') ready();
          else if (m.type === 'progress') progress[i] = m.records;
          else if (m.type === 'done') resolve(m);
          else if (m.type === 'error') reject(new Error(`reader thread ${i + 1}: ${m.message}`));
        });
        w.on('error', (e) => reject(new Error(`reader thread ${i + 1}: ${e.message}`)));
        w.on('exit', (code) => reject(new Error(`reader thread ${i + 1} exited (${code}) before it finished`)));
        w.ready = readyP;
      }),
  );
  // a stopped run does not wait for the cell under way: the threads go in the finally below
  let stop = () => {};
  const stopped = new Promise((_resolve, reject) => {
    stop = () => reject(new Error('the cell was stopped before it finished'));
    if (signal?.aborted) stop();
    else signal?.addEventListener('abort', stop, { once: true });
  });
  stopped.catch(() => {});
  let timer;
  try {
    // a thread that fails while connecting must not leave the others waiting for 'go'
    await Promise.race([Promise.all(workers.map((w) => w.ready)), Promise.all(settled), stopped]);
    const start = performance.now();
    for (const w of workers) w.postMessage({ type: 'go' });
    if (onProgress) timer = setInterval(() => onProgress(progress.reduce((a, b) => a + b, 0)), 1000);
    const done = await Promise.race([Promise.all(settled), stopped]);
    const loadMs = performance.now() - start;
    const perThread = done.map((d, i) => ({
      thread: i + 1,
      start: ranges[i].start,
      end: ranges[i].end,
      connections: shares[i],
      ...(s3Shares && { s3Connections: s3Shares[i], gets: d.gets }),
      first: d.first,
      last: d.last,
      count: d.count,
      stored: d.sink.stored,
      ...(d.sink.keys !== undefined ? { keys: d.sink.keys } : {}),
      ms: Math.round(d.ms),
    }));
    const problems = tilingProblems(perThread, info.records);
    const stored = perThread.reduce((s, t) => s + t.stored, 0);
    if (stored !== info.records) problems.push(`${stored} records stored, the file has ${info.records}`);
    for (const t of perThread)
      if (t.keys !== undefined && t.keys !== t.count)
        problems.push(`thread ${t.thread} holds ${t.keys} keys for ${t.count} records (a duplicate key)`);
    const sum = (k) => done.reduce((s, d) => s + (d.sink[k] ?? 0), 0);
    // the cluster changed during the load: commands followed there (redis sink only)
    const redirects = { moved: sum('moved'), ask: sum('ask'), retries: sum('retries') };
    return {
      threads,
      connections,
      loadMs,
      // the load's window on the wall clock, for what measures the servers beside it (an emulator's CPU per cell)
      window: { startedAt: Math.round(performance.timeOrigin + start), endedAt: Math.round(performance.timeOrigin + start + loadMs) },
      setupMs: start - t0,
      recordsPerSec: (info.records * 1000) / loadMs,
      perThread,
      stored,
      errors: sum('errors'),
      redirects,
      firstError: done.find((d) => d.sink.firstError)?.sink.firstError ?? null,
      problems,
    };
  } finally {
    signal?.removeEventListener('abort', stop);
    clearInterval(timer);
    await Promise.all(workers.map((w) => w.terminate()));
  }
}
