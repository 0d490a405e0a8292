/**
 * A writer or a reader in its own process. The parent sends `init`, waits for every `ready`,
 * then sends one shared `start` time; intervals go back over IPC.
 */
import { createReadModel, createStore } from './stores/registry.js';
import { connectionFrom } from '../../transports/redis.js';

/**
 * How each kind is built from its init message; each has connect(), run(), stop() and plan.t0.
 * Each loads only its own module: a writer never pays for the reader's (ioredis among them), nor a
 * reader for the writer's, and a process's imports are most of what a short run costs.
 */
const factories = {
  writer: async (conn, init, onInterval) =>
    new (await import('./writer.js')).Writer({ conn, store: createStore(init.mode, init.storeCfg), plan: init.plan, onInterval }),
  reader: async (conn, init, onInterval) =>
    new (await import('./reader.js')).Reader({ conn, model: createReadModel(init.mode, init.storeCfg), plan: init.plan, onInterval }),
  kv: async (conn, init, onInterval) => new (await import('../kv/kv-worker.js')).KvWorker({ conn, plan: init.plan, onInterval }),
};

/** @type {import('./writer.js').Writer|import('./reader.js').Reader|import('../kv/kv-worker.js').KvWorker} */
let worker;
let done = false;
let started = false;

// Ctrl-C reaches the whole process group; the parent decides when workers stop.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => (started ? worker.stop() : process.exit(0)));
// the parent is gone: nobody would read the results
process.on('disconnect', () => {
  if (!done) process.exit(1);
});

process.on('message', async (/** @type {import('./process-pool.js').ParentMessage} */ msg) => {
  try {
    if (msg.type === 'init') {
      worker = await factories[msg.kind](connectionFrom(msg.flags), msg.init, (iv) => process.send({ type: 'interval', iv }));
      await worker.connect();
      process.send({ type: 'ready' });
    } else if (msg.type === 'start') {
      worker.plan.t0 = msg.t0;
      started = true;
      await worker.run();
      done = true;
      process.send({ type: 'done' }, () => process.exit(0));
    } else if (msg.type === 'stop') {
      if (!started) process.exit(0); // stopped before its first operation
      worker.stop(msg.drainMs);
    }
  } catch (e) {
    process.send({ type: 'failed', message: e.message }, () => process.exit(1));
  }
});
