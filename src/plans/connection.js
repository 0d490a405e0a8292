/** Where the Redis under test is: --url, or --host/--port, or --local. */
import { X509Certificate } from 'node:crypto';
import { readFileSync, statSync } from 'node:fs';
import { UsageError, bad, fileReason, givenFlags, intIn, shown } from '../usage-error.js';
import { settings } from '../settings.js';
import { redactString } from '../secrets.js';
import { cpuCapProblem, cpusAccepted, validCpus } from '../local/cpu-cap.js';

/** @param {import('yargs').Argv} y */
export function connectionOptions(y) {
  return (
    y
      .option('url', {
        type: 'string',
        requiresArg: true,
        group: 'Connection:',
        describe: 'redis://[user:password@]host:port[/db] or rediss:// for TLS',
      })
      .option('host', {
        alias: 'h',
        type: 'string',
        requiresArg: true,
        group: 'Connection:',
        describe: 'Redis host',
        defaultDescription: '127.0.0.1',
      })
      .option('port', { type: 'number', requiresArg: true, group: 'Connection:', describe: 'Redis port', defaultDescription: '6379' })
      .option('user', { type: 'string', requiresArg: true, group: 'Connection:', describe: 'ACL user name' })
      .option('password', {
        type: 'string',
        requiresArg: true,
        group: 'Connection:',
        describe: 'password (or set REDIS_PASSWORD); never written anywhere',
      })
      .option('tls', { type: 'boolean', group: 'Connection:', describe: 'connect with TLS (implied by rediss://)' })
      .option('tls-ca', {
        type: 'string',
        requiresArg: true,
        group: 'Connection:',
        describe: 'CA certificate file (PEM) to verify the server with (implies --tls)',
      })
      .option('tls-insecure', { type: 'boolean', group: 'Connection:', describe: 'do not verify the server certificate (implies --tls)' })
      .option('cluster', {
        alias: 'cm',
        type: 'boolean',
        default: false,
        group: 'Connection:',
        describe: 'Redis Cluster mode (follow slots across shards)',
      })
      .option('local', {
        type: 'boolean',
        default: false,
        group: 'Connection:',
        describe: 'start a throwaway local Redis (or cluster with --cluster) for this run',
      })
      .option('masters', {
        type: 'number',
        requiresArg: true,
        default: 3,
        group: 'Connection:',
        describe: 'with --local --cluster: masters (shards)',
      })
      .option('replicas', {
        type: 'number',
        requiresArg: true,
        group: 'Connection:',
        describe: 'with --local: replicas per master',
        defaultDescription: '1 with --cluster, 0 without',
      })
      // a number when it reads as one; anything else stays as typed, so the error can quote it back
      .option('node-cpus', {
        type: 'string',
        requiresArg: true,
        coerce: numberOrText,
        group: 'Connection:',
        describe: 'with --local: cap each node at this many cores (0.5: half a core), to emulate a smaller instance; needs root (cgroups)',
      })
  );
}

/**
 * @param {Record<string, any>} a parsed flags
 */
export function checkConnection(a) {
  if (a.url !== undefined) {
    let u;
    try {
      u = new URL(a.url);
    } catch {
      throw bad('--url', 'a URL like redis://host:6379 or rediss://user:pass@host:6380', redactString(String(a.url)));
    }
    if (u.protocol !== 'redis:' && u.protocol !== 'rediss:') throw bad('--url', 'a redis:// or rediss:// URL', redactString(String(a.url)));
    if (u.pathname.length > 1 && !/^\/\d+$/.test(u.pathname))
      throw bad('--url', 'a URL whose path is a db number', redactString(String(a.url)));
    for (const part of [u.username, u.password]) {
      try {
        decodeURIComponent(part);
      } catch {
        throw bad(
          '--url',
          'a URL whose user and password are %-escaped as URLs are (a % followed by two hex digits; %25 for a %)',
          redactString(String(a.url)),
        );
      }
    }
  }
  if (a.port !== undefined) intIn(a.port, '--port', 1, 65535);
  if (a.tlsCa !== undefined) checkCaFile(a.tlsCa);
  if (a.local && (a.url !== undefined || a.host !== undefined || a.port !== undefined)) {
    throw bad('--local', 'used without --url/--host/--port (it starts its own server)');
  }
  if (a.nodeCpus !== undefined && !a.local) throw bad('--node-cpus', 'used with --local (it caps the nodes rqbench starts)');
  if (a.local) {
    // the servers --local starts listen on plain TCP: a TLS flag would send TLS to them and fail late
    for (const [key, flag] of [
      ['tls', '--tls'],
      ['tlsCa', '--tls-ca'],
      ['tlsInsecure', '--tls-insecure'],
    ]) {
      if (a[key])
        throw bad(
          flag,
          'left out with --local (its servers are plain TCP; for TLS start them with "rqbench local redis --tls" and pass the rediss:// URL and --tls-ca it prints)',
        );
    }
    if (a.cluster) intIn(a.masters, '--masters', settings.localMasters.min, settings.localMasters.max);
    // typed without --cluster, it would be ignored: a standalone server has one master
    else if (givenFlags(a)?.has('masters'))
      throw bad('--masters', 'used with --cluster (a standalone Redis has one master; use --replicas)');
    if (a.replicas !== undefined) intIn(a.replicas, '--replicas', settings.localReplicas.min, settings.localReplicas.max);
    if (a.nodeCpus !== undefined) checkNodeCpus(a.nodeCpus);
  }
}

/** A CA bundle larger than this is not one (Mozilla's whole bundle is about 200 kB): not read. */
const MAX_CA_BYTES = 16 * 1024 * 1024;

/**
 * --tls-ca: a file of PEM certificates, read and parsed now. A directory, a device, a missing file
 * or one that holds no certificate is one line naming the flag and the file, not a bare EISDIR
 * when the connection is made, nor a handshake that fails later without a word of which file.
 * @param {unknown} file
 */
function checkCaFile(file) {
  const accepted = 'a CA certificate file (PEM, -----BEGIN CERTIFICATE-----)';
  if (typeof file !== 'string' || file === '') throw bad('--tls-ca', accepted, String(file));
  const refuse = (why) => new UsageError(`--tls-ca must be ${accepted} (${shown(file)} ${why})`);
  let text;
  try {
    const st = statSync(file);
    if (st.isDirectory()) throw refuse('is a directory');
    if (!st.isFile()) throw refuse('is not a regular file');
    if (st.size > MAX_CA_BYTES) throw refuse(`is ${st.size} bytes, more than a CA bundle (${MAX_CA_BYTES})`);
    text = readFileSync(file, 'latin1');
  } catch (e) {
    if (e instanceof UsageError) throw e;
    throw refuse(`cannot be read: ${fileReason(e)}`);
  }
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length) throw refuse('holds no PEM certificate');
  blocks.forEach((pem, i) => {
    try {
      new X509Certificate(pem);
    } catch {
      throw refuse(`holds a certificate that does not parse: certificate ${i + 1} of ${blocks.length}`);
    }
  });
}

/**
 * The value, then whether this machine lets us set it: both before any server starts.
 * @param {unknown} v
 */
function checkNodeCpus(v) {
  if (!validCpus(v)) throw bad('--node-cpus', cpusAccepted(), v);
  const problem = cpuCapProblem();
  if (problem) throw new UsageError(`--node-cpus: ${problem}`);
}

/**
 * @param {unknown} v
 * @returns {unknown} a number for number-like text, else v as it was
 */
function numberOrText(v) {
  return typeof v === 'string' && /^\s*[-+]?(\d+\.?\d*|\.\d+)\s*$/.test(v) ? Number(v) : v;
}
