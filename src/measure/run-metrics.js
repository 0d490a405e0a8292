/**
 * A run's seconds as Prometheus metrics, for the live endpoint (--metrics-port). Each second the
 * run records (the workers' intervals merged, the server's CPU on the same grid) is handed here
 * as it is handed to the run directory, so what Prometheus sees adds up to what the files hold:
 * counters grow by the second's counts, histograms by the second's HdrHistograms, gauges hold
 * the last second. The names and what they mean are in docs/live-metrics.md's table.
 *
 * Every series a kind of run can have is there from its first second (at zero), so rate() over
 * the first increment is not lost; only error kinds (named by the server's reply) and the CPU
 * of nodes (which come and go with the topology) appear when they are seen.
 */
import client from 'prom-client';
import { HdrPromHistogram } from './hdr-prom.js';
import { FULL_SECOND_MS } from './aggregate.js';

/** @typedef {'produce'|'consume'|'queue-publish'|'queue-consume'|'kv'} SecondsKind */

const ITEMS = ['produce', 'queue-publish'];
/** [the second's counter, metric, help, the kinds that count it] */
const COUNTERS = /** @type {Array<[string, string, string, string[]]>} */ ([
  ['sent', 'rqbench_items_sent_total', 'Items sent (a queue publisher: messages)', ITEMS],
  ['acked', 'rqbench_items_acknowledged_total', 'Items the target acknowledged (a queue publisher: messages)', ITEMS],
  ['failed', 'rqbench_items_failed_total', 'Items that failed for good: refused, or their retries spent', ITEMS],
  ['unanswered', 'rqbench_items_unanswered_total', "Messages with no answer within the call's bound or the drain", ['queue-publish']],
  ['bytes', 'rqbench_bytes_acknowledged_total', 'Message body bytes acknowledged', ['queue-publish']],
  ['cycles', 'rqbench_cycles_total', 'Reader cycles ended', ['consume']],
  ['failedCycles', 'rqbench_cycles_failed_total', 'Reader cycles that ended in an error', ['consume']],
  ['emptyCycles', 'rqbench_cycles_empty_total', 'Reader cycles that found the index empty', ['consume']],
  ['overruns', 'rqbench_cycle_overruns_total', 'Reader cycles that ended after the next one was due', ['consume']],
  [
    'replicaFallbacks',
    'rqbench_replica_fallbacks_total',
    'Reads sent to another node of their shard as the replica meant to serve them stopped answering',
    ['consume'],
  ],
  ['items', 'rqbench_items_read_total', 'Live items the readers found in the index', ['consume']],
  ['missing', 'rqbench_values_missing_total', 'Items whose value was gone when fetched', ['consume']],
  ['messages', 'rqbench_messages_received_total', 'Messages applied', ['queue-consume']],
  ['duplicates', 'rqbench_messages_duplicate_total', 'Messages seen before (same publisher and sequence number)', ['queue-consume']],
  ['malformed', 'rqbench_updates_malformed_total', 'Body lines that were not key<TAB>value', ['queue-consume']],
  ['intended', 'rqbench_operations_intended_total', 'kv operations due by the schedule', ['kv']],
  ['sent', 'rqbench_operations_sent_total', 'kv operations sent', ['kv']],
  ['acked', 'rqbench_operations_answered_total', 'kv operations answered', ['kv']],
  ['failed', 'rqbench_operations_failed_total', 'kv operations that failed for good: refused, or their retries spent', ['kv']],
]);
/** Resends that were not redirects, by why (the rest: LOADING, READONLY, MASTERDOWN, NOSCRIPT). */
const RETRY_KINDS = { tryagain: 'tryagain', clusterdown: 'clusterdown', connRetries: 'connection' };
/** The histograms each kind has from its first second: '<op>.<from>' and 'lag'. */
const FIRST_HISTOGRAMS = {
  produce: ['batch.intended', 'batch.sent', 'lag'],
  consume: ['cycle.sent'],
  'queue-publish': ['publish.intended', 'publish.sent', 'lag'],
  'queue-consume': [],
  kv: ['all.intended', 'all.sent', 'lag'],
};

export class RunMetrics {
  /**
   * @param {import('prom-client').Registry} registry
   * @param {SecondsKind} kind
   * @param {string} [buckets] the histograms' bucket layout (--metrics-buckets: coarse, fine); settings' when left out
   */
  constructor(registry, kind, buckets) {
    const reg = { registers: [registry] };
    this.kind = kind;
    const counter = (name, help, labelNames = []) => new client.Counter({ name, help, labelNames, ...reg });
    const gauge = (name, help, labelNames = []) => new client.Gauge({ name, help, labelNames, ...reg });
    new client.Gauge({ name: 'rqbench_run_info', help: "The run's kind (1 while it is served)", labelNames: ['kind'], ...reg }).set(
      { kind },
      1,
    );
    this.seconds = gauge('rqbench_run_seconds', 'Seconds of the run recorded so far');
    this.ended = gauge('rqbench_run_ended', '1 once the run is over: the values are final (the endpoint lingers with them)');
    this.counters = COUNTERS.filter(([, , , kinds]) => kinds.includes(kind)).map(
      ([key, name, help]) => /** @type {const} */ ([key, counter(name, help)]),
    );
    for (const [, c] of this.counters) c.inc(0);
    if (ITEMS.includes(kind)) {
      this.intended = counter('rqbench_items_intended_total', 'Items due by the schedule (a queue publisher: messages)');
      this.intended.inc(0);
      this.intendedRate = gauge('rqbench_items_intended_per_second', 'Items due in the last second: the rate asked for');
      this.achievedRate = gauge('rqbench_items_acknowledged_per_second', 'Items acknowledged in the last second: the rate achieved');
      this.lag = new HdrPromHistogram({
        name: 'rqbench_schedule_lag_seconds',
        help: 'How late each send left against its intended start',
        buckets,
        registry,
      });
    }
    if (kind === 'kv') {
      this.opsRate = gauge('rqbench_operations_answered_per_second', 'kv operations answered in the last second: the rate achieved');
      this.byNode = counter('rqbench_operations_by_node_total', 'kv operations sent to each node: its share shows a hot shard', ['node']);
      this.lag = new HdrPromHistogram({
        name: 'rqbench_schedule_lag_seconds',
        help: 'How late each send left against its intended start',
        buckets,
        registry,
      });
    }
    if (kind === 'produce' || kind === 'kv') {
      this.redirects = counter('rqbench_redirects_total', 'Commands sent again where the cluster said (MOVED, ASK)', ['kind']);
      this.retries = counter('rqbench_retries_total', 'Commands sent again after a wait, by why (connection: the connection was lost)', [
        'kind',
      ]);
      for (const k of ['moved', 'ask']) this.redirects.inc({ kind: k }, 0);
      for (const k of [...Object.values(RETRY_KINDS), 'other']) this.retries.inc({ kind: k }, 0);
    }
    if (kind === 'produce' || kind === 'consume' || kind === 'kv') {
      this.errors = counter('rqbench_errors_total', 'Error replies and failures, by their first word (WRONGTYPE, OOM, CONNECTION, …)', [
        'kind',
      ]);
      const node = ['node', 'role', 'shard'];
      this.engineCpu = gauge(
        'rqbench_redis_engine_cpu_percent',
        "A Redis node's main thread CPU in the last second, % of one core (CloudWatch's EngineCPUUtilization)",
        node,
      );
      this.processCpu = gauge(
        'rqbench_redis_process_cpu_percent',
        "A Redis node's process CPU in the last second, % of one core (I/O threads included)",
        node,
      );
      /** @type {Set<string>} the node series set last second: a node gone (or without a figure) leaves a gap */
      this.nodeSeries = new Set();
    }
    if (kind !== 'queue-consume') {
      // the queue consumer's latencies are the seed's own metrics (queue-metrics.js)
      this.latency = new HdrPromHistogram({
        name: 'rqbench_latency_seconds',
        help: 'Latency per operation, from the intended start (from="intended", corrected for coordinated omission) and from the actual send (from="sent")',
        labelNames: ['op', 'from'],
        buckets,
        registry,
      });
    }
    for (const name of FIRST_HISTOGRAMS[kind]) this.#histogram(name, null);
    this.loadgenCpu = gauge(
      'rqbench_loadgen_cpu_percent',
      "The load generator's CPU in the last second: its worker processes together, % of one core",
    );
    this.loadgenBusiest = gauge(
      'rqbench_loadgen_busiest_cpu_percent',
      "The busiest worker process's CPU in the last second, % of one core (100: that worker was the bottleneck)",
    );
    this.loadgenLoop = gauge('rqbench_loadgen_event_loop_delay_p99_seconds', "The worst worker's event-loop delay p99 in the last second");
    this.loadgenRss = gauge('rqbench_loadgen_rss_bytes', "The worker processes' resident memory together");
  }

  /**
   * One recorded second.
   * @param {{ iv: { index: number, intended?: number, counters: Record<string, number>, errorKinds?: Record<string, number>,
   *   hist: Map<string, import('hdr-histogram-js').Histogram>, client?: { cpuPct: number, cpuPctMax?: number, loopP99Ms: number, rssMb: number, wallMs?: number } },
   *   cpu?: Array<{ addr: string, role: string, shard: number, cpuPct: number|null, enginePct?: number|null }> }} s
   */
  second({ iv, cpu = [] }) {
    const c = iv.counters;
    // a run's last interval can be a few ms long: it adds those ms, not a whole second, and its
    // CPU and loop figures (a % over 3 ms) would replace the last full second's with noise
    const wallMs = iv.client?.wallMs;
    const partial = typeof wallMs === 'number' && wallMs < FULL_SECOND_MS;
    this.seconds.set(iv.index + (partial ? Math.round(wallMs) / 1000 : 1));
    // a kv run's operations due are the second's `intended`, as a producer's items are
    const count = (key) => (key === 'intended' && this.kind === 'kv' ? (iv.intended ?? 0) : c[key]);
    for (const [key, m] of this.counters) if (count(key) > 0) m.inc(count(key));
    if (this.byNode)
      for (const [key, n] of Object.entries(c)) if (key.startsWith('ops@') && n > 0) this.byNode.inc({ node: key.slice(4) }, n);
    this.opsRate?.set(c.acked ?? 0);
    if (this.intended) {
      this.intended.inc(iv.intended ?? 0);
      this.intendedRate?.set(iv.intended ?? 0);
      this.achievedRate?.set(c.acked ?? 0);
    }
    if (this.redirects) {
      for (const k of ['moved', 'ask']) if (c[k] > 0) this.redirects.inc({ kind: k }, c[k]);
      let named = 0;
      for (const [key, kind] of Object.entries(RETRY_KINDS)) {
        if (c[key] > 0) this.retries?.inc({ kind }, c[key]);
        named += c[key] ?? 0;
      }
      if ((c.retries ?? 0) > named) this.retries?.inc({ kind: 'other' }, c.retries - named);
    }
    for (const [kind, n] of Object.entries(iv.errorKinds ?? {})) if (n > 0) this.errors?.inc({ kind }, n);
    for (const [name, h] of iv.hist) this.#histogram(name, h);
    if (this.nodeSeries) this.#nodes(cpu);
    if (iv.client && !partial) {
      this.loadgenCpu.set(iv.client.cpuPct);
      this.loadgenBusiest.set(iv.client.cpuPctMax ?? iv.client.cpuPct);
      this.loadgenLoop.set(iv.client.loopP99Ms / 1000);
      this.loadgenRss.set(Math.round(iv.client.rssMb * 1048576));
    }
  }

  /** The run is over: what is served now is final. */
  end() {
    this.ended.set(1);
  }

  /**
   * @param {string} name '<op>.<from>' or 'lag'
   * @param {import('hdr-histogram-js').Histogram|null} h null: the series at zero
   */
  #histogram(name, h) {
    if (name === 'lag') {
      if (h) this.lag?.add({}, h);
      else this.lag?.zero({});
      return;
    }
    const [op, from] = name.split('.');
    if (!from || !this.latency) return;
    if (h) this.latency.add({ op, from }, h);
    else this.latency.zero({ op, from });
  }

  /** Every node's CPU this second; a node with no figure (a gap, or gone) has no series until it has one. */
  #nodes(cpu) {
    const seen = new Set();
    for (const n of cpu) {
      const labels = { node: n.addr, role: n.role, shard: String(n.shard) };
      const key = JSON.stringify(labels);
      if (typeof n.cpuPct === 'number') {
        this.processCpu.set(labels, n.cpuPct);
        seen.add(`p${key}`);
      }
      if (typeof n.enginePct === 'number') {
        this.engineCpu.set(labels, n.enginePct);
        seen.add(`e${key}`);
      }
    }
    for (const k of this.nodeSeries) {
      if (seen.has(k)) continue;
      const labels = JSON.parse(k.slice(1));
      (k[0] === 'p' ? this.processCpu : this.engineCpu).remove(labels);
    }
    this.nodeSeries = seen;
  }
}
