/**
 * Runs writers, readers or kv clients as child processes, one each, even when there is one: the parent's
 * own work (merging, files, CPU sampling, status) then never delays a send on a worker's event
 * loop. Protocol: init → ready (connected, prepared) → start(t0) → intervals … → done.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./worker-process.js', import.meta.url));

/**
 * @typedef {object} WorkerSpec
 * @property {'writer'|'reader'|'kv'} kind
 * @property {string} label     e.g. 'writer 3', for error messages
 * @property {object} flags     parsed flags (the child rebuilds the connection from them)
 * @property {object} init      what the kind's factory needs (store mode and config, plan …)
 */

/**
 * What the parent sends a worker.
 * @typedef {{ type: 'init', kind: WorkerSpec['kind'], flags: object, init: WorkerSpec['init'] }
 *   | { type: 'start', t0: number }
 *   | { type: 'stop', drainMs?: number }} ParentMessage
 */

/**
 * What a worker sends back.
 * @typedef {{ type: 'ready' } | { type: 'done' } | { type: 'interval', iv: object } | { type: 'failed', message: string }} ChildMessage
 */

/** @typedef {import('node:child_process').ChildProcess & { spec: WorkerSpec, exited: Promise<number|null> }} WorkerChild */

/** `specs.length` workers, one child process each. */
export class ChildPool {
  /**
   * @param {WorkerSpec[]} specs
   * @param {(source: number, iv: object) => void} onInterval
   * @param {(source: number) => void} onExit a worker will send nothing more
   */
  constructor(specs, onInterval, onExit) {
    this.count = specs.length;
    this.errors = [];
    this.children = specs.map((spec, i) => {
      const child = /** @type {WorkerChild} */ (
        fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' })
      );
      child.spec = spec;
      child.on('message', (/** @type {ChildMessage} */ msg) => {
        if (msg.type === 'interval') onInterval(i, msg.iv);
        else if (msg.type === 'failed') this.errors.push(`${spec.label}: ${msg.message}`);
        child.emit(msg.type, msg);
      });
      child.exited = new Promise((resolve) =>
        child.once('exit', (code) => {
          if (code) this.errors.push(`${spec.label} exited with code ${code}`);
          onExit(i);
          resolve(code);
        }),
      );
      return child;
    });
  }

  /** Resolves when every child has connected and prepared; rejects on the first failure. */
  ready() {
    return Promise.all(
      this.children.map(
        (child) =>
          new Promise((resolve, reject) => {
            child.once('ready', resolve);
            child.once('failed', (m) => reject(new Error(m.message)));
            child.exited.then(() => reject(new Error(this.errors[0] || `${child.spec.label} exited before it was ready`)));
            const { kind, flags, init } = child.spec;
            child.send({ type: 'init', kind, flags, init });
          }),
      ),
    );
  }

  /** @param {number} t0 epoch ms of the first intended operation, shared by all workers */
  start(t0) {
    for (const c of this.children) c.send({ type: 'start', t0 });
    this.finished = Promise.all(this.children.map((c) => c.exited));
    return this.finished;
  }

  /** @param {number} [drainMs] how long replies still owed are awaited (default: the worker's own) */
  stop(drainMs) {
    for (const c of this.children) if (c.connected) c.send({ type: 'stop', drainMs });
  }

  kill() {
    for (const c of this.children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}
