/**
 * A delta file in S3 (seed 001 streams its file from S3 into the server's cache): `s3://bucket/key`
 * read by ranged GETs. Each reader thread reads its own byte range through a client of its own
 * (worker threads share no sockets) whose connection pool is its share of `--s3-connections`, the
 * seed's `s3client_max_connections`; up to that many ranged GETs of one chunk each are in flight
 * ahead of the reader. Also: what the object holds (its size, the first record's length), and
 * writing a local file to S3 by multipart upload (`load --generate s3://…`).
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { awsClientConfig } from '../../transports/aws.js';

/** Bytes per ranged GET. */
export const S3_CHUNK = 8 << 20;
/** Bytes per uploaded part (S3 wants at least 5 MiB but for the last; the emulator takes up to 11). */
const PART = 8 << 20;

/**
 * @param {string} url
 * @returns {{ bucket: string, key: string }|null} null when it is not an s3:// URL
 */
export function parseS3Url(url) {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)$/.exec(String(url));
  return m ? { bucket: m[1], key: m[2] } : null;
}

/**
 * An S3 client for a load: path-style on an emulator, `maxSockets` connections at most.
 * @param {{ endpoint?: string, region?: string }} where
 * @param {number} [maxSockets]
 */
export async function s3Client(where, maxSockets = 50) {
  const { S3Client } = await import('@aws-sdk/client-s3');
  const agent = { keepAlive: true, maxSockets };
  return new S3Client({
    ...awsClientConfig(where),
    ...(where.endpoint && { forcePathStyle: true }),
    // the SDK's own Node.js handler, given its agents: the pool is maxSockets
    requestHandler: { httpAgent: new http.Agent(agent), httpsAgent: new https.Agent(agent) },
  });
}

/**
 * What the object holds, as inspectDeltaFile() says of a file: its size and fixed record size.
 * @param {string} url
 * @param {{ endpoint?: string, region?: string }} where
 * @returns {Promise<{ size: number, recordSize: number, records: number }>}
 */
export async function inspectS3Delta(url, where) {
  const at = /** @type {{ bucket: string, key: string }} */ (parseS3Url(url));
  const { HeadObjectCommand, GetObjectCommand } = await import('@aws-sdk/client-s3');
  const client = await s3Client(where, 2);
  try {
    const head = await client.send(new HeadObjectCommand({ Bucket: at.bucket, Key: at.key })).catch((e) => {
      throw new Error(`${url}: ${e.name === 'NotFound' ? 'no such object' : e.message}`);
    });
    const size = Number(head.ContentLength);
    if (!size) throw new Error(`${url}: the object is empty`);
    const first = Buffer.from(
      await (
        await client.send(new GetObjectCommand({ Bucket: at.bucket, Key: at.key, Range: `bytes=0-${Math.min(size, 1 << 20) - 1}` }))
      ).Body.transformToByteArray(),
    );
    const nl = first.indexOf(10);
    if (nl < 0) throw new Error(`${url}: no line end in its first MiB: not a delta file`);
    const recordSize = nl + 1;
    if (size % recordSize)
      throw new Error(`${url}: ${size} bytes is not a whole number of ${recordSize}-byte records: not a fixed-size delta file`);
    return { size, recordSize, records: size / recordSize };
  } finally {
    client.destroy();
  }
}

/**
 * One reader thread's view of the object: `read(buf, offset, length, position)` as fs.readSync,
 * but async, served from chunks fetched ahead in order. The chunks start at the first byte the
 * thread reads (`from`) and stop at the last it needs (`until`), so that the threads' GETs
 * together fetch the object about once (a record's worth of overlap per thread).
 * @param {object} o
 * @param {string} o.url
 * @param {{ endpoint?: string, region?: string }} o.where
 * @param {number} o.size the object's size
 * @param {number} o.connections this thread's share: GETs in flight at most
 * @param {number} [o.from] the first byte the thread reads (the one before its range, to resync)
 * @param {number} [o.until] one past the last byte it needs (its range's end and one record)
 * @param {number} [o.chunk]
 */
export async function openS3Range({ url, where, size, connections, from = 0, until = size, chunk = S3_CHUNK }) {
  const at = /** @type {{ bucket: string, key: string }} */ (parseS3Url(url));
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const client = await s3Client(where, connections);
  const limit = Math.min(size, until);
  /** @type {Map<number, Promise<Buffer>>} chunk index → its bytes */
  const chunks = new Map();
  const last = Math.ceil((limit - from) / chunk) - 1;
  let gets = 0;
  const fetchChunk = (i) => {
    const start = from + i * chunk;
    const end = Math.min(limit, start + chunk) - 1;
    gets++;
    const p = client
      .send(new GetObjectCommand({ Bucket: at.bucket, Key: at.key, Range: `bytes=${start}-${end}` }))
      .then(async (out) => Buffer.from(await out.Body.transformToByteArray()));
    p.catch(() => {});
    chunks.set(i, p);
  };
  /** chunk `i`, with the next ones asked for so that `connections` GETs are in flight */
  const get = (i) => {
    for (let j = i; j <= Math.min(last, i + connections - 1); j++) if (!chunks.has(j)) fetchChunk(j);
    // the reader moves forward only: what lies behind is let go
    for (const k of chunks.keys()) if (k < i) chunks.delete(k);
    return /** @type {Promise<Buffer>} */ (chunks.get(i));
  };
  return {
    /**
     * @param {Buffer} buf @param {number} offset @param {number} length @param {number} position at or after `from`
     * @returns {Promise<number>} bytes read: fewer than asked at `until`, 0 past it
     */
    read: async (buf, offset, length, position) => {
      if (position < from) throw new RangeError(`read at byte ${position}, before this reader's first (${from})`);
      let done = 0;
      while (done < length && position + done < limit) {
        const i = Math.floor((position + done - from) / chunk);
        const c = await get(i);
        const off = position + done - (from + i * chunk);
        done += c.copy(buf, offset + done, off, Math.min(c.length, off + length - done));
      }
      return done;
    },
    gets: () => gets,
    close: () => client.destroy(),
  };
}

/**
 * Writes a local file to `s3://bucket/key` by multipart upload, parts in order (the bucket must exist).
 * @param {string} file
 * @param {string} url
 * @param {{ endpoint?: string, region?: string }} where
 * @param {(bytes: number) => void} [onProgress]
 */
export async function uploadToS3(file, url, where, onProgress) {
  const at = /** @type {{ bucket: string, key: string }} */ (parseS3Url(url));
  const s3 = await import('@aws-sdk/client-s3');
  const client = await s3Client(where, 4);
  const fd = fs.openSync(file, 'r');
  let uploadId;
  try {
    uploadId = (await client.send(new s3.CreateMultipartUploadCommand({ Bucket: at.bucket, Key: at.key }))).UploadId;
    const size = fs.fstatSync(fd).size;
    const parts = [];
    const buf = Buffer.allocUnsafe(PART);
    for (let pos = 0, n = 1; pos < size; pos += PART, n++) {
      const got = fs.readSync(fd, buf, 0, PART, pos);
      const { ETag } = await client.send(
        new s3.UploadPartCommand({ Bucket: at.bucket, Key: at.key, UploadId: uploadId, PartNumber: n, Body: buf.subarray(0, got) }),
      );
      parts.push({ ETag, PartNumber: n });
      onProgress?.(pos + got);
    }
    await client.send(
      new s3.CompleteMultipartUploadCommand({ Bucket: at.bucket, Key: at.key, UploadId: uploadId, MultipartUpload: { Parts: parts } }),
    );
    uploadId = null;
    return { bytes: size, parts: parts.length };
  } finally {
    if (uploadId)
      await client.send(new s3.AbortMultipartUploadCommand({ Bucket: at.bucket, Key: at.key, UploadId: uploadId })).catch(() => {});
    fs.closeSync(fd);
    client.destroy();
  }
}
