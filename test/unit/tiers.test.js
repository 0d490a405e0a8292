// The test tiers (vitest.config.js), held the way test/layers.test.js holds the layers: every
// test file stands in one tier, and the unit tier can neither start a server nor spawn a process
// (test/unit/no-servers.js makes either throw, so a test that tries fails).
import childProcess, { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { findRedisCli, findRedisServer } from '../../src/local/local-redis.js';

const TEST = fileURLToPath(new URL('../', import.meta.url));
const TIERS = ['unit', 'integration', 'e2e'];

describe('the tiers', () => {
  it('every test file stands in test/unit/, test/integration/ or test/e2e/', () => {
    const files = fs
      .readdirSync(TEST, { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.test.js'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.filter((f) => !TIERS.includes(f.split(path.sep)[0]))).toEqual([]);
  });

  it('a unit test that spawns a process fails, whichever way it imports child_process', () => {
    expect(() => spawn('true')).toThrow(/unit tier starts no child process \(child_process.spawn\)/);
    expect(() => execFileSync('true')).toThrow(/child_process.execFileSync/);
    expect(() => childProcess.fork('x.js')).toThrow(/child_process.fork/);
  });

  it('a unit test that starts a server fails', () => {
    expect(() => net.createServer().listen(0, '127.0.0.1')).toThrow(/unit tier starts no server/);
  });

  it('the unit tier runs as on a machine without redis-server: it is not found', () => {
    expect(findRedisServer()).toBeNull();
    expect(findRedisCli()).toBeNull();
  });

  it('a unit test that writes a cgroup fails', () => {
    expect(() => fs.mkdirSync('/sys/fs/cgroup/cpu/rqbench-unit')).toThrow(/unit tier starts no change to the machine/);
  });
});
