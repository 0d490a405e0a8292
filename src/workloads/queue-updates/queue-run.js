/**
 * What a queue run (publisher or consumer) does around its work: a fresh run directory with
 * manifest.json, one recorded second at a time (.hlog intervals and a timeline.csv row through
 * record/run-recorder.js), a status line on stderr, a watch on the service, and how the work
 * stops: at the end of --duration, on Ctrl-C or SIGTERM (a second one leaves at once), when the
 * service has not answered for longer than the bound, or when the run directory cannot be
 * written any more. Then the summary and the exit code: 0 the run did what was asked; 1 messages
 * lost, failed or missing, the service unreachable beyond the bound, or the directory unwritable;
 * 130 / 143 an interrupt. The directory, manifest, signals, clock and status line are the
 * harness's (src/harness/).
 *
 * The summary's rates, latency and counts cover the same seconds, its window: from --warmup to
 * the end of --duration, or to the second the work was stopped in (that second and the drain
 * after it are in the files, not in the figures), or to the end when the work finished earlier.
 */
import { performance } from 'node:perf_hooks';
import { Run } from '../../harness/harness.js';
import { IntervalClock } from '../../harness/clock.js';
import { RunRecorder } from '../../record/run-recorder.js';
import { ClientSampler } from '../../measure/client-sampler.js';
import { signalExitCode } from '../../record/outcome.js';
import { Silence } from '../../harness/silence.js';
import { PROBE_AFTER_MS, UNREACHABLE_MS } from '../../transports/bounds.js';

/**
 * A queue run's plan, made at the command's edge (plans/queue-plan.js): the target's driver, the
 * driver's checked options and the checked flags, frozen.
 * @typedef {object} QueueRunPlan
 * @property {import('../../transports/queue-driver.js').QueueDriver} driver the --target's
 * @property {Readonly<Record<string, any>>} target the driver's options, checked and filled
 * @property {Readonly<Record<string, any>>} a the checked flags with every default filled in (what the manifest records)
 */

/** The packages a queue run's figures depend on: their versions go into the manifest. */
const PACKAGES = ['hdr-histogram-js', '@aws-sdk/client-sqs', '@aws-sdk/client-sns', '@google-cloud/pubsub', 'fauxqs'];

/**
 * The watch on a queue service: answers come by themselves while messages flow; a quiet service
 * is probed; nothing at all for UNREACHABLE_MS stops the run with one line naming the endpoint
 * (a dead endpoint otherwise looks like a quiet queue for the whole run).
 * @param {() => Promise<unknown>} probe one cheap call to the service
 * @param {string} where the service and endpoint, as the line names them
 */
export function serviceWatch(probe, where) {
  return new Silence({
    boundMs: UNREACHABLE_MS,
    probe,
    probeAfterMs: PROBE_AFTER_MS,
    words: {
      stop: (s, bound, why) =>
        `cannot reach ${where}: nothing answered for ${s} s (the bound is ${bound / 1000} s)${why ? `; last error: ${why}` : ''}`,
    },
  });
}

/**
 * @typedef {object} QueueSecond what the work hands over once a second
 * @property {Map<string, import('hdr-histogram-js').Histogram>} hist by name ('op.tag' or 'op')
 * @property {Record<string, number>} counters
 * @property {number} [intended]
 */

/** @typedef {import('../../runs/common/window-text.js').QueueRunInfo} QueueRunInfo */

/**
 * @param {object} p
 * @param {Record<string, any>} p.a parsed flags
 * @param {'produce'|'consume'} p.command
 * @param {string} p.name run name
 * @param {string} p.description
 * @param {Record<string, unknown>} p.facts target facts for the manifest (no secrets)
 * @param {string[]} p.columns timeline columns
 * @param {Record<string, string>} [p.hlogComments] an .hlog file's own header comment, by operation
 * @param {(iv: any) => Record<string, unknown>} p.rowOf
 * @param {(signal: AbortSignal, t0: number) => Promise<void>} p.work runs until done or until
 *   signal aborts; t0 is performance.now() of second 0 (schedules start there)
 * @param {() => QueueSecond} p.take this second's numbers
 * @param {(iv: any) => string} p.status one status line
 * @param {import('../../harness/silence.js').Silence} p.contact the service's watch
 * @param {(run: QueueRunInfo) => Promise<{ summary: object, md: string, ok: boolean }>} p.summarize
 * @param {import('../../harness/live-endpoint.js').LiveMetrics|null} [p.live] --metrics-port: follows the recorded seconds
 * @returns {Promise<import('../../harness/harness.js').RunResult>}
 */
export async function queueRun({
  a,
  command,
  name,
  description,
  facts,
  columns,
  hlogComments,
  rowOf,
  work,
  take,
  status,
  contact,
  summarize,
  live = null,
}) {
  const run = new Run({ kind: command === 'produce' ? 'queue-publish' : 'queue-consume', command, a, live });
  try {
    // second 0 starts once the slow part of the setup is over: a schedule starting there is not late from its first message
    const start = performance.now();
    const manifest = run.open({
      name,
      t0: Math.round(performance.timeOrigin + start),
      description,
      facts: { target: facts },
      packages: PACKAGES,
    });
    const dir = /** @type {string} */ (run.dir);
    const rec = new RunRecorder({ dir, t0: manifest.t0, nodes: [], warmupS: a.warmup ?? 0, columns, rowOf, hlogComments });
    if (a.duration > 0) rec.endWindowAt(Math.ceil(a.duration));
    const sampler = new ClientSampler();
    const ac = new AbortController();
    const elapsedS = () => (performance.now() - start) / 1000;
    // a stop ends the window with the last whole second before now, and the work
    run.on('stop', () => {
      if (ac.signal.aborted) return;
      rec.endWindowAt(Math.floor(elapsedS()));
      ac.abort();
    });
    // a stop before the directory existed (Ctrl-C during the setup) ends the work at once
    if (run.stopping) ac.abort();
    run.showStatus({ everywhere: true, keepLast: true });
    let index = 0;
    const tick = (last = false) => {
      const s = take();
      const c = sampler.sample();
      const iv = {
        index: index++,
        hist: s.hist,
        counters: s.counters,
        intended: s.intended ?? 0,
        errorKinds: {},
        ackedDue: {},
        client: { ...c, cpuPctMax: c.cpuPct },
      };
      rec.second(iv, []);
      // a full disk stops the work as Ctrl-C would: measuring on without recording is pointless
      if (rec.writeError) run.stop('write');
      // the last second comes after the work: nothing is left to stop
      const lost = last ? null : contact.check();
      if (lost) run.stop('unreachable', { line: lost.line });
      run.second(iv.index, status(iv), { iv });
    };
    // one tick per second on the grid from the start, whatever the work does
    const clock = new IntervalClock(start, () => tick(), 1000);
    clock.start();
    try {
      await work(ac.signal, start);
    } finally {
      clock.stop();
      tick(true); // the last (partial) second
      rec.close();
      run.emit('end');
    }
    const durationS = elapsedS();
    const fromS = rec.warmupS;
    // stopped: the window ended at the stop; otherwise at the end of --duration, or earlier when the work was done
    const toS = run.stopping ? rec.windowEnd : Math.min(rec.windowEnd, durationS);
    /** @type {QueueRunInfo} */
    const info = {
      dir,
      recorder: rec,
      window: { fromS, toS, seconds: Math.max(0, toS - fromS) },
      inWindow: sumInWindow(rec),
      durationS,
      interrupted: run.interrupted,
      stoppedBy: run.stoppedBy,
      manifest,
    };
    const { summary, md, ok } = await summarize(info);
    const unreachable = run.stoppedBy === 'unreachable' ? `${run.stopLine}; the run stopped, what it measured is in ${dir}` : undefined;
    return run.save(summary, md, {
      exitCode: run.interrupted ? signalExitCode(run.interrupted) : ok ? 0 : 1,
      writeError: rec.writeError,
      failure: unreachable,
    });
  } catch (e) {
    run.failed(e);
    throw e;
  } finally {
    run.close();
  }
}

/**
 * The counters of the seconds in the window (the ones the recorder's totals hold).
 * @param {RunRecorder} rec
 * @returns {Record<string, number>}
 */
function sumInWindow(rec) {
  /** @type {Record<string, number>} */
  const sum = {};
  for (const r of rec.rows) {
    if (r.index < rec.warmupS || r.index >= rec.windowEnd) continue;
    for (const [k, v] of Object.entries(r.counters)) sum[k] = (sum[k] || 0) + v;
  }
  return sum;
}
