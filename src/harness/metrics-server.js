/**
 * The HTTP side of a metrics endpoint: GET /metrics answers with whatever `render` makes at that
 * moment, anything else is a 404. It listens before a run directory is made, so an address it
 * cannot have (a port in use, one below 1024 without root, a host that is not this machine's)
 * is bad input: one line naming the flag, exit 2, nothing written.
 */
import http from 'node:http';
import { UsageError } from '../usage-error.js';

/**
 * @typedef {object} MetricsServer
 * @property {string} url http://host:port/metrics, as a scraper would reach it
 * @property {number} port
 * @property {number} scrapes how many times /metrics was answered
 * @property {() => Promise<void>} close
 */

/**
 * @param {object} p
 * @param {string} p.host
 * @param {number} p.port
 * @param {() => Promise<string>} p.render the exposition text
 * @param {string} p.contentType
 * @returns {Promise<MetricsServer>}
 */
export async function listenForScrapes({ host, port, render, contentType }) {
  /** @type {MetricsServer} */
  const out = { url: '', port, scrapes: 0, close: async () => {} };
  const server = http.createServer(async (req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('see /metrics\n');
      return;
    }
    try {
      const text = await render();
      out.scrapes++;
      res.writeHead(200, { 'Content-Type': contentType }).end(text);
    } catch (e) {
      res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`${String(/** @type {any} */ (e)?.message ?? e)}\n`);
    }
  });
  try {
    await /** @type {Promise<void>} */ (
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen({ host, port, exclusive: true }, () => {
          server.off('error', reject);
          resolve();
        });
      })
    );
  } catch (e) {
    throw listenError(/** @type {NodeJS.ErrnoException} */ (e), host, port);
  }
  const shown = host.includes(':') ? `[${host}]` : host;
  out.url = `http://${shown}:${port}/metrics`;
  out.close = () =>
    new Promise((resolve) => {
      // a scraper's keep-alive connection must not hold the process open
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return out;
}

/**
 * Why listening failed, in the words of the flag that can fix it.
 * @param {NodeJS.ErrnoException} e
 * @param {string} host
 * @param {number} port
 */
function listenError(e, host, port) {
  switch (e.code) {
    case 'EADDRINUSE':
      return new UsageError(`--metrics-port ${port} is in use on ${host}: pick a free port`);
    case 'EACCES':
      return new UsageError(`--metrics-port ${port} cannot be used here (permission denied: ports below 1024 need root)`);
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new UsageError(`--metrics-host ${host} is not an address of this machine (${e.code})`);
    default:
      return new UsageError(`--metrics-host ${host} --metrics-port ${port}: cannot listen there (${e.code ?? e.message})`);
  }
}

/**
 * Waits `ms`, or less: a Ctrl-C or SIGTERM ends the wait at once (the run is over and saved,
 * nothing is left to lose). Whatever else listens to the signal still hears it.
 * @param {number} ms
 * @returns {Promise<void>}
 */
export function lingerFor(ms) {
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
