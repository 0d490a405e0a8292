/**
 * One consumer: every period it asks for the cardinality, the live items and their values
 * (the seed's consumer cycle), timing each phase, checking every value against its key, and
 * hands over one interval a second. Cycles start on a fixed grid from t0; one that is still
 * running when the next is due makes that one late (an overrun), and the lateness is measured.
 */
import { performance } from 'node:perf_hooks';
import { RedisRouter } from '../../transports/redis-router.js';
import { Fetcher, seedClientFor, servedMasters } from './fetch.js';
import { openNodes, replicasListed } from '../../transports/ioredis-watch.js';
import { REPLY_TIMEOUT_MS } from '../../transports/reply-watch.js';
import { Counters } from '../../measure/counters.js';
import { ClientSampler } from '../../measure/client-sampler.js';
import { record } from '../../measure/histogram.js';
import { OpHistograms, sparseOps } from '../../measure/op-histograms.js';
import { IntervalClock } from '../../harness/clock.js';
import { BytesReads } from './fetch-bytes.js';
import { MemberList } from './member-list.js';
import { SeenIds } from './seen-ids.js';
import { leadingId, trailingId } from './item-ids.js';
import { settings } from '../../settings.js';
import { modelMs } from '../../harness/time-scale.js';

/**
 * What a reader counts each second. failedCycles: cycles that ended in an error; emptyCycles: cycles that found the index empty (or missing);
 * replicaFallbacks: reads sent to another node than the replica meant to serve them (it stopped answering).
 */
/** What a cycle reads, held until the cycle is counted. */
const PENDING = /** @type {const} */ (['items', 'fetched', 'missing', 'duplicates', 'mismatched']);

export const READER_COUNTERS = [
  'cycles',
  'failedCycles',
  'emptyCycles',
  'overruns',
  'items',
  'fetched',
  'missing',
  'duplicates',
  'mismatched',
  'cardinality',
  'uniques',
  'errors',
  'replicaFallbacks',
];

/**
 * READER_COUNTERS, as fields of a reader's Counters.
 * @typedef {object} ReaderCounts
 * @property {number} cycles
 * @property {number} failedCycles
 * @property {number} emptyCycles
 * @property {number} overruns
 * @property {number} items
 * @property {number} fetched
 * @property {number} missing
 * @property {number} duplicates
 * @property {number} mismatched
 * @property {number} cardinality
 * @property {number} uniques
 * @property {number} errors
 * @property {number} replicaFallbacks
 */

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
 * @property {number} [replyTimeoutMs]  --reply-timeout: a read node silent this long while it owes a reply is
 *                                 given up on (reply-watch.js); 0: never; unset: REPLY_TIMEOUT_MS
 * @property {number} [timeScale]  --time-scale: the data model's clock (cutoffs, staleness) runs this much slower
 */

export class Reader {
  /**
   * @param {object} opts
   * @param {import('../../transports/redis.js').RedisConn} opts.conn
   * @param {import('./stores/contract.js').ReadModel} opts.model
   * @param {ReaderPlan} opts.plan
   * @param {(iv: object) => void} opts.onInterval
   */
  constructor({ conn, model, plan, onInterval }) {
    this.conn = conn;
    this.model = model;
    this.plan = plan;
    this.onInterval = onInterval;
    // a read node silent while it owes a reply is given up on (a frozen replica: its reads go to its master)
    this.router = new RedisRouter(conn, {
      readFrom: plan.readFrom,
      spread: plan.spread,
      watchDrops: true,
      replyTimeoutMs: plan.replyTimeoutMs ?? REPLY_TIMEOUT_MS,
    });
    this.counters = /** @type {Counters & ReaderCounts} */ (new Counters(READER_COUNTERS));
    /** @type {Record<typeof PENDING[number], number>} this cycle's reads, counted when it is */
    this.pendingCounts = { items: 0, fetched: 0, missing: 0, duplicates: 0, mismatched: 0 };
    /** @type {Array<[string, number]>} this cycle's phases (name, ms), recorded when it is counted */
    this.pendingPhases = [];
    this.hist = new OpHistograms();
    this.k = 0;
    this.stopping = false;
    this.io = { call: (key, args) => this.#call(key, args) };
    this.seen = new SeenIds();
    /** @type {Array<{ atMs: number, text: string, warn: true }>} what connect() found wrong, for the first second's events and the summary */
    this.notices = [];
  }

  async connect() {
    this.router.onOpen = async (pipe) => {
      for (const s of this.model.scripts) await pipe.call(['SCRIPT', 'LOAD', s.lua]);
    };
    await this.router.open();
    const client = this.plan.fetch === 'get' ? await seedClientFor(this.router) : undefined;
    if (client) {
      client.on('error', () => {}); // failures surface as rejected gets, counted per cycle
      await (this.conn.cluster
        ? new Promise((resolve, reject) => {
            client.once('ready', resolve);
            client.once('error', reject);
          })
        : client.ping());
      if (this.conn.cluster) {
        const cluster = /** @type {import('ioredis').Cluster} */ (client);
        // on a cluster whose nodes still gossip their replicas, ioredis's first slot map may name
        // none; a replica not listed, or not linked, by the deadline is read around: said, as the
        // router counts no fallback for the reads ioredis sends to a master on its own
        const unlisted = this.router.readFrom === 'replica' ? await replicasListed(cluster, servedMasters(this.router)) : null;
        if (unlisted)
          this.notices.push({
            atMs: Date.now(),
            warn: true,
            text: `the seed client's slot map still names no replica of ${unlisted} after 10 s: ioredis reads that shard from its master`,
          });
        for (const r of await openNodes(cluster, this.router.readFrom))
          this.notices.push({
            atMs: Date.now(),
            warn: true,
            text: `replica ${r} is not linked to its master after 10 s: ioredis reads its shard from the master until it is`,
          });
      }
    }
    this.seed = client;
    this.fetcher = new Fetcher(this.router, this.plan.fetch, client, this.model.valueArgs);
    // the default fetch reads item keys on bytes where the data model allows (fetch-bytes.js):
    // string values (MGET), members that name them
    if (this.plan.fetch === 'mget' && !this.model.membersAreValues && !this.model.valueArgs) {
      this.bytes = new BytesReads(this.router);
      this.members = new MemberList();
    }
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

  /**
   * Ends after the cycle in progress, waiting for it at most `drainMs` (a node that froze would
   * hold it for ever): a cycle given up on counts as failed.
   * @param {number} [drainMs]
   */
  stop(drainMs = settings.readerDrainMs) {
    clearTimeout(this.drainTimer);
    if (this.busy) {
      this.drainTimer = setTimeout(() => {
        this.counters.cycles++;
        this.counters.failedCycles++;
        this.counters.error(new Error('connection: the cycle was still waiting for replies when the run ended'));
        this.busy = false;
        this.#end();
      }, drainMs);
    }
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
    for (const k of PENDING) this.pendingCounts[k] = 0;
    this.pendingPhases = [];
    this.busy = true;
    const start = performance.now();
    // a late clock tick first: the cycle's phases and its count then land in the same second
    this.clock.catchUp(start);
    let failed = false;
    try {
      await this.#measuredCycle(intended, start);
    } catch (e) {
      failed = true;
      this.counters.error(e);
      // a redirect or a lost node: the cluster changed (or a server restarted), read its shape again
      this.router.refreshSoon();
    }
    // given up on by stop() while it waited: already counted as failed
    if (this.finished) return;
    const end = performance.now();
    // a clock tick running late must not pull this cycle into the second before the one it ended in
    this.clock.catchUp(end);
    if (failed) this.counters.failedCycles++;
    this.busy = false;
    this.counters.cycles++;
    const card = this.pendingCard;
    this.pendingCard = null;
    if (card && !failed && card.count === 0) this.counters.emptyCycles++;
    if (card) {
      this.counters.cardinality += card.count;
      if (card.uniques !== undefined) this.counters.uniques += card.uniques;
    }
    // what the cycle read, counted with the cycle (after the late tick): a tick that ran late must
    // not put a cycle's items in one second and the cycle in the next
    const got = this.pendingCounts;
    for (const k of PENDING) {
      this.counters[k] += got[k];
      got[k] = 0;
    }
    // its phases with it: a cycle that began in the warm-up and ended after it has its cardinality
    // phase in the same second as the cycle, not in the warm-up's
    for (const [name, ms] of this.pendingPhases) record(this.hist.of(name).sent, ms * 1000);
    this.pendingPhases = [];
    const h = this.hist.of('cycle');
    record(h.intended, (end - intended) * 1000);
    record(h.sent, (end - start) * 1000);
    // the next cycle was due before this one ended: it starts late, and that is an overrun
    if (end > this.t0Perf + this.k * this.plan.periodMs) this.counters.overruns++;
    this.#next();
  }

  async #measuredCycle(intended, start) {
    const nowMs = modelMs(performance.timeOrigin + start, this.plan.timeScale);
    const cutoff = Math.floor(nowMs - this.plan.ttl * 1000);
    if (this.plan.script) {
      const r = await this.model.viaScript(this.io, cutoff, this.plan.limit);
      this.#phase('range', performance.now() - start);
      this.#cardinality(r, nowMs);
      return this.#values(r.members);
    }
    const card = await this.model.cardinality(this.io, nowMs);
    const t1 = performance.now();
    this.#phase('card', t1 - start);
    this.#cardinality(card, nowMs);
    const cmds = this.bytes && this.model.rangeCommands?.(cutoff, this.plan.limit, nowMs);
    if (cmds) return this.#bytesCycle(cmds, t1);
    const members = await this.model.range(this.io, cutoff, this.plan.limit, nowMs);
    this.#phase('range', performance.now() - t1);
    return this.#values(members);
  }

  #cardinality(card, nowMs) {
    // counted when the cycle ends, with it: a long cycle's counts then land in the same second
    this.pendingCard = card;
    if (card.newest !== null && card.newest !== undefined) record(this.hist.of('staleness').sent, (nowMs - card.newest) * 1000);
  }

  /** Range and values on bytes (fetch-bytes.js): members and values never become strings. */
  async #bytesCycle(cmds, t1) {
    const list = this.members;
    list.clear();
    await this.bytes.range(cmds, list);
    const t2 = performance.now();
    this.#phase('range', t2 - t1);
    this.seen.next();
    const got = await this.bytes.mget(list, this.seen);
    this.#phase('values', performance.now() - t2);
    const c = this.pendingCounts;
    c.items += list.count;
    c.fetched += got.fetched;
    c.missing += got.missing;
    c.mismatched += got.mismatched;
    c.duplicates += got.duplicates;
  }

  /** Fetches the values behind the members (unless members are the values) and checks them. */
  async #values(members) {
    if (this.model.membersAreValues) return this.#check(members, members);
    const t2 = performance.now();
    const values = await this.fetcher.fetch(members);
    this.#phase('values', performance.now() - t2);
    this.#check(members, values);
  }

  /** Counts what came back: values, missing (expired between range and fetch), duplicates, mismatches. */
  #check(members, values) {
    const c = this.pendingCounts;
    c.items += members.length;
    this.seen.next();
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
      if (this.seen.seen(id)) c.duplicates++;
      // a key names its item: item:<id> or item:{tag}:<id>
      if (!this.model.membersAreValues && trailingId(members[i]) !== id) c.mismatched++;
    }
  }

  /** One command to the node reading `key`'s slot; a replica that stops answering: the next one (router.read). */
  #call(key, args) {
    const slot = this.conn.cluster ? this.router.slotOf(key) : 0;
    return this.router.read(
      () => this.router.addrFor(slot),
      (addr) => {
        const pipe = this.router.ready(addr);
        return pipe ? pipe.call(args) : this.router.pipe(addr).then((p) => p.call(args));
      },
    );
  }

  #phase(name, ms) {
    this.pendingPhases.push([name, ms]);
  }

  #end() {
    if (this.finished || this.busy) return;
    this.finished = true;
    clearTimeout(this.timer);
    clearTimeout(this.drainTimer);
    this.clock.stop();
    this.#emit(true);
    this.client.stop();
    this.router.close();
    this.bytes?.close();
    this.seed?.disconnect();
    this.finish();
  }

  #emit(final) {
    const hist = sparseOps(this.hist.take());
    // fallbacks in the second they were sent (a cycle's counts wait for its end: a fallback is a moment's)
    this.counters.replicaFallbacks += this.router.takeFallbacks();
    const { events: dropEvents, drops } = this.router.drops.take(final);
    // what connect() found wrong before the first cycle, in the first second (found before the
    // run's start, which connect() did not know yet)
    const events = this.notices.length
      ? [...this.notices.splice(0).map((n) => ({ ...n, atMs: Math.max(n.atMs, this.plan.t0) })), ...dropEvents]
      : dropEvents;
    this.onInterval({
      index: this.clock.index,
      final,
      intended: 0,
      counters: this.counters.snapshot(),
      hist,
      client: this.client.sample(),
      events,
      drops,
      // MOVED replies followed (a reader follows them on its own): without --cluster, a cluster node
      moved: this.router.takeMoved(),
    });
  }
}
