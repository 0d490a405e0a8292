/**
 * A throwaway moto server (PyPI `moto[server]`, pinned in scripts/install-moto.sh) on
 * 127.0.0.1: one endpoint that answers as STS, CloudWatch, EventBridge, DynamoDB, Pinpoint and
 * the other AWS services moto emulates, all in memory. It is found in the project's own virtual
 * environment (.venv-moto, made by `npm run install:moto`), then by RQBENCH_MOTO_SERVER, then on PATH.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findExecutable } from './local-redis.js';
import { HOST, startChildServer } from './child-server.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MOTO_REGION = 'us-east-1';

export const MOTO_INSTALL_HINT =
  'moto server not found: install it with "npm run install:moto" (python3 -m venv .venv-moto and moto[server] from PyPI), or set RQBENCH_MOTO_SERVER to a moto_server executable';

/**
 * @returns {string|null} the moto_server executable, or null when none is installed
 */
export function findMotoServer() {
  const candidates = [process.env.RQBENCH_MOTO_SERVER, path.join(ROOT, '.venv-moto', 'bin', 'moto_server')].filter(Boolean);
  for (const file of /** @type {string[]} */ (candidates)) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return findExecutable('moto_server');
}

/**
 * @typedef {{ host: string, port: number, endpoint: string, region: string, pid: number, stop: () => Promise<void> }} LocalMoto
 */

/**
 * Starts moto on a free loopback port and waits until its own API answers.
 * @param {{ readyTimeoutMs?: number }} [opts]
 * @returns {Promise<LocalMoto>}
 */
export async function startMoto({ readyTimeoutMs = 30_000 } = {}) {
  const bin = findMotoServer();
  if (!bin) throw Object.assign(new Error(MOTO_INSTALL_HINT), { code: 'ENOMOTO' });
  const s = await startChildServer({
    label: 'moto server',
    command: bin,
    args: (port) => ['-H', HOST, '-p', String(port)],
    answers: async (port) => (await fetch(`http://${HOST}:${port}/moto-api/`, { signal: AbortSignal.timeout(1000) })).ok,
    taken: /address already in use/i,
    readyTimeoutMs,
  });
  return { ...s, endpoint: `http://${HOST}:${s.port}`, region: MOTO_REGION };
}
