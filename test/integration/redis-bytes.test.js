import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Redis } from 'ioredis';
import { startRedis } from '../../src/local/local-redis.js';
import { BytesConn } from '../../src/transports/redis-bytes.js';
import { encodeCommand } from '../../src/transports/resp.js';

// Values of many sizes, some far larger than a socket chunk's first 4 KB, so elements split
// across chunks are finished both from the head of the next chunk and from a full copy.
const SIZES = [0, 1, 7, 100, 4000, 4096, 5000, 70_000, 200_000];
const N = 3000;
const valueOf = (i) => `${i}:${'x'.repeat(SIZES[i % SIZES.length])}`;

let local;
let admin;

beforeAll(async () => {
  local = await startRedis({ password: 'bytes-pass' });
  admin = new Redis({ host: local.host, port: local.port, password: 'bytes-pass' });
  const p = admin.pipeline();
  for (let i = 0; i < N; i++) p.set(`k:${i}`, valueOf(i));
  await p.exec();
}, 30_000);

afterAll(async () => {
  admin?.disconnect();
  await local?.stop();
});

describe('BytesConn against a real server', () => {
  it('scans pipelined MGET replies split at every kind of boundary, in order', async () => {
    const c = await new BytesConn({ host: local.host, port: local.port, password: 'bytes-pass' }).connect();
    const keys = Array.from({ length: N }, (_, i) => `k:${i}`);
    const got = [];
    let nils = 0;
    const batches = [];
    for (let i = 0; i < N; i += 500) batches.push(encodeCommand(['MGET', ...keys.slice(i, i + 500), 'missing:key']));
    await c.request(Buffer.concat(batches), batches.length, {
      item: (b, s, e, reply, index) => got.push([reply * 500 + index, b.toString('utf8', s, e)]),
      nil: () => {
        nils++;
      },
    });
    expect(nils).toBe(batches.length);
    expect(got.length).toBe(N);
    for (const [i, v] of got) expect(v === valueOf(i), `value ${i}`).toBe(true);
    c.close();
  }, 30_000);

  it('hands an error reply to the visitor and a wrong password to connect()', async () => {
    const c = await new BytesConn({ host: local.host, port: local.port, password: 'bytes-pass' }).connect();
    const errors = [];
    await c.request(encodeCommand(['LRANGE', 'k:1', 0, -1]), 1, { error: (m) => errors.push(m) });
    expect(errors[0]).toMatch(/^WRONGTYPE/);
    c.close();
    const bad = new BytesConn({ host: local.host, port: local.port, password: 'not-it' });
    const err = await bad.connect().then(
      () => null,
      (e) => e,
    );
    expect(err.message).toMatch(new RegExp(`^cannot authenticate to ${local.host}:${local.port} as default: WRONGPASS`));
    expect(err.message).not.toContain('not-it');
    bad.close();
  });

  it('rejects what is pending when the connection drops', async () => {
    const c = await new BytesConn({ host: local.host, port: local.port, password: 'bytes-pass' }).connect();
    const pending = c.request(encodeCommand(['BLPOP', 'never', 5]), 1, {});
    setTimeout(() => c.sock.destroy(), 50);
    await expect(pending).rejects.toThrow(/connection to .* closed/);
  });
});
