/**
 * The redis sink's side of the exactly-once check, and keeping the target clean between cells:
 * keys counted on every master (DBSIZE), a sample of records read back and compared to the file.
 */
import fs from 'node:fs';
import { RedisRouter } from '../../transports/redis-router.js';
import { readRecord } from './delta-file.js';
import { parseInfo } from '../../transports/redis.js';

/** Every master's address (a standalone server is its own). @param {RedisRouter} router */
function mastersOf(router) {
  return router.conn.cluster ? router.masters().map((m) => m.addr) : router.targets();
}

/**
 * Keys on every master, summed.
 * @param {RedisRouter} router an open router
 */
export async function keyCount(router) {
  const masters = mastersOf(router);
  const sizes = await Promise.all(masters.map(async (addr) => Number(await (await router.pipe(addr)).call(['DBSIZE']))));
  return sizes.reduce((a, b) => a + b, 0);
}

/**
 * CPU seconds every master's process has used (INFO cpu: user + system, its background threads
 * included), summed: a cell's share is the change across it.
 * @param {RedisRouter} router an open router
 */
export async function redisCpuSeconds(router) {
  const masters = mastersOf(router);
  const used = await Promise.all(
    masters.map(async (addr) => {
      const info = parseInfo(String(await (await router.pipe(addr)).call(['INFO', 'cpu'])));
      return Number(info.used_cpu_user) + Number(info.used_cpu_sys);
    }),
  );
  return used.reduce((a, b) => a + b, 0);
}

/**
 * FLUSHDB (SYNC) on every master, before a cell: the keys and their memory are gone before the
 * cell starts. ASYNC would free them in a background thread while the next cell runs, taking CPU
 * from it (on a small host, from the very Redis it measures) and adding to its Redis CPU.
 */
export async function flushMasters(router) {
  const masters = mastersOf(router);
  await Promise.all(masters.map(async (addr) => (await router.pipe(addr)).call(['FLUSHDB', 'SYNC'])));
}

/**
 * Reads `sample` records (spread evenly over the file, first and last included) back with GET
 * and compares each to the file's bytes.
 * @param {RedisRouter} router
 * @param {string} file
 * @param {{ recordSize: number, records: number }} info
 * @param {number} sample
 * @returns {Promise<{ checked: number, mismatched: number, missing: number, examples: string[] }>}
 */
export async function readBack(router, file, info, sample) {
  const n = Math.min(sample, info.records);
  const picks = new Set();
  for (let i = 0; i < n; i++) picks.add(n === 1 ? 0 : Math.round((i * (info.records - 1)) / (n - 1)));
  const fd = fs.openSync(file, 'r');
  const out = { checked: 0, mismatched: 0, missing: 0, examples: [] };
  try {
    await Promise.all(
      [...picks].map(async (idx) => {
        const { key, value } = readRecord(fd, idx, info.recordSize);
        const got = await (await router.pipe(router.addrFor(router.slotOf(key)))).call(['GET', key]);
        out.checked++;
        if (got === null) out.missing++;
        else if (got !== value) out.mismatched++;
        else return;
        if (out.examples.length < 3) out.examples.push(`${key}: ${got === null ? 'missing' : 'differs from the file'}`);
      }),
    );
  } finally {
    fs.closeSync(fd);
  }
  return out;
}

/** An open router on the target (standalone or cluster). */
export function openRouter(conn) {
  return new RedisRouter(conn).open();
}
