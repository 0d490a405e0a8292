/**
 * Opening a TCP or TLS socket to one Redis node, with a connect timeout and errors that name
 * host:port (never credentials). Shared by the parsed pipe and the byte-scanning connection.
 */
import net from 'node:net';
import tls from 'node:tls';

/**
 * @param {{ host: string, port: number, tls?: boolean|object, connectTimeoutMs?: number }} opts
 * @returns {Promise<import('node:net').Socket>}
 */
export function openSocket({ host, port, tls: tlsOption, connectTimeoutMs = 3000 }) {
  const addr = `${host}:${port}`;
  return new Promise((resolve, reject) => {
    const tlsOpts = tlsOption === true ? {} : tlsOption;
    const s = tlsOpts
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ...tlsOpts })
      : net.connect({ host, port });
    const timer = setTimeout(() => {
      s.destroy();
      reject(new Error(`cannot connect to ${addr}: no answer within ${connectTimeoutMs} ms`));
    }, connectTimeoutMs);
    s.once(tlsOpts ? 'secureConnect' : 'connect', () => {
      clearTimeout(timer);
      s.setNoDelay(true);
      resolve(s);
    });
    s.once('error', (e) => {
      clearTimeout(timer);
      reject(new Error(`cannot connect to ${addr}: ${e.code || e.message}`));
    });
  });
}
