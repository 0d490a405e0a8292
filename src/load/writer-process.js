/**
 * A writer in its own process (one per -t when -a is omitted). The parent sends `init`,
 * waits for every `ready`, then sends one shared `start` time; intervals go back over IPC.
 */
import { Writer } from './writer.js';
import { createStore } from '../stores/index.js';
import { connectionFrom } from '../targets/redis.js';

let writer;
let done = false;
let started = false;

// Ctrl-C reaches the whole process group; the parent decides when writers stop.
process.on('SIGINT', () => {});
process.on('SIGTERM', () => (started ? writer.stop() : process.exit(0)));
// the parent is gone: nobody would read the results
process.on('disconnect', () => { if (!done) process.exit(1); });

process.on('message', async (msg) => {
  try {
    if (msg.type === 'init') {
      writer = new Writer({
        conn: connectionFrom(msg.flags),
        store: createStore(msg.mode, msg.storeCfg),
        plan: msg.plan,
        onInterval: (iv) => process.send({ type: 'interval', iv }),
      });
      await writer.connect();
      process.send({ type: 'ready' });
    } else if (msg.type === 'start') {
      writer.plan.t0 = msg.t0;
      started = true;
      await writer.run();
      done = true;
      process.send({ type: 'done' }, () => process.exit(0));
    } else if (msg.type === 'stop') {
      if (!started) process.exit(0); // stopped before its first send
      writer.stop();
    }
  } catch (e) {
    process.send({ type: 'failed', message: e.message }, () => process.exit(1));
  }
});
