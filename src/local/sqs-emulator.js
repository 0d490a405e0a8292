/**
 * A throwaway SQS + SNS emulator (fauxqs 1.9.2, pinned: 2.x needs Node >= 22) inside this
 * process, on 127.0.0.1. Its CLI binds 0.0.0.0, so it is started from code with buildApp()
 * and listen(). Clients must always pass `endpoint`: the queue URLs fauxqs hands out may name
 * a host that does not resolve.
 */
import { buildApp } from 'fauxqs';
import { findFreePorts } from './ports.js';

const HOST = '127.0.0.1';
const REGION = 'us-east-1';
const PORT_ATTEMPTS = 4;

/**
 * @typedef {{ host: string, port: number, endpoint: string, region: string, stop: () => Promise<void> }} LocalSqs
 */

/**
 * Starts fauxqs on a free loopback port (or `port`).
 * @param {{ port?: number, logger?: boolean }} [opts]
 * @returns {Promise<LocalSqs>}
 */
export async function startSqs({ port, logger = false } = {}) {
  let lastError;
  for (let attempt = 0; attempt < (port ? 1 : PORT_ATTEMPTS); attempt++) {
    const p = port ?? (await findFreePorts(1))[0];
    // Queue URLs are built from the request's Host header (127.0.0.1:port) when no host is set.
    const app = buildApp({ logger, defaultRegion: REGION });
    try {
      await app.listen({ host: HOST, port: p });
    } catch (err) {
      lastError = err;
      await app.close().catch(() => {});
      if (/** @type {any} */ (err).code !== 'EADDRINUSE') throw err;
      continue;
    }
    let stopped;
    return {
      host: HOST,
      port: p,
      endpoint: `http://${HOST}:${p}`,
      region: REGION,
      stop: () => (stopped ??= app.close()),
    };
  }
  throw lastError;
}
