#!/usr/bin/env node
/**
 * Runs before `npm test` / `npm run demo`: makes sure redis-server (and redis-cli, which the
 * cluster tests need; Debian ships both with redis-server) is installed. Silent when it is.
 * As root with apt-get it installs it; otherwise it prints how to, and exits 1.
 */
import { spawnSync } from 'node:child_process';
import { INSTALL_HINT, findExecutable, findRedisCli, findRedisServer } from '../src/local/local-redis.js';

const installed = () => Boolean(findRedisServer() && findRedisCli());

/**
 * @param {string} file
 * @param {string[]} args
 * @returns {boolean} true when it exited 0
 */
function aptGet(file, args) {
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  return spawnSync(file, args, { stdio: 'inherit', env }).status === 0;
}

function main() {
  if (installed()) return 0;
  const apt = findExecutable('apt-get');
  if (process.getuid?.() === 0 && apt) {
    process.stderr.write('redis-server not found: installing it with apt-get\n');
    if (aptGet(apt, ['update', '-qq']) && aptGet(apt, ['install', '-y', '-qq', 'redis-server']) && installed()) {
      return 0;
    }
  }
  process.stderr.write(`${INSTALL_HINT}\n`);
  return 1;
}

process.exitCode = main();
