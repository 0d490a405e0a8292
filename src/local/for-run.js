/** --local: a throwaway Redis (or cluster) that lives exactly as long as one run. */
import fs from 'node:fs';
import { startRedis } from './local-redis.js';
import { describeCap } from './cpu-cap.js';
import { writeErr } from '../command-io.js';
import { startCounting } from './count-run.js';

/**
 * Runs `fn` against a local server when the plan says --local (with a new frozen plan pointed
 * at it), else with the plan as it is.
 * @template T
 * @param {Readonly<Record<string, any>>} a a run's plan (local, cluster, masters, replicas, nodeCpus, quiet)
 * @param {(plan: Readonly<Record<string, any>>, local: import('./local-redis.js').LocalRedis|null,
 *   counter: import('./callgrind.js').InstructionCounter|null) => Promise<T>} fn with --count-instructions, the counter
 *   of the nodes, their idle rate already measured
 * @returns {Promise<T>}
 */
export async function withLocal(a, fn) {
  if (!a.local) return fn(a, null, null);
  const counting = a.countInstructions ? startCounting(a) : null;
  let local;
  try {
    local = await startRedis({
      cluster: !!a.cluster,
      masters: a.masters,
      replicas: a.replicas,
      ...(a.nodeCpus !== undefined && { cpus: a.nodeCpus }),
      ...counting?.options,
    });
  } catch (e) {
    // the flag's name is known here, not where the cap failed
    if (e.code === 'ECPUCAP') e.message = `--node-cpus: ${e.message}`;
    throw e;
  }
  try {
    if (!a.quiet) {
      const shape = a.cluster
        ? `cluster of ${local.nodes.length} nodes`
        : `standalone Redis${local.nodes.length > 1 ? ` with ${local.nodes.length - 1} replica(s)` : ''}`;
      writeErr(`rqbench: started a local ${shape} at ${local.url}${local.cpus ? `, ${describeCap(local.cpus)}` : ''}\n`);
    }
    const counter = counting ? await counting.idle(local) : null;
    const startAt = a.announce ? announce(a.announce, local, a) : a.startAt;
    const result = await fn(Object.freeze({ ...a, host: local.host, port: local.port, startAt }), local, counter);
    // the reader it named the nodes to runs to the planned end (the workers may finish before it), then ends
    // its last cycle and reads its end-of-run figures
    if (a.announce) {
      const end = startAt + (a.duration ?? 0) * (a.timeScale ?? 1) * 1000 + ANNOUNCE_GRACE_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, end - Date.now())));
    }
    return result;
  } finally {
    await local.stop();
  }
}

/** How far ahead an announced start lies: time for the process that reads the file to start and connect. */
export const ANNOUNCE_LEAD_MS = 5000;
/** How long announced nodes outlive the run's planned end: the reader's last cycle and its end-of-run reads, under Valgrind. */
const ANNOUNCE_GRACE_MS = 5000;

/**
 * --announce: the local server's URL and the run's start, written whole (a temporary file renamed)
 * once the nodes are up and any idle count is taken, so a consumer started on it reads the same
 * nodes from the same first second (an experiment's counted step with a consumer).
 * @param {string} file
 * @param {import('./local-redis.js').LocalRedis} local
 * @param {Readonly<Record<string, any>>} a the run's plan (cluster, startAt, timeScale)
 * @returns {number} the start, epoch ms
 */
function announce(file, local, a) {
  const startAt = a.startAt ?? Date.now() + ANNOUNCE_LEAD_MS;
  const doc = { url: local.url, cluster: !!a.cluster, startAt, timeScale: a.timeScale ?? 1 };
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(doc)}\n`);
  fs.renameSync(tmp, file);
  return startAt;
}

/**
 * What a run's description says of a local target: " (local, started for this run)", with its
 * CPU cap when there is one, so a summary shows what instance it emulated.
 * @param {import('./local-redis.js').LocalRedis|null} local
 * @returns {string}
 */
export function localNote(local) {
  if (!local) return '';
  return ` (local, started for this run${local.cpus ? `, ${describeCap(local.cpus)}` : ''})`;
}
