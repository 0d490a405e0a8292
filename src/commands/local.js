/**
 * `rqbench local redis [--cluster] [--masters N] [--replicas R] [--tls] [--node-cpus C]`: starts a throwaway
 * Redis on 127.0.0.1, prints how to connect, and keeps it running until SIGINT/SIGTERM.
 * `rqbench local sqs`, `rqbench local pubsub` and `rqbench local moto` do the same for the emulators
 * (SQS/SNS/S3, Pub/Sub, and moto's server for the other AWS services `rqbench ops` times).
 */
import { INSTALL_HINT, findRedisCli, findRedisServer, startRedis } from '../local/local-redis.js';
import { runQueueEmulator } from '../local/queue-emulator.js';
import { stopSignals, untilAborted } from '../local/process.js';
import { cpuCapProblem, cpusAccepted, describeCap, validCpus } from '../local/cpu-cap.js';
import { opsEmulators } from '../transports/ops-drivers.js';
import { settings } from '../settings.js';
import { exitNow, setExitCode, writeErr, writeOut } from '../command-io.js';

export const command = 'local <what>';
export const describe = 'Start throwaway local servers on 127.0.0.1 until Ctrl-C';

const { localMasters: MASTERS, localReplicas: REPLICAS } = settings;

/**
 * @param {import('yargs').Argv} yargs
 * @returns {import('yargs').Argv}
 */
export function builder(yargs) {
  const built = yargs
    .positional('what', { describe: 'What to start', choices: ['redis', ...opsEmulators().map((e) => e.name)] })
    .option('cluster', { type: 'boolean', default: false, describe: 'Redis Cluster instead of standalone' })
    // Strings, so a bad value can be quoted back as typed ("x", not NaN).
    .option('masters', { type: 'string', describe: `Cluster masters, ${MASTERS.min}..${MASTERS.max} [default: 3]` })
    .option('replicas', {
      type: 'string',
      describe: `Replicas per master, ${REPLICAS.min}..${REPLICAS.max} [default: 0 standalone, 1 cluster]`,
    })
    .option('tls', { type: 'boolean', default: false, describe: 'TLS ports only, with a CA made for this start (its path is printed)' })
    .option('node-cpus', {
      type: 'string',
      describe: 'Cap each node at this many cores (0.5: half a core) to emulate a smaller instance; needs root (cgroups)',
    })
    .check((argv) => {
      toStartOptions(argv);
      return true;
    })
    .fail(failOneLine)
    .example('$0 local redis', 'one standalone server')
    .example('$0 local redis --replicas 2', '1 master + 2 replicas, cluster mode disabled')
    .example('$0 local redis --cluster', '3 masters x 1 replica')
    .example('$0 local redis --cluster --tls', 'the same over TLS (rediss://, --tls-ca <printed path>)')
    .example('$0 local redis --node-cpus 0.5', 'one server held to half a core');
  // every emulator a queue driver or an ops service uses (SQS, SNS and S3 share one)
  return opsEmulators().reduce((y, e) => y.example(`$0 local ${e.name}`, e.example), built);
}

/**
 * @param {{ cluster?: boolean, masters?: unknown, replicas?: unknown, tls?: boolean, nodeCpus?: unknown }} argv
 * @returns {{ cluster: boolean, masters?: number, replicas?: number, tls?: true, cpus?: number }}
 */
export function toStartOptions(argv) {
  const cluster = Boolean(argv.cluster);
  const masters = parseInteger('masters', argv.masters, MASTERS.min, MASTERS.max, `an integer from ${MASTERS.min} to ${MASTERS.max}`);
  const replicas = parseInteger(
    'replicas',
    argv.replicas,
    REPLICAS.min,
    REPLICAS.max,
    `an integer from ${REPLICAS.min} to ${REPLICAS.max}`,
  );
  if (masters !== undefined && !cluster) {
    throw new Error('--masters needs --cluster (a standalone Redis has one master; use --replicas)');
  }
  const cpus = parseCpus(argv.nodeCpus);
  return {
    cluster,
    ...(masters !== undefined && { masters }),
    ...(replicas !== undefined && { replicas }),
    ...(argv.tls && { tls: /** @type {true} */ (true) }),
    ...(cpus !== undefined && { cpus }),
  };
}

/**
 * @param {unknown} raw --node-cpus as typed
 * @returns {number|undefined}
 */
function parseCpus(raw) {
  if (raw === undefined) return undefined;
  const text = String(raw);
  const value = /^\s*(\d+\.?\d*|\.\d+)\s*$/.test(text) ? Number(text) : NaN;
  if (!validCpus(value)) throw new Error(`--node-cpus must be ${cpusAccepted()} (got ${JSON.stringify(text)})`);
  return value;
}

/**
 * @param {string} name
 * @param {unknown} raw
 * @param {number} min
 * @param {number} max
 * @param {string} expected
 * @returns {number|undefined}
 */
function parseInteger(name, raw, min, max, expected) {
  if (raw === undefined) return undefined;
  const text = String(raw);
  const value = /^\d+$/.test(text.trim()) ? Number(text) : NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) {
    throw new Error(`--${name} must be ${expected} (got ${JSON.stringify(text)})`);
  }
  return value;
}

/**
 * yargs failure (bad choice, unknown flag, failed check): one line on stderr, exit 2.
 * @param {string|null} msg
 * @param {Error} [err]
 */
function failOneLine(msg, err) {
  const text = String(err?.message ?? msg ?? 'invalid arguments')
    .replace(/\s+/g, ' ')
    .trim();
  writeErr(`rqbench: ${text}\n`);
  exitNow(2);
}

/**
 * @param {{ what: string, cluster?: boolean, masters?: string, replicas?: string, tls?: boolean, nodeCpus?: string }} argv
 *   what: redis, or an emulator (yargs took only those)
 * @returns {Promise<void>}
 */
export async function handler(argv) {
  const emulator = opsEmulators().find((e) => e.name === argv.what);
  if (emulator) {
    if (argv.cluster || argv.masters !== undefined || argv.replicas !== undefined || argv.tls || argv.nodeCpus !== undefined) {
      failOneLine(`--cluster, --masters, --replicas, --tls and --node-cpus are for "local redis", not "local ${argv.what}"`);
    }
    return runQueueEmulator(emulator);
  }
  const opts = toStartOptions(argv);
  // whether this machine lets us cap CPU, before any server starts (the flag's answer first, as
  // other bad input: then whether redis-server is there at all)
  const capProblem = opts.cpus ? cpuCapProblem() : null;
  if (capProblem) failOneLine(`--node-cpus: ${capProblem}`);
  if (!findRedisServer() || (opts.cluster && !findRedisCli())) {
    writeErr(`${INSTALL_HINT}\n`);
    setExitCode(1);
    return;
  }
  const stopRequested = stopSignals();
  try {
    const startedAt = Date.now();
    let local;
    try {
      local = await startRedis({ ...opts, signal: stopRequested.signal });
    } catch (err) {
      if (stopRequested.signal.aborted) return; // interrupted while starting; startRedis cleaned up
      throw err;
    }
    writeOut(formatReady(local, Date.now() - startedAt));
    await untilAborted(stopRequested.signal);
    await local.stop();
    writeOut(`Stopped ${local.nodes.length} Redis node(s), removed ${local.dir}\n`);
    setExitCode(0);
  } catch (err) {
    const e = /** @type {Error & { code?: string }} */ (err);
    writeErr(
      e.code === 'ENOREDIS' ? `${INSTALL_HINT}\n` : `rqbench: ${e.code === 'ECPUCAP' ? '--node-cpus: ' : ''}${oneLine(e.message)}\n`,
    );
    // a cap the kernel refused is the machine saying no to the flag: as a usage error
    setExitCode(e.code === 'ECPUCAP' ? 2 : 1);
  } finally {
    stopRequested.dispose();
  }
}

/**
 * What the user needs to connect: URL, seeds, example commands, and the node table.
 * @param {import('../local/local-redis.js').LocalRedis} local
 * @param {number} elapsedMs
 * @returns {string}
 */
export function formatReady(local, elapsedMs) {
  const masters = local.nodes.filter((n) => n.role === 'master');
  const replicas = local.nodes.length - masters.length;
  const cluster = local.mode === 'cluster';
  const shape = cluster
    ? `${masters.length} masters x ${replicas / masters.length} replica(s)`
    : `1 master + ${replicas} replica(s), cluster mode disabled`;
  const lines = [
    `Local Redis ${cluster ? 'cluster' : 'standalone'} ready in ${(elapsedMs / 1000).toFixed(1)} s (${shape}${local.tls ? ', TLS only' : ''}${local.cpus ? `, ${describeCap(local.cpus)}` : ''})`,
    `url:   ${local.url}`,
  ];
  if (cluster) lines.push(`seeds: ${local.seeds.map((s) => `${s.host}:${s.port}`).join(' ')}`);
  if (local.tls) lines.push(`ca:    ${local.tls.caFile}`);
  lines.push(
    `dir:   ${local.dir}`,
    '',
    'Connect:',
    `  rqbench produce --url ${local.url}${cluster ? ' --cluster' : ''}${local.tls ? ` --tls-ca ${local.tls.caFile}` : ''}`,
    `  redis-cli${cluster ? ' -c' : ''}${local.tls ? ` --tls --cacert ${local.tls.caFile}` : ''} -p ${local.port}`,
    '',
    ...formatNodes(local.nodes),
    '',
    'Ctrl-C stops the servers and removes the dir.',
    '',
  );
  return lines.join('\n');
}

/**
 * @param {import('../local/local-redis.js').LocalRedisNode[]} nodes
 * @returns {string[]} aligned table rows
 */
function formatNodes(nodes) {
  const rows = [
    ['role', 'address', 'pid', 'replica of'],
    ...nodes.map((n) => [n.role, `${n.host}:${n.port}`, String(n.pid), n.masterPort ? `${n.host}:${n.masterPort}` : '']),
  ];
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  return rows.map((r) =>
    r
      .map((cell, i) => cell.padEnd(widths[i]))
      .join('  ')
      .trimEnd(),
  );
}

/** @param {string} text */
function oneLine(text) {
  return String(text).replace(/\s+/g, ' ').trim();
}
