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
    let settled = false;
    // A process held off the CPU (a busy host) runs its due timers before the I/O that arrived
    // meanwhile: look once more after the poll phase (setImmediate) before saying "no answer".
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (settled) return;
          s.destroy();
          reject(new Error(`cannot connect to ${addr}: no answer within ${connectTimeoutMs} ms`));
        }),
      connectTimeoutMs,
    );
    s.once(tlsOpts ? 'secureConnect' : 'connect', () => {
      settled = true;
      clearTimeout(timer);
      s.setNoDelay(true);
      resolve(s);
    });
    s.once('error', (e) => {
      settled = true;
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

/**
 * What a new connection sends before use: AUTH, SELECT, READONLY, each through `setup`, which
 * fails with the given text. The reply says why (WRONGPASS, NOPERM), never what was sent: the
 * password stays out of every message.
 * @param {{ username?: string, password?: string, db?: number, readonly?: boolean }} opts
 * @param {string} addr host:port
 * @param {(what: string, args: Array<string|number>) => Promise<void>} setup
 */
export async function handshake({ username, password, db, readonly }, addr, setup) {
  if (password)
    await setup(`cannot authenticate to ${addr} as ${username ?? 'default'}`, username ? ['AUTH', username, password] : ['AUTH', password]);
  if (db) await setup(`cannot select db ${db} on ${addr}`, ['SELECT', db]);
  if (readonly) await setup(`cannot read from replica ${addr}`, ['READONLY']);
}
