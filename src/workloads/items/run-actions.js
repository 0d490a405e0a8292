/**
 * `--at` during a run: each cluster action starts at its second after t0 (one at a time, in
 * time order: an action due while the previous one still runs waits for it), and its start and
 * end go to the timeline as events. The run waits for a started action to finish; actions not
 * started when the run ends (not yet due, or still waiting for the one before) are reported as
 * not run.
 */
import { runAction } from '../../cluster-actions/index.js';

/**
 * @param {object} p
 * @param {import('../../cluster-actions/parse.js').AtAction[]} p.actions
 * @param {number} p.t0 epoch ms of second 0
 * @param {import('../../transports/redis.js').RedisConn} p.conn
 * @param {import('../../local/local-redis.js').LocalRedis} [p.local]
 * @param {(atMs: number, text: string) => void} p.onEvent
 */
export function scheduleActions({ actions, t0, conn, local, onEvent }) {
  /** @type {Array<object>} ActionResult plus text and atSec, or a skipped entry */
  const results = [];
  const abort = new AbortController();
  const waits = [];
  let ended = false;
  let chain = Promise.resolve();
  for (const action of actions) {
    const due = new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(0, t0 + action.atSec * 1000 - Date.now()));
      waits.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
    chain = chain
      .then(() => due)
      .then(async () => {
        if (ended) {
          results.push({
            kind: action.kind,
            arg: action.arg,
            text: action.text,
            atSec: action.atSec,
            ok: false,
            skipped: true,
            error: 'not run: the run ended first',
          });
          return;
        }
        onEvent(Date.now(), `${action.text} started`);
        const r = await runAction(action, { conn, local, signal: abort.signal });
        results.push({ ...r, text: action.text, atSec: action.atSec });
        onEvent(r.endMs, `${action.text} ${r.ok ? 'done' : `failed: ${r.error}`} (${((r.endMs - r.startMs) / 1000).toFixed(1)} s)`);
      });
  }
  return {
    results,
    /** The run is over: actions not started yet are skipped; resolves once a running one ends. */
    finish() {
      ended = true;
      for (const release of waits) release();
      return chain;
    },
    /** Ctrl-C: the running action stops where it safely can. */
    abort() {
      abort.abort();
    },
  };
}
