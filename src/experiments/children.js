/**
 * The runners' child processes: the real CLIs, spawned as a person would type them, in their own
 * process group, and one Ctrl-C handler for a run of several of them (experiments, capacity).
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * A word as a shell takes it: quoted when it holds anything but plain characters.
 * @param {string} a
 */
export function shellQuote(a) {
  return /^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, "'\\''")}'`;
}

/**
 * A command as it can be pasted into a shell.
 * @param {string} file
 * @param {string[]} args
 */
export function commandLine(file, args) {
  return [file, ...args].map(shellQuote).join(' ');
}

/**
 * What a step's CLI is told when the runner serves live metrics: relay them to the runner's
 * endpoint, labelled with the step, under the runner's run_id, with the runner's bucket layout
 * (the hub serves the children's buckets as they lay them out).
 * @param {{ hub: { buckets: string }, runId: string }|null} live the runner's hub and run id, or null (no metrics)
 * @param {string} step
 * @returns {string[]}
 */
export function relayArgs(live, step) {
  return live ? ['--metrics-relay', '--metrics-label', `step=${step}`, '--run-id', live.runId, '--metrics-buckets', live.hub.buckets] : [];
}

/**
 * Spawns `node <argv>` in its own process group, so a terminal's Ctrl-C reaches only the runner,
 * which passes exactly one SIGINT on (a second one would make the CLI leave without its summary).
 * @param {string[]} argv
 * @param {Stopper} stopper
 * @param {{ env?: NodeJS.ProcessEnv, hub?: import('../harness/metrics-hub.js').MetricsHub|null }} [o] env: the
 *   environment (a password travels here, never in argv); hub: the runner's metrics endpoint, which
 *   the child (started with relayArgs) sends its metrics to over an IPC channel
 * @returns {Promise<{ argv: string[], code: number|null, signal: string|null, lastLine: string }>}
 */
export function runChild(argv, stopper, { env = process.env, hub = null } = {}) {
  return new Promise((resolve, reject) => {
    const stdio = /** @type {import('node:child_process').StdioOptions} */ (
      hub ? ['ignore', 'ignore', 'pipe', 'ipc'] : ['ignore', 'ignore', 'pipe']
    );
    // the runner's whole tree (its steps' CLIs side by side, the servers it started) is the run's own to
    // each CLI's noise sentinel: only what is outside it is noise
    const child = spawn(process.execPath, argv, {
      cwd: ROOT,
      env: { ...env, RQBENCH_RUN_ROOT: env.RQBENCH_RUN_ROOT ?? String(process.pid) },
      stdio,
      detached: true,
    });
    hub?.attach(child);
    let err = '';
    child.stderr.on('data', (d) => {
      err = (err + d).slice(-4000);
    });
    const forget = stopper.track(child);
    child.once('error', (e) => {
      forget();
      reject(e);
    });
    child.once('close', (code, signal) => {
      forget();
      const lastLine = err.trim().split('\n').filter(Boolean).pop() ?? '';
      resolve({ argv, code, signal, lastLine });
    });
  });
}

/**
 * Ctrl-C (SIGINT/SIGTERM): the first stops the running step cleanly (its CLIs get one SIGINT and
 * write their summaries) and no further step starts; the second kills the step's processes.
 */
export class Stopper {
  /**
   * @param {(line: string) => void} log
   * @param {string} [prog] names the runner in its lines
   */
  constructor(log, prog = 'rqbench experiment') {
    this.log = log;
    this.prog = prog;
    this.stopped = false;
    this.controller = new AbortController();
    this.signal = this.controller.signal;
    /** @type {Set<import('node:child_process').ChildProcess>} */
    this.children = new Set();
    this.onSignal = () => {
      if (this.stopped) {
        this.log(`${this.prog}: stopping now`);
        for (const c of this.children) c.kill('SIGKILL');
        return;
      }
      this.stopped = true;
      this.controller.abort();
      this.log(`${this.prog}: interrupted; stopping the current step (Ctrl-C again to kill it)`);
      for (const c of this.children) c.kill('SIGINT');
    };
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  /** @param {import('node:child_process').ChildProcess} child @returns {() => void} */
  track(child) {
    this.children.add(child);
    if (this.stopped) child.kill('SIGINT');
    return () => this.children.delete(child);
  }

  dispose() {
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
  }
}
