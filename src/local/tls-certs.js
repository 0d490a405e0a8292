/**
 * A throwaway certificate authority and one server certificate signed by it, made with the
 * openssl CLI, for local TLS servers (tests, `rqbench local redis --tls`). Nothing here is
 * meant to protect anything: the keys live next to the certificates in a temp dir.
 */
import { execFile } from 'node:child_process';
import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);

/**
 * @typedef {{ dir: string, caFile: string, certFile: string, keyFile: string }} LocalCerts
 */

/**
 * Our own config, so the result does not depend on the system's openssl.cnf. The server
 * certificate is also a client certificate: with tls-replication/tls-cluster a node presents
 * it when it connects to another node.
 * @param {string[]} altNames subjectAltName entries, e.g. ['IP:127.0.0.1', 'DNS:localhost']
 */
function config(altNames) {
  return [
    '[req]',
    'distinguished_name = dn',
    'prompt = no',
    '[dn]',
    'CN = rqbench',
    '[ca_ext]',
    'basicConstraints = critical,CA:TRUE',
    'keyUsage = critical,keyCertSign,cRLSign',
    'subjectKeyIdentifier = hash',
    '[server_ext]',
    'basicConstraints = critical,CA:FALSE',
    'keyUsage = critical,digitalSignature,keyEncipherment',
    'extendedKeyUsage = serverAuth,clientAuth',
    `subjectAltName = ${altNames.join(',')}`,
    'authorityKeyIdentifier = keyid',
    '',
  ].join('\n');
}

/**
 * Makes a self-signed CA (ca.pem) and a server certificate (server.pem, server.key) it signed,
 * valid for 127.0.0.1 and localhost unless `altNames` says otherwise. EC P-256 keys: ~0.1 s in all.
 * @param {{ dir?: string, altNames?: string[], days?: number }} [opts] dir: where to write
 *   (created; default a fresh temp dir that the caller removes)
 * @returns {Promise<LocalCerts>}
 */
export async function makeCerts({ dir, altNames = ['IP:127.0.0.1', 'DNS:localhost'], days = 7 } = {}) {
  const out = dir ?? (await fsp.mkdtemp(path.join(os.tmpdir(), 'rqbench-tls-')));
  await fsp.mkdir(out, { recursive: true });
  const f = (name) => path.join(out, name);
  await fsp.writeFile(f('openssl.cnf'), config(altNames));
  const newKey = ['-nodes', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-config', f('openssl.cnf')];
  const steps = [
    [
      'req',
      '-x509',
      '-new',
      ...newKey,
      '-keyout',
      f('ca.key'),
      '-out',
      f('ca.pem'),
      '-days',
      String(days),
      '-extensions',
      'ca_ext',
      '-subj',
      '/CN=rqbench local CA',
    ],
    ['req', '-new', ...newKey, '-keyout', f('server.key'), '-out', f('server.csr'), '-subj', '/CN=localhost'],
    [
      'x509',
      '-req',
      '-in',
      f('server.csr'),
      '-CA',
      f('ca.pem'),
      '-CAkey',
      f('ca.key'),
      '-set_serial',
      String(Date.now()),
      '-days',
      String(days),
      '-out',
      f('server.pem'),
      '-extfile',
      f('openssl.cnf'),
      '-extensions',
      'server_ext',
    ],
  ];
  for (const args of steps) {
    try {
      await execFileAsync('openssl', args, { timeout: 10_000 });
    } catch (err) {
      if (err.code === 'ENOENT')
        throw new Error('openssl not found: install it (apt-get install -y openssl) to make local TLS certificates', { cause: err });
      const why = String(err.stderr || err.message)
        .trim()
        .split('\n')
        .pop();
      throw new Error(`openssl ${args[0]} failed: ${why}`, { cause: err });
    }
  }
  return { dir: out, caFile: f('ca.pem'), certFile: f('server.pem'), keyFile: f('server.key') };
}
