/**
 * Runs the writers as child processes, one each, even when there is one: the parent's own work
 * (merging, files, CPU sampling, status) then never delays a send on the writer's event loop.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('./writer-process.js', import.meta.url));

/**
 * @typedef {object} WriterSpec
 * @property {object} flags     parsed flags (the child rebuilds the connection from them)
 * @property {string} mode      store mode
 * @property {object} storeCfg
 * @property {import('./writer.js').WriterPlan} plan
 */

/** `specs.length` writers, one child process each. */
export class ChildWriters {
  /**
   * @param {WriterSpec[]} specs
   * @param {(source: number, iv: import('./writer.js').Interval) => void} onInterval
   * @param {(source: number) => void} onExit a writer will send nothing more
   */
  constructor(specs, onInterval, onExit) {
    this.count = specs.length;
    this.errors = [];
    this.children = specs.map((spec, i) => {
      const child = fork(CHILD, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced' });
      child.spec = spec;
      child.on('message', (msg) => {
        if (msg.type === 'interval') onInterval(i, msg.iv);
        else if (msg.type === 'failed') this.errors.push(`writer ${spec.plan.a}: ${msg.message}`);
        child.emit(msg.type, msg);
      });
      child.exited = new Promise((resolve) => child.once('exit', (code) => {
        if (code) this.errors.push(`writer ${spec.plan.a} exited with code ${code}`);
        onExit(i);
        resolve(code);
      }));
      return child;
    });
  }

  /** Resolves when every child has connected and encoded its chunks; rejects on the first failure. */
  ready() {
    return Promise.all(this.children.map((child) => new Promise((resolve, reject) => {
      child.once('ready', resolve);
      child.once('failed', (m) => reject(new Error(m.message)));
      child.exited.then(() => reject(new Error(this.errors[0] || 'a writer exited before it was ready')));
      child.send({ type: 'init', flags: child.spec.flags, mode: child.spec.mode, storeCfg: child.spec.storeCfg, plan: child.spec.plan });
    })));
  }

  /** @param {number} t0 */
  start(t0) {
    for (const c of this.children) c.send({ type: 'start', t0 });
    this.finished = Promise.all(this.children.map((c) => c.exited));
    return this.finished;
  }

  stop() {
    for (const c of this.children) if (c.connected) c.send({ type: 'stop' });
  }

  kill() {
    for (const c of this.children) if (c.exitCode === null) c.kill('SIGKILL');
  }
}
