/**
 * --count-instructions for one run's local servers: how startRedis starts the nodes (under
 * callgrind, with a cluster node timeout Valgrind's slowness survives), what is said about it on
 * stderr, and the idle count taken before the workload.
 */
import { writeErr } from '../command-io.js';
import {
  InstructionCounter,
  VALGRIND_BUSY_SCRIPT_MS,
  VALGRIND_HINT,
  VALGRIND_NODE_TIMEOUT_MS,
  VALGRIND_READY_MS,
  callgrindTool,
} from './callgrind.js';

/** Seconds of idle counted on every node before the workload: its rate is what the window subtracts. */
export const IDLE_SECONDS = 5;
/** Seconds left alone before that: a replica's first sync goes on past "ready" (the master relays the RDB), and is no idle. */
const SETTLE_SECONDS = 2;

/**
 * @param {Readonly<Record<string, any>>} a the run's plan (cluster, quiet)
 * @returns {{ options: Partial<import('./local-redis.js').StartRedisOptions>, idle: (local: import('./local-redis.js').LocalRedis) => Promise<InstructionCounter> }}
 */
export function startCounting(a) {
  const tool = callgrindTool();
  if (!tool) throw Object.assign(new Error(`--count-instructions: ${VALGRIND_HINT}`), { code: 'ENOVALGRIND' });
  const say = (text) => {
    if (!a.quiet) writeErr(`rqbench: ${text}\n`);
  };
  say(
    `--count-instructions: every Redis node runs under Valgrind's callgrind, with lua-time-limit ${VALGRIND_BUSY_SCRIPT_MS} ms${a.cluster ? ` and cluster-node-timeout ${VALGRIND_NODE_TIMEOUT_MS} ms` : ''} (a node under Valgrind runs 50-100x slower: a script past the default 5000 ms would have the others' commands answered BUSY${a.cluster ? ', and the default node timeout of 2000 ms would fail it over' : ''})`,
  );
  return {
    options: {
      tool,
      readyTimeoutMs: VALGRIND_READY_MS,
      extraArgs: ['--lua-time-limit', String(VALGRIND_BUSY_SCRIPT_MS)],
      ...(a.cluster && { clusterNodeTimeoutMs: VALGRIND_NODE_TIMEOUT_MS }),
    },
    idle: async (local) => {
      const counter = new InstructionCounter(local.nodes, tool.seeds);
      say(`counting idle instructions on ${local.nodes.length} node(s) for ${IDLE_SECONDS} s before the workload`);
      await new Promise((resolve) => setTimeout(resolve, SETTLE_SECONDS * 1000));
      await counter.idle(IDLE_SECONDS);
      return counter;
    },
  };
}
