/**
 * One open-loop kv client, in its own process (items/worker-process.js): each operation is sent at
 * its intended time (the arrival process over the rate curve, this client's share of it), never
 * waiting for replies (except when maxInflight operations are outstanding, or a node already has
 * --pipeline operations outstanding: the rest wait in the client, in order, their latency from the
 * intended start counting the wait), on a key the key chooser picked. Its latency is recorded per operation from the intended start and from the
 * send; the operations sent to each node are counted (the summary's shares, where a hot shard
 * shows); one interval a second.
 */
import { performance } from 'node:perf_hooks';
import { RedisRouter } from '../../transports/redis-router.js';
import { ClusterSender } from '../../transports/cluster-sender.js';
import { encodeBatch } from '../../transports/resp.js';
import { keySlot } from '../../transports/slot.js';
import { Counters } from '../../measure/counters.js';
import { ClientSampler } from '../../measure/client-sampler.js';
import { newHistogram, record } from '../../measure/histogram.js';
import { toSparse } from '../../measure/sparse.js';
import { OpHistograms, sparseOps } from '../../measure/op-histograms.js';
import { IntervalClock } from '../../harness/clock.js';
import { settings } from '../../settings.js';
import { streamOf } from './random.js';
import { keyChooser } from './key-choosers.js';
import { sizeChooser, valueBytes } from './sizes.js';
import { arrivals } from './arrivals.js';
import { KV_OPS, argsOf, keyNamer, opChooser } from './kv-ops.js';

/**
 * @typedef {object} KvPlan
 * @property {number} a this client, 1..t
 * @property {number} t clients
 * @property {number} seed
 * @property {import('./arrivals.js').RatePoint[]} ramp the run's rate curve, operations a second of all clients
 * @property {'constant'|'poisson'} arrivals
 * @property {import('./kv-ops.js').Mix} mix
 * @property {number} keys the key space
 * @property {import('./key-choosers.js').KeyDist} keyDist
 * @property {string} keyPattern
 * @property {import('./sizes.js').SizeDist} sizes
 * @property {number} ttl seconds on SET and insert, 0: none
 * @property {'master'|'replica'|'any'} readFrom
 * @property {number} durationMs 0: until stop()
 * @property {number} t0 epoch ms of the run's start (shared by every client)
 * @property {number} maxInflight operations awaiting replies before sending waits
 * @property {number} [pipeline] operations outstanding on one node at most (0: every operation due at once)
 */

/** Operations sent in one tick at most: a client far behind still hands over its seconds. */
const MAX_PER_TICK = 5000;

/** @typedef {{ op: string, key: string, slot: number, intended: number, sentAt: number, args: Array<string|Buffer>, stage: number }} Sent */

export class KvWorker {
  /**
   * @param {object} opts
   * @param {import('../../transports/redis.js').RedisConn} opts.conn
   * @param {KvPlan} opts.plan
   * @param {(iv: object) => void} opts.onInterval
   */
  constructor({ conn, plan, onInterval }) {
    this.conn = conn;
    this.plan = plan;
    this.onInterval = onInterval;
    const { seed, a } = plan;
    const stream = (name) => streamOf(seed, `${name}.${a}`);
    this.nextOp = opChooser(plan.mix, stream('ops'));
    this.keys = keyChooser(plan.keyDist, plan.keys, stream('keys'));
    this.size = sizeChooser(plan.sizes, stream('sizes'));
    this.pick = stream('members');
    this.keyName = keyNamer(plan.keyPattern);
    // two copies of one arrival sequence: one sends, one counts what was due each second
    const gaps = () => this.#arrivals(stream('gaps'));
    this.gap = gaps();
    this.due = gaps();
    this.dueAt = this.due() * 1000;
    this.value = valueBytes(plan.sizes, seed);
    /** inserts so far: insert k writes key (a - 1 + t·k) mod keys, the newest is what latest: reads */
    this.inserted = 0;
    this.latest = plan.keys - 1;
    this.counters = /** @type {Counters & import('../../measure/counters.js').WriterCounts} */ (new Counters());
    this.router = new RedisRouter(conn, { watchDrops: true });
    this.sender = new ClusterSender(this.router, this.counters);
    // reads from the replicas go through a router of their own (READONLY connections)
    this.readRouter = plan.readFrom === 'master' ? null : new RedisRouter(conn, { readFrom: 'replica', spread: a, watchDrops: true });
    this.readSender = this.readRouter ? new ClusterSender(this.readRouter, this.counters) : this.sender;
    /** --read-from any: reads so far, the even ones to the master and the odd ones to a replica */
    this.reads = 0;
    this.hist = new OpHistograms();
    /** every operation's latency together, this second (the timeline's all_p99_ms) */
    this.all = this.hist.of('all');
    this.lag = newHistogram();
    /** @type {Map<string, number>} operations sent to each node this second */
    this.nodeOps = new Map();
    this.inflight = 0;
    /** --pipeline: operations outstanding on each node (by sender and address), and those waiting for room */
    this.outstanding = new Map();
    /** @type {Map<string, Sent[]>} */
    this.waiting = new Map();
    this.unacked = 0;
    this.stopping = false;
    this.finished = false;
    /** @type {number|undefined} intended start of the next operation, perf ms */
    this.nextDue = undefined;
    /** @type {NodeJS.Timeout|undefined} */
    this.drainTimer = undefined;
    /** @type {NodeJS.Timeout|undefined} */
    this.tickTimer = undefined;
  }

  /** @param {() => number} random */
  #arrivals(random) {
    const { arrivals: process, ramp, t, a } = this.plan;
    if (process === 'constant') return arrivals('constant', ramp, random, { every: t, from: a - 1 });
    return arrivals(
      'poisson',
      ramp.map((p) => ({ t: p.t, rate: p.rate / t })),
      random,
    );
  }

  async connect() {
    await this.router.open();
    await this.readRouter?.open();
  }

  run() {
    this.t0Perf = this.plan.t0 - performance.timeOrigin;
    this.nextDue = this.t0Perf + this.gap() * 1000;
    this.client = new ClientSampler();
    return new Promise((resolve) => {
      this.finish = resolve;
      this.clock = new IntervalClock(this.t0Perf, () => this.#emit(false));
      this.clock.start();
      this.#tick();
    });
  }

  /** @param {number} [drainMs] */
  stop(drainMs) {
    if (drainMs !== undefined) this.drainMs = Math.min(this.drainMs ?? Infinity, drainMs);
    if (this.stopping) return;
    this.stopping = true;
    this.stoppedAt ??= performance.now() - this.t0Perf;
    clearTimeout(this.tickTimer);
    this.#maybeFinish();
  }

  #tick() {
    this.tickTimer = undefined;
    const now = performance.now();
    const endAt = this.plan.durationMs ? this.t0Perf + this.plan.durationMs : Infinity;
    /** @type {Map<ClusterSender, Map<string, Sent[]>>} */
    const groups = new Map();
    let n = 0;
    let due = /** @type {number} */ (this.nextDue);
    while (!this.stopping && due <= now && due < endAt && this.inflight + n < this.plan.maxInflight && n < MAX_PER_TICK) {
      this.#queue(due, now, groups);
      n++;
      due = this.t0Perf + this.gap() * 1000;
    }
    this.nextDue = due;
    for (const [sender, byNode] of groups) for (const [addr, ops] of byNode) this.#dispatch(sender, addr, ops);
    if (this.stopping) return;
    // past the end, operations still owed are not sent late: intended against sent shows them (a
    // ramp down to 0 has no next operation at all)
    if (due >= endAt || now >= endAt || due === Infinity) {
      this.stoppedAt = Math.min(this.plan.durationMs || Infinity, now - this.t0Perf);
      this.stop(settings.drainMs);
      return;
    }
    if (this.inflight >= this.plan.maxInflight) {
      this.capSince ??= now;
      return; // a reply frees a slot and ticks again
    }
    this.tickTimer = setTimeout(() => this.#tick(), Math.max(0, due - performance.now()));
  }

  /** One operation, due at `intended`, into its sender's and node's group. */
  #queue(intended, now, groups) {
    const op = this.nextOp();
    const spec = KV_OPS[op];
    let index;
    if (spec.insert) {
      index = (this.plan.a - 1 + this.plan.t * this.inserted++) % this.plan.keys;
      this.latest = index;
    } else index = this.keys.next(this.latest);
    const key = this.keyName(index);
    const value = spec.value ? this.value.subarray(0, this.size()) : null;
    const args = argsOf(op, key, value, this.plan.ttl, this.pick());
    // a read goes to a replica (--read-from replica), or to the master and a replica in turn (any)
    const replica = spec.read && this.readRouter !== null && (this.plan.readFrom === 'replica' || this.reads++ % 2 === 1);
    const sender = replica ? this.readSender : this.sender;
    const router = replica ? /** @type {RedisRouter} */ (this.readRouter) : this.router;
    const slot = keySlot(/** @type {string} */ (args[1]));
    const addr = router.addrFor(slot);
    let byNode = groups.get(sender);
    if (!byNode) groups.set(sender, (byNode = new Map()));
    let ops = byNode.get(addr);
    if (!ops) byNode.set(addr, (ops = []));
    ops.push({ op, key, slot, intended, sentAt: now, args, stage: op === 'rmw' ? 1 : 0 });
    record(this.lag, (now - intended) * 1000);
  }

  /**
   * Operations for one node: all sent at once, or with --pipeline as many as the node has room for,
   * the rest waiting in order (counted in flight: --max-inflight holds them too).
   * @param {ClusterSender} sender @param {string} addr @param {Sent[]} ops
   */
  #dispatch(sender, addr, ops) {
    this.inflight += ops.length;
    const limit = this.plan.pipeline ?? 0;
    if (!limit) return this.#send(sender, addr, ops);
    const k = this.#pipeOf(sender, addr);
    const queue = this.waiting.get(k);
    const room = queue?.length ? 0 : limit - (this.outstanding.get(k) ?? 0);
    if (room >= ops.length) return this.#send(sender, addr, ops);
    if (room > 0) this.#send(sender, addr, ops.slice(0, room));
    const rest = room > 0 ? ops.slice(room) : ops;
    if (queue) queue.push(...rest);
    else this.waiting.set(k, rest);
  }

  /** A node's pipe, as --pipeline counts it: the same address reached by two senders (master, replica reads) is two. */
  #pipeOf(sender, addr) {
    return `${sender === this.sender ? 'w' : 'r'}${addr}`;
  }

  /** @param {ClusterSender} sender @param {string} addr @param {Sent[]} ops already counted in flight */
  #send(sender, addr, ops) {
    this.counters.sent += ops.length;
    this.nodeOps.set(addr, (this.nodeOps.get(addr) ?? 0) + ops.length);
    if (this.plan.pipeline) {
      const k = this.#pipeOf(sender, addr);
      this.outstanding.set(k, (this.outstanding.get(k) ?? 0) + ops.length);
    }
    const { buf, starts } = encodeBatch(ops.map((o) => o.args));
    sender.send(addr, new KvBatch(this, ops, buf, starts, sender, addr));
  }

  /** Operation `o` answered at `now`: a read-modify-write's GET sends its SET; anything else is done. */
  answered(o, now) {
    if (o.stage === 1) {
      o.stage = 2;
      o.args = argsOf('set', o.key, this.value.subarray(0, this.size()), this.plan.ttl, 0);
      this.#dispatch(this.sender, this.router.addrFor(o.slot), [o]);
      return;
    }
    this.counters.acked++;
    const fromIntended = (now - o.intended) * 1000;
    const fromSent = (now - o.sentAt) * 1000;
    const mine = this.hist.of(o.op);
    record(mine.intended, fromIntended);
    record(mine.sent, fromSent);
    record(this.all.intended, fromIntended);
    record(this.all.sent, fromSent);
  }

  /**
   * A batch settled: its operations leave the in-flight count, the node's pipe has room for as
   * many waiting ones, and sending may go on.
   * @param {number} n @param {number} now @param {ClusterSender} sender @param {string} addr
   */
  settled(n, now, sender, addr) {
    this.inflight -= n;
    if (this.plan.pipeline) {
      const k = this.#pipeOf(sender, addr);
      this.outstanding.set(k, (this.outstanding.get(k) ?? 0) - n);
      const queue = this.waiting.get(k);
      if (queue?.length && !this.finished) {
        const next = queue.splice(0, this.plan.pipeline - /** @type {number} */ (this.outstanding.get(k)));
        if (!queue.length) this.waiting.delete(k);
        // latency from the send starts now: the wait before it is in the latency from the intended start
        for (const o of next) o.sentAt = now;
        if (next.length) this.#send(sender, addr, next);
      }
    }
    if (this.capSince !== undefined) {
      this.counters.capWaitMs += now - this.capSince;
      this.capSince = undefined;
    }
    if (this.finished) return;
    if (this.stopping) this.#maybeFinish();
    else if (this.tickTimer === undefined && this.inflight < this.plan.maxInflight) this.#tick();
  }

  #maybeFinish() {
    if (this.finished) return;
    if (this.inflight > 0) {
      // a bounded drain: replies that never come are reported as unacknowledged
      this.drainTimer ??= setTimeout(() => {
        this.unacked = this.inflight;
        this.inflight = 0;
        this.#maybeFinish();
      }, this.drainMs ?? settings.drainMs);
      return;
    }
    this.finished = true;
    clearTimeout(this.drainTimer);
    this.clock.stop();
    this.#emit(true);
    this.client.stop();
    this.router.close();
    this.readRouter?.close();
    this.finish();
  }

  /** Hands over this second's counters and histograms, the operations per node among the counters. */
  #emit(final) {
    const index = this.clock.index;
    const ops = this.hist.take();
    this.all = this.hist.of('all');
    const lag = this.lag;
    this.lag = newHistogram();
    /** @type {Record<string, any>} */
    const counters = this.counters.snapshot();
    for (const [addr, n] of this.nodeOps) counters[`ops@${addr}`] = n;
    this.nodeOps.clear();
    if (final) counters.unacked = this.unacked;
    const mine = this.router.drops.take(final);
    const theirs = this.readRouter?.drops.take(final) ?? { events: [], drops: [] };
    this.onInterval({
      index,
      final,
      intended: this.#dueIn(index),
      counters,
      hist: sparseOps(ops, { lag: toSparse(lag) }),
      client: this.client.sample(),
      events: [...mine.events, ...theirs.events],
      drops: [...mine.drops, ...theirs.drops],
    });
  }

  /** Operations the schedule put in second `index`, up to the end (or the stop): counted on a copy of the sequence. */
  #dueIn(index) {
    const end = Math.min((index + 1) * 1000, this.plan.durationMs || Infinity, this.stoppedAt ?? Infinity);
    let n = 0;
    while (this.dueAt < end) {
      if (this.dueAt >= index * 1000) n++;
      this.dueAt = this.due() * 1000;
    }
    return n;
  }
}

/**
 * The operations of one node written together, as ClusterSender sends them: each answer goes to
 * its operation (by index: replies of retried commands come later, out of order), a command that
 * fails for good is counted, and the worker hears when the batch is settled (a ClusterSender Batch).
 */
class KvBatch {
  /**
   * @param {KvWorker} worker @param {Sent[]} ops @param {Buffer} buf @param {number[]} starts
   * @param {ClusterSender} sender @param {string} addr the node it was sent to (its --pipeline room)
   */
  constructor(worker, ops, buf, starts, sender, addr) {
    this.worker = worker;
    this.sender = sender;
    this.addr = addr;
    this.ops = ops;
    this.n = ops.length;
    this.buf = buf;
    this.starts = starts;
  }

  /** @param {number} i */
  slotOf(i) {
    return this.ops[i].slot;
  }

  /** @param {number} i */
  value(i) {
    this.worker.answered(this.ops[i], performance.now());
  }

  /** @param {number} _i @param {Error} err */
  fail(_i, err) {
    this.worker.counters.error(err);
    this.worker.counters.failed++;
  }

  /** @param {number} now */
  done(now) {
    this.worker.settled(this.n, now, this.sender, this.addr);
  }
}
