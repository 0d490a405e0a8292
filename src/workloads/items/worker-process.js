/**
 * A writer or a reader in its own process. The parent sends `init`, waits for every `ready`,
 * then sends one shared `start` time; intervals go back over IPC.
 */
import { Writer } from './writer.js';
import { Reader } from './reader.js';
import { createReadModel, createStore } from './stores/registry.js';
import { connectionFrom } from '../../transports/redis.js';

/** How each kind is built from its init message; each has connect(), run(), stop() and plan.t0. */
const factories = {
  writer: (conn, init, onInterval) => new Writer({ conn, store: createStore(init.mode, init.storeCfg), plan: init.plan, onInterval }),
  reader: (conn, init, onInterval) => new Reader({ conn, model: createReadModel(init.mode, init.storeCfg), plan: init.plan, onInterval }),
  // loaded only by a kv client: writers and readers never pay for its generators
  kv: async (conn, init, onInterval) => new (await import('../kv/kv-worker.js')).KvWorker({ conn, plan: init.plan, onInterval }),
};

/** @type {Writer|Reader|import('../kv/kv-worker.js').KvWorker} */
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
