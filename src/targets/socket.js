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
      reject(new Error(`cannot connect to ${addr}: ${whyNoConnection(e)}`));
    });
  });
}

/**
 * Why a socket could not be opened, in one line; a certificate the client refused says so
 * (Node's codes for those are OpenSSL's verify errors and ERR_TLS_CERT_ALTNAME_INVALID).
 * @param {Error & { code?: string }} e
 */
function whyNoConnection(e) {
  if (/CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)/.test(e.code ?? '')) return `TLS certificate not trusted: ${e.message} (${e.code})`;
  if (/^ERR_SSL_/.test(e.code ?? '')) return `TLS handshake failed: ${e.message.split('\n')[0]}`;
  return e.code || e.message;
}
