/**
 * One consumer: every period it asks for the cardinality, the live items and their values
 * (the seed's consumer cycle), timing each phase, checking every value against its key, and
 * hands over one interval a second. Cycles start on a fixed grid from t0; one that is still
 * running when the next is due makes that one late (an overrun), and the lateness is measured.
 */
import { performance } from 'node:perf_hooks';
import { RedisRouter } from '../targets/redis-router.js';
import { Fetcher, seedClient } from './fetch.js';
import { Counters } from '../measure/counters.js';
import { ClientSampler } from '../measure/client-sampler.js';
import { record } from '../measure/histogram.js';
import { OpHistograms, sparseOps } from '../measure/op-histograms.js';
import { IntervalClock } from './interval-clock.js';

/** What a reader counts each second. */
export const READER_COUNTERS = ['cycles', 'overruns', 'items', 'fetched', 'missing', 'duplicates', 'mismatched', 'cardinality', 'uniques', 'errors'];

/**
 * @typedef {object} ReaderPlan
 * @property {number} periodMs
 * @property {number} durationMs   0: until stop()
 * @property {number} t0           epoch ms of the first intended cycle
 * @property {number} limit        0: every live item; N: the newest N
 * @property {'mget'|'pipeline'|'get'} fetch
 * @property {'master'|'replica'} readFrom
 * @property {number} spread       this reader's number, spreads readers over replicas
 * @property {number} ttl          seconds: items older than this are not live
 * @property {boolean} script      -s script: cardinality and range in one Lua call
 */

export class Reader {
  /**
   * @param {object} opts
   * @param {import('../targets/redis.js').RedisConn} opts.conn
   * @param {ReturnType<import('../stores/read-index.js').createReadModel>} opts.model
   * @param {ReaderPlan} opts.plan
   * @param {(iv: object) => void} opts.onInterval
   */
  constructor({ conn, model, plan, onInterval }) {
    this.conn = conn;
    this.model = model;
    this.plan = plan;
    this.onInterval = onInterval;
    this.router = new RedisRouter(conn, { readFrom: plan.readFrom, spread: plan.spread });
    this.counters = new Counters(READER_COUNTERS);
    this.hist = new OpHistograms();
    this.k = 0;
    this.stopping = false;
    this.io = { call: (key, args) => this.#call(key, args) };
    this.seen = new Uint8Array(1024);
    this.stamp = 0;
  }

  async connect() {
    this.router.onOpen = async (pipe) => {
      for (const s of this.model.scripts) await pipe.call(['SCRIPT', 'LOAD', s.lua]);
    };
    await this.router.open();
    const client = this.plan.fetch === 'get' ? seedClient(this.conn, this.plan.readFrom, this.router.addrFor(0)) : undefined;
    if (client) {
      client.on('error', () => {}); // failures surface as rejected gets, counted per cycle
      await (this.conn.cluster ? new Promise((resolve, reject) => { client.once('ready', resolve); client.once('error', reject); }) : client.ping());
    }
    this.seed = client;
    this.fetcher = new Fetcher(this.router, this.plan.fetch, client);
  }

  /** Runs cycles to the end (or stop()) and resolves after the last one. */
  run() {
    this.t0Perf = this.plan.t0 - performance.timeOrigin;
    this.client = new ClientSampler();
    return new Promise((resolve) => {
      this.finish = resolve;
      this.clock = new IntervalClock(this.t0Perf, () => this.#emit(false));
      this.clock.start();
      this.#next();
    });
  }

  stop() {
    if (this.stopping) return;
    this.stopping = true;
    clearTimeout(this.timer);
    if (!this.busy) this.#end();
  }

  /** Starts the next cycle when it is due, or at once when it is already late. */
  #next() {
    if (this.stopping) return this.#end();
    const due = this.t0Perf + this.k * this.plan.periodMs;
    const now = performance.now();
    // the run ends at its duration: cycles still owed by then (overruns) are not run late
    if (this.plan.durationMs && Math.max(due, now) - this.t0Perf >= this.plan.durationMs) return this.#end();
    const wait = due - now;
    if (wait > 0) this.timer = setTimeout(() => this.#cycle(due), wait);
    else this.#cycle(due);
  }

  async #cycle(intended) {
    this.k++;
    this.busy = true;
    const start = performance.now();
    try {
      await this.#measuredCycle(intended, start);
    } catch (e) {
      this.counters.error(e);
    }
    const end = performance.now();
    this.busy = false;
    this.counters.cycles++;
    const h = this.hist.of('cycle');
    record(h.intended, (end - intended) * 1000);
    record(h.sent, (end - start) * 1000);
    // the next cycle was due before this one ended: it starts late, and that is an overrun
    if (end > this.t0Perf + this.k * this.plan.periodMs) this.counters.overruns++;
    this.#next();
  }

  async #measuredCycle(intended, start) {
    const nowMs = performance.timeOrigin + start;
    const cutoff = Math.floor(nowMs - this.plan.ttl * 1000);
    let card;
    let members;
    let t1;
    if (this.plan.script) {
      const r = await this.model.viaScript(this.io, cutoff, this.plan.limit);
      t1 = performance.now();
      card = r;
      members = r.members;
      this.#phase('range', t1 - start);
    } else {
      card = await this.model.cardinality(this.io, nowMs);
      t1 = performance.now();
      this.#phase('card', t1 - start);
      members = await this.model.range(this.io, cutoff, this.plan.limit, nowMs);
      this.#phase('range', performance.now() - t1);
    }
    const t2 = performance.now();
    const values = this.model.membersAreValues ? members : await this.fetcher.fetch(members);
    if (!this.model.membersAreValues) this.#phase('values', performance.now() - t2);
    this.counters.cardinality += card.count;
    if (card.uniques !== undefined) this.counters.uniques += card.uniques;
    if (card.newest !== null && card.newest !== undefined) {
      const s = this.hist.of('staleness');
      record(s.sent, (nowMs - card.newest) * 1000);
    }
    this.#check(members, values);
  }

  /** Counts what came back: values, missing (expired between range and fetch), duplicates, mismatches. */
  #check(members, values) {
    const c = this.counters;
    c.items += members.length;
    // ids seen this cycle, one byte each (a Set of 300k ids is most of a cycle's garbage)
    const stamp = (this.stamp = (this.stamp % 255) + 1);
    if (stamp === 1) this.seen.fill(0); // stamps wrapped: older marks would read as this cycle's
    for (let i = 0; i < members.length; i++) {
      const v = values[i];
      if (v === null || v === undefined) {
        c.missing++;
        continue;
      }
      c.fetched++;
      const id = leadingId(v);
      if (id < 0) {
        c.mismatched++;
        continue;
      }
      if (id >= this.seen.length) this.#grow(id);
      if (this.seen[id] === stamp) c.duplicates++;
      else this.seen[id] = stamp;
      // a key names its item: item:<id> or item:{tag}:<id>
      if (!this.model.membersAreValues && trailingId(members[i]) !== id) c.mismatched++;
    }
  }

  #grow(id) {
    const bigger = new Uint8Array(Math.max(id + 1, this.seen.length * 2));
    bigger.set(this.seen);
    this.seen = bigger;
  }

  #call(key, args) {
    const addr = this.router.addrFor(this.conn.cluster ? this.router.slotOf(key) : 0);
    const pipe = this.router.ready(addr);
    return pipe ? pipe.call(args) : this.router.pipe(addr).then((p) => p.call(args));
  }

  #phase(name, ms) {
    record(this.hist.of(name).sent, ms * 1000);
  }

  #end() {
    if (this.finished || this.busy) return;
    this.finished = true;
    clearTimeout(this.timer);
    this.clock.stop();
    this.#emit(true);
    this.client.stop();
    this.router.close();
    this.seed?.disconnect();
    this.finish();
  }

  #emit(final) {
    const hist = sparseOps(this.hist.take());
    this.onInterval({ index: this.clock.index, final, intended: 0, counters: this.counters.snapshot(), hist, client: this.client.sample() });
  }
}

/** The id a payload starts with (`<id>:`), or -1 when it is not one of ours. */
function leadingId(v) {
  let id = 0;
  const n = Math.min(v.length, 17);
  for (let i = 0; i < n; i++) {
    const ch = v.charCodeAt(i);
    if (ch === 58) return i > 0 ? id : -1; // ':'
    if (ch < 48 || ch > 57) return -1;
    id = id * 10 + (ch - 48);
  }
  return -1;
}

/** The id at the end of a key (`item:<id>`, `item:{tag}:<id>`), or -2 when there is none. */
function trailingId(key) {
  let id = 0;
  let mul = 1;
  for (let i = key.length - 1; i >= 0; i--) {
    const ch = key.charCodeAt(i);
    if (ch === 58) return mul > 1 ? id : -2;
    if (ch < 48 || ch > 57) return -2;
    id += (ch - 48) * mul;
    mul *= 10;
  }
  return -2;
}
