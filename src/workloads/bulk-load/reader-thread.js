/**
 * One reader thread (worker_threads): opens the delta file itself (a local file, or an object in
 * S3 read by ranged GETs: s3-source.js), reads its byte range in large chunks, resyncs at the
 * first record that starts in the range, parses each record's key and value offsets, and hands
 * batches to its sink. Protocol with the parent:
 *   → { type: 'ready' } once the file is open and the sink connected
 *   ← { type: 'go' }    start reading
 *   → { type: 'progress', records }  about twice a second
 *   → { type: 'done', first, last, count, sink, ms } or { type: 'error', message }
 */
import fs from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { memorySink, noopSink } from './sinks.js';
import { redisSink } from './redis-sink.js';
import { openS3Range } from './s3-source.js';

/**
 * @typedef {object} ReaderJob
 * @property {string} file a path, or s3://bucket/key
 * @property {{ endpoint?: string, region?: string, size: number, connections: number }} [s3] for an
 *   s3:// file: where S3 is, the object's size, and this thread's share of the connections
 * @property {number} start   first byte of the range
 * @property {number} end     first byte after the range
 * @property {number} recordSize
 * @property {'noop'|'memory'|'redis'} sink
 * @property {number} connections this thread's share
 * @property {object} [conn]  RedisConn for the redis sink
 * @property {number} [ttl]
 * @property {string} [command] set, mset or eval (load-commands.js)
 * @property {number} [batch] records per command (mset, eval)
 * @property {number} [chunkBytes]
 */

/** @type {ReaderJob} */
const job = workerData;
const CHUNK = job.chunkBytes ?? 1 << 20;

async function makeSink() {
  if (job.sink === 'redis')
    return redisSink({ conn: job.conn, connections: job.connections, ttl: job.ttl, command: job.command, batch: job.batch });
  if (job.sink === 'memory') return memorySink();
  return noopSink();
}

/**
 * @typedef {{ read: (buf: Buffer, offset: number, length: number, position: number) => number|Promise<number>, close: () => void, gets?: () => number }} Source
 */

/** The file, or the object in S3. @returns {Promise<Source>} */
async function openSource() {
  if (job.s3) {
    // from the byte before the range (the resync) to one record past its end (its last record)
    return openS3Range({
      url: job.file,
      where: job.s3,
      size: job.s3.size,
      connections: job.s3.connections,
      from: Math.max(0, job.start - 1),
      until: job.end + job.recordSize,
    });
  }
  const fd = fs.openSync(job.file, 'r');
  return { read: (buf, offset, length, position) => fs.readSync(fd, buf, offset, length, position), close: () => fs.closeSync(fd) };
}

/**
 * Reads the range; returns the first and last record index read and the count.
 * @param {Source} src
 * @param {import('./sinks.js').Sink} sink
 * @param {(records: number) => void} progress
 */
async function readRange(src, sink, progress) {
  const { start, end, recordSize } = job;
  // the record that owns byte `start` began before it unless the byte before is a LF
  let pos = start;
  const buf = Buffer.allocUnsafe(Math.max(CHUNK, recordSize * 2));
  if (start > 0) {
    for (let at = start - 1; ; at += buf.length) {
      const got = await src.read(buf, 0, buf.length, at);
      if (got === 0) return { first: -1, last: -1, count: 0 };
      const nl = buf.subarray(0, got).indexOf(10);
      if (nl >= 0) {
        pos = at + nl + 1;
        break;
      }
    }
  }
  if (pos >= end) return { first: -1, last: -1, count: 0 };
  const first = pos / recordSize;
  const offs = new Int32Array(Math.ceil(buf.length / recordSize) * 4 + 4);
  let count = 0;
  let lastReport = performance.now();
  // `pos` is the file offset of buf[0]; records starting at or after `end` belong to the next thread
  for (let filled = 0; ;) {
    const got = await src.read(buf, filled, buf.length - filled, pos + filled);
    const avail = filled + got;
    let p = 0;
    let n = 0;
    let o = 0;
    while (pos + p < end) {
      const nl = buf.indexOf(10, p);
      if (nl < 0 || nl >= avail) break;
      const tab = buf.indexOf(9, p);
      if (tab < 0 || tab > nl) throw new Error(`record at byte ${pos + p} has no TAB between key and value`);
      if (nl - p + 1 !== recordSize)
        throw new Error(`record at byte ${pos + p} is ${nl - p + 1} bytes, not ${recordSize}: not a fixed-size delta file`);
      offs[o] = p;
      offs[o + 1] = tab;
      offs[o + 2] = tab + 1;
      offs[o + 3] = nl;
      o += 4;
      n++;
      p = nl + 1;
    }
    if (n) {
      const w = sink.write(buf, offs, n);
      if (w) await w;
      count += n;
    }
    if (pos + p >= end) break;
    if (got === 0) {
      if (p < avail) throw new Error(`the file ends inside a record at byte ${pos + p}`);
      break;
    }
    // keep the partial record at the front
    buf.copy(buf, 0, p, avail);
    filled = avail - p;
    pos += p;
    if (performance.now() - lastReport > 500) {
      lastReport = performance.now();
      progress(count);
    }
  }
  return { first, last: first + count - 1, count };
}

async function main() {
  let sink;
  let src;
  try {
    src = await openSource();
    sink = await makeSink();
    parentPort.postMessage({ type: 'ready' });
    await new Promise((resolve) => parentPort.once('message', resolve));
    const t0 = performance.now();
    const r = await readRange(src, sink, (records) => parentPort.postMessage({ type: 'progress', records }));
    const stored = await sink.finish();
    parentPort.postMessage({ type: 'done', ...r, sink: stored, ms: performance.now() - t0, ...(src.gets && { gets: src.gets() }) });
  } catch (e) {
    parentPort.postMessage({ type: 'error', message: e.message });
  } finally {
    sink?.close();
    src?.close();
  }
}

await main();
