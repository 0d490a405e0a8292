/**
 * One open-loop writer: sends its chunks at their intended times (never waiting for replies,
 * except when maxInflight chunks are outstanding), records latency from the intended start
 * and from the actual send, follows redirects, and hands over one interval a second.
 */
import { performance } from 'node:perf_hooks';
import { RedisRouter } from '../../transports/redis-router.js';
import { ClusterSender } from '../../transports/cluster-sender.js';
import { render, scoreBytes } from '../../transports/resp.js';
import { chunkRanges, idRange, intendedAt, sendsWithin } from '../../harness/schedule.js';
import { Counters } from '../../measure/counters.js';
import { ClientSampler } from '../../measure/client-sampler.js';
import { newHistogram, record } from '../../measure/histogram.js';
import { toSparse } from '../../measure/sparse.js';
import { OpHistograms, sparseOps } from '../../measure/op-histograms.js';
import { IntervalClock } from '../../harness/clock.js';
import { settings } from '../../settings.js';
import { modelMs } from '../../harness/time-scale.js';

/**
 * @typedef {object} WriterPlan
 * @property {number} q            items per period across all writers
 * @property {number} t            writers
 * @property {number} a            this writer, 1..t
 * @property {number} periodMs
 * @property {number} chunks       chunks per period
 * @property {number} durationMs   0: until stop()
 * @property {number} t0           epoch ms of the first intended send (shared by all writers)
 * @property {number} [maxInflight]
 * @property {boolean} [verify]    --verify: every period writes fresh ids (period p: id + p*q), and
 *                                 the ids acknowledged are handed over at the end to be read back
 * @property {'rqbench'|'ioredis'} [client]  who sends the commands: rqbench's ClusterSender (follows
 *                                 MOVED and ASK), or ioredis as the seed ran it (transports/ioredis-sender.js)
 * @property {number} [timeScale]  --time-scale: the data model's clock (scores, minutes, purges) runs this much slower
 */

/**
 * A writer's second, with what it saw of its connections (the timeline's events, the summary's drops).
 * @typedef {import('../../measure/aggregate.js').Interval & { events?: Array<{ atMs: number, text: string }>, drops?: import('../../transports/conn-drops.js').Drop[] }} Interval
 */

export class Writer {
  /**
   * @param {object} opts
   * @param {import('../../transports/redis.js').RedisConn} opts.conn
   * @param {import('./stores/contract.js').WriteModel} opts.store
   * @param {WriterPlan} opts.plan
   * @param {(iv: Interval) => void} opts.onInterval
   */
  constructor({ conn, store, plan, onInterval }) {
    this.conn = conn;
    this.store = store;
    this.plan = plan;
    this.onInterval = onInterval;
    this.range = idRange(plan.q, plan.t, plan.a);
    this.chunks = chunkRanges(this.range.min, this.range.max, plan.chunks);
    this.totalSends = sendsWithin(plan.periodMs, this.chunks.length, plan.durationMs);
    this.maxInflight = plan.maxInflight ?? settings.maxInflightChunks;
    // a connection that closes unasked is reopened at once and logged (when, which node, how long
    // until reconnected): the commands it owed are retried by the sender's own rule meanwhile
    this.router = new RedisRouter(conn, { watchDrops: true });
    this.counters = /** @type {Counters & import('../../measure/counters.js').WriterCounts} */ (new Counters());
    // redirects and retries are counted straight into this second's counters
    /** @type {{ send: ClusterSender['send'], close?: () => void }} */
    this.sender = new ClusterSender(this.router, this.counters);
    this.hist = new OpHistograms();
    this.lag = newHistogram();
    this.plans = new Map();
    this.k = 0;
    this.inflight = 0;
    this.stopping = false;
    this.nextPurge = 0;
    /** items of the chunks in flight: what is unacknowledged if the drain gives up */
    this.inflightItems = 0;
    this.unacked = 0;
    /** @type {Map<number, number>} acknowledged items by the second they were due in */
    this.ackedDue = new Map();
    /** --verify: [lo, hi] runs of ids acknowledged */
    this.acked = plan.verify ? [] : null;
  }

  /** Connects to every master and loads the store's scripts. */
  async connect() {
    this.router.onOpen = (pipe) => this.#loadScripts(pipe);
    await this.router.open();
    if (this.plan.client === 'ioredis') {
      // loaded only when asked for: rqbench's own writers never pay for ioredis
      const { IoredisSender } = await import('../../transports/ioredis-sender.js');
      const seedClient = new IoredisSender(this.conn, this.router.drops);
      this.sender = seedClient;
      await seedClient.open();
    }
    // encode every chunk now, so the first period is not late by the encoding time
    const nowMs = modelMs(Date.now(), this.plan.timeScale);
    for (let i = 0; i < this.chunks.length; i++) this.#planFor(i, nowMs);
  }

  async #loadScripts(pipe) {
    for (const s of this.store.scripts) await pipe.call(['SCRIPT', 'LOAD', s.lua]);
  }

  /** Runs the schedule to the end (or stop()) and resolves once replies are in. */
  run() {
    // perf-clock time of t0: all latency arithmetic stays on the monotonic clock
    this.t0Perf = this.plan.t0 - performance.timeOrigin;
    this.client = new ClientSampler();
    this.nextPurge = this.plan.t0;
    return new Promise((resolve) => {
      this.finish = resolve;
      this.clock = new IntervalClock(this.t0Perf, () => this.#emitInterval(false));
      this.clock.start();
      this.#tick();
    });
  }

  /**
   * Stops scheduling; in-flight chunks are still awaited, for at most `drainMs` (a target that
   * is gone gets a short one: its replies will not come).
   * @param {number} [drainMs]
   */
  stop(drainMs) {
    if (drainMs !== undefined) this.drainMs = Math.min(this.drainMs ?? Infinity, drainMs);
    if (this.stopping) {
      // already draining: a shorter drain asked for now takes over
      if (drainMs !== undefined && this.drainTimer) {
        clearTimeout(this.drainTimer);
        this.drainTimer = undefined;
        this.#maybeFinish();
      }
      return;
    }
    this.stopping = true;
    this.stoppedAt = performance.now() - this.t0Perf;
    clearTimeout(this.tickTimer);
    this.#maybeFinish();
  }

  #tick() {
    this.tickTimer = undefined;
    const now = performance.now();
    // past the end of the run, sends still owed are dropped, not sent late: intended vs sent shows them
    if (this.plan.durationMs && now - this.t0Perf >= this.plan.durationMs) this.k = this.totalSends;
    while (!this.stopping && this.k < this.totalSends && this.inflight < this.maxInflight) {
      const due = intendedAt(this.t0Perf, this.plan.periodMs, this.chunks.length, this.k);
      if (due > now) {
        this.tickTimer = setTimeout(() => this.#tick(), due - now);
        return;
      }
      this.#send(this.k++, due);
    }
    if (this.k >= this.totalSends) this.stop(this.#endDrainMs(now));
    // else: waiting for a reply to free an in-flight slot (Redis is behind); #chunkDone ticks again
    else if (this.inflight >= this.maxInflight) this.capSince ??= now;
  }

  /**
   * Plan of chunk i for the current minute and topology, grouped by node and kind. With
   * --verify, period p's ids are offset by p*q, so each period's plan is encoded afresh.
   */
  #planFor(i, nowMs, period = 0) {
    const storeEpoch = this.store.epoch(nowMs);
    const offset = this.plan.verify ? period * this.plan.q : 0;
    const cached = this.plans.get(i);
    if (cached && cached.storeEpoch === storeEpoch && cached.routerEpoch === this.router.epoch && cached.offset === offset) return cached;
    const lo = this.chunks[i].lo + offset;
    const hi = this.chunks[i].hi + offset;
    const built = {
      storeEpoch,
      routerEpoch: this.router.epoch,
      offset,
      lo,
      hi,
      segments: groupSegments(this.store.plan(lo, hi, nowMs), this.router),
      items: hi - lo + 1,
    };
    this.plans.set(i, built);
    return built;
  }

  #send(k, intended) {
    const nowMs = modelMs(performance.timeOrigin + performance.now(), this.plan.timeScale);
    const plan = this.#planFor(k % this.chunks.length, nowMs, Math.floor(k / this.chunks.length));
    const score = scoreBytes(nowMs);
    const chunk = { intended, sentAt: performance.now(), items: plan.items, lo: plan.lo, hi: plan.hi, pending: 0, failed: null };
    let segments = plan.segments;
    if (nowMs >= this.nextPurge) {
      this.nextPurge += settings.purgePeriodMs * Math.ceil((nowMs - this.nextPurge + 1) / settings.purgePeriodMs);
      segments = segments.concat(groupSegments(this.store.purge(nowMs), this.router));
    }
    this.inflight++;
    this.inflightItems += plan.items;
    this.counters.sent += plan.items;
    record(this.lag, (chunk.sentAt - intended) * 1000);
    for (const seg of segments) {
      chunk.pending++;
      this.sender.send(seg.addr, new SegmentSend(this, seg, chunk, render(seg.tpl, score)));
    }
  }

  /** A chunk's segment answered, failed or settled (ClusterSender followed any redirect or retry). */
  segmentDone(chunk, now) {
    if (this.finished) return; // a reply after the drain gave up: already counted as unacknowledged
    if (--chunk.pending > 0) return;
    this.#chunkDone(chunk, now);
  }

  #chunkDone(chunk, now) {
    const failed = chunk.failed ? chunk.failed.size : 0;
    this.counters.acked += chunk.items - failed;
    // also credited to the second the chunk was due in: the summary's achieved rate
    const due = Math.floor((chunk.intended - this.t0Perf) / 1000);
    this.ackedDue.set(due, (this.ackedDue.get(due) || 0) + chunk.items - failed);
    this.counters.failed += failed;
    if (this.acked) this.#noteAcked(chunk);
    const h = this.hist.of('batch');
    record(h.intended, (now - chunk.intended) * 1000);
    record(h.sent, (now - chunk.sentAt) * 1000);
    this.inflight--;
    this.inflightItems -= chunk.items;
    if (this.capSince !== undefined) {
      this.counters.capWaitMs += now - this.capSince;
      this.capSince = undefined;
    }
    if (this.stopping) this.#maybeFinish();
    else if (this.tickTimer === undefined) this.#tick();
  }

  /** --verify: the chunk's ids minus the ones that failed, as [lo, hi] runs. */
  #noteAcked({ lo, hi, failed }) {
    if (!failed) return this.acked.push([lo, hi]);
    let from = lo;
    for (let id = lo; id <= hi; id++) {
      if (!failed.has(id)) continue;
      if (id > from) this.acked.push([from, id - 1]);
      from = id + 1;
    }
    if (from <= hi) this.acked.push([from, hi]);
  }

  /**
   * How long replies owed after the last send are awaited. A run slowed by --time-scale K sends its
   * last batch K periods before its planned end, to a Redis that may be as slow (under Valgrind):
   * it gets the rest of the planned run, as the undilated batch does, then the drain; otherwise
   * the drain alone, as always.
   * @param {number} now performance.now()
   */
  #endDrainMs(now) {
    const k = this.plan.timeScale ?? 1;
    if (k === 1 || !this.plan.durationMs) return settings.drainMs;
    return settings.drainMs + Math.max(0, this.t0Perf + this.plan.durationMs - now);
  }

  #maybeFinish() {
    if (this.finished) return;
    if (this.inflight > 0) {
      // bounded drain: replies that never come are reported as unacknowledged
      this.drainTimer ??= setTimeout(() => {
        this.unacked = this.inflightItems;
        this.inflight = 0;
        this.#maybeFinish();
      }, this.drainMs ?? settings.drainMs);
      return;
    }
    this.finished = true;
    clearTimeout(this.drainTimer);
    this.clock.stop();
    this.#emitInterval(true);
    this.client.stop();
    this.router.close();
    this.sender.close?.();
    this.finish();
  }

  /**
   * Hands over this second's counters and histograms and starts the next interval. The swap
   * is immediate; the (small) encoding waits for the check phase, after a send due at the same instant.
   */
  #emitInterval(final) {
    const index = this.clock.index;
    const lag = this.lag;
    const ops = this.hist.take();
    this.lag = newHistogram();
    const counters = this.counters.snapshot();
    if (final) counters.unacked = this.unacked;
    const ackedDue = Object.fromEntries(this.ackedDue);
    this.ackedDue = new Map();
    const client = this.client.sample();
    const { events, drops } = this.router.drops.take(final);
    // an interrupted run was due only up to the moment it stopped
    const intended = this.#intendedIn(index, this.stoppedAt ?? Infinity);
    // a deferred emit still waiting goes first: intervals must leave in order
    this.pendingEmit?.();
    let emitted = false;
    const emit = () => {
      if (emitted) return;
      emitted = true;
      if (this.pendingEmit === emit) this.pendingEmit = null;
      const hist = sparseOps(ops, { lag: toSparse(lag) });
      this.onInterval({
        index,
        final,
        intended,
        counters,
        ackedDue,
        hist,
        client,
        events,
        drops,
        ...(final && this.acked ? { ackedIds: this.acked } : {}),
      });
    };
    if (final) return emit();
    this.pendingEmit = emit;
    setImmediate(emit);
  }

  /** Items the schedule puts in second `index` before offset `untilMs` (analytic: the schedule is fixed). */
  #intendedIn(index, untilMs) {
    const { periodMs } = this.plan;
    const c = this.chunks.length;
    const from = index * 1000;
    const to = Math.min(from + 1000, untilMs);
    let items = 0;
    // first send whose intended offset is >= from
    let k = Math.max(0, Math.ceil((from * c) / periodMs - 1e-9));
    for (; k < this.totalSends; k++) {
      const at = intendedAt(0, periodMs, c, k);
      if (at >= to) break;
      if (at >= from) items += this.chunks[k % c].hi - this.chunks[k % c].lo + 1;
    }
    return items;
  }
}

/** @typedef {import('../../transports/cluster-sender.js').Batch} Batch */

/**
 * One segment of a chunk as ClusterSender sends it: its answers go to the segment kind's
 * histograms, a command that fails for good marks its items failed, and the chunk hears when the
 * segment is settled. Methods, not closures: one object per segment sent, nothing more.
 * @implements {Batch}
 */
class SegmentSend {
  /**
   * @param {Writer} writer
   * @param {{ kind: string, cmds: import('./stores/common.js').Cmd[], starts: number[], n: number }} seg
   * @param {{ intended: number, sentAt: number, failed: Set<number>|null, pending: number }} chunk
   * @param {Buffer} buf the segment's bytes, with this send's score
   */
  constructor(writer, seg, chunk, buf) {
    this.writer = writer;
    this.seg = seg;
    this.chunk = chunk;
    this.buf = buf;
    this.n = seg.n;
    this.starts = seg.starts;
  }

  /** @param {number} i */
  slotOf(i) {
    return this.seg.cmds[i].slot;
  }

  /** @param {number} k @param {number} now */
  ok(k, now) {
    const h = this.writer.hist.of(this.seg.kind);
    record(h.intended, (now - this.chunk.intended) * 1000, k);
    record(h.sent, (now - this.chunk.sentAt) * 1000, k);
  }

  /** @param {number} i @param {Error} err */
  fail(i, err) {
    this.writer.counters.error(err);
    const ids = this.seg.cmds[i].ids;
    if (!ids.length) return;
    this.chunk.failed ??= new Set();
    for (const id of ids) this.chunk.failed.add(id);
  }

  /** @param {number} now */
  done(now) {
    this.writer.segmentDone(this.chunk, now);
  }
}

/**
 * Groups a chunk's commands by node and kind into segments: one write and one histogram each.
 * @param {import('./stores/common.js').Cmd[]} cmds
 * @param {RedisRouter} router
 */
export function groupSegments(cmds, router) {
  const groups = new Map();
  for (const c of cmds) {
    const addr = router.addrFor(c.slot);
    const key = `${addr}\u0000${c.kind}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { addr, kind: c.kind, cmds: [] }));
    g.cmds.push(c);
  }
  const out = [];
  for (const g of groups.values()) {
    const starts = new Array(g.cmds.length + 1);
    const offsets = [];
    let pos = 0;
    for (let i = 0; i < g.cmds.length; i++) {
      starts[i] = pos;
      for (const o of g.cmds[i].tpl.scoreOffsets) offsets.push(pos + o);
      pos += g.cmds[i].tpl.buf.length;
    }
    starts[g.cmds.length] = pos;
    const buf = Buffer.concat(
      g.cmds.map((c) => c.tpl.buf),
      pos,
    );
    // the segment's bytes are all a send or a retry needs: drop the per-command copies
    for (const c of g.cmds) c.tpl = undefined;
    out.push({ addr: g.addr, kind: g.kind, cmds: g.cmds, starts, n: g.cmds.length, tpl: { buf, scoreOffsets: offsets } });
  }
  return out;
}
