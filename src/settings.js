/**
 * Backoff before retry `attempt` (0-based) of a command: retryBaseMs doubling, at most retryMaxMs.
 * @param {number} attempt
 * @param {{ retryBaseMs: number, retryMaxMs: number }} [s]
 */
export function retryDelayMs(attempt, s = settings) {
  return Math.min(s.retryMaxMs, s.retryBaseMs * 2 ** attempt);
}

/**
 * The time a command's retries take in all before it counts as failed.
 * @param {{ retryBaseMs: number, retryMaxMs: number, maxRedirects: number }} s
 */
function retryBudgetMs(s) {
  let ms = 0;
  for (let i = 0; i < s.maxRedirects; i++) ms += retryDelayMs(i, s);
  return ms;
}

/**
 * Every default in one place. The seed (luciopaiva/redis-nodejs-test, 2021) used these values;
 * rqbench keeps them so `node src/producer.js -q 300000 -t 8 -a 1` means what it meant there.
 */
export const settings = Object.freeze({
  /** TTL of every item key and of the sorted-set window, seconds (seed: EXPIRATION_TIME_IN_SECONDS). */
  ttlSeconds: 3,
  /** How often a writer removes expired sorted-set members, ms (seed: PURGE_PERIOD_IN_MILLIS). */
  purgePeriodMs: 10_000,
  /** Payload bytes per item (seed: PAYLOAD_SIZE_IN_BYTES). */
  valueSize: 128,
  /** Producer period, ms: -q items are written once per period (seed: DEFAULT_PRODUCER_PERIOD_IN_MILLIS). */
  periodMs: 1000,
  /** Consumer period, ms. */
  consumerPeriodMs: 1000,
  /** Seed default for -q. */
  quantity: 100,
  /** Default run length, s; 0 runs until Ctrl-C. */
  durationSeconds: 30,
  /**
   * The longest run a --duration may ask, s: a week. Past about 24.8 days a timer no longer fits
   * Node's 32-bit milliseconds and would fire at once; 0 runs until Ctrl-C for anything longer.
   */
  maxDurationSeconds: 604_800,
  /** A local cluster's masters and a local server's replicas per master, wherever they are asked for
   * (`rqbench local`, `--local`, a spec's topology): one rule. */
  localMasters: Object.freeze({ min: 3, max: 64 }),
  localReplicas: Object.freeze({ min: 0, max: 5 }),
  /** Seconds at the start left out of the summary averages and histograms (still in the timeline). */
  warmupSeconds: 1,
  /** Redis defaults. */
  host: '127.0.0.1',
  port: 6379,
  /** Connect timeout, ms: an unreachable server fails within this. */
  connectTimeoutMs: 3000,
  /** Key names. */
  keys: Object.freeze({
    item: 'item:',
    zset: 'latest-ids',
    list: 'latest-list',
    hll: 'latest-hll',
    set: 'latest-set',
    extraSuffix: ':extra',
    forcedSlotTag: '{forced-slot}',
  }),
  /** Per-minute structures (--slh, --ss) live this long, s: the previous minute stays readable. */
  perMinuteTtlSeconds: 120,
  /** Chunks a writer may have in flight before it waits; waiting shows as schedule lag. */
  maxInflightChunks: 64,
  /**
   * Retries per command (redirects, TRYAGAIN, CLUSTERDOWN, lost connections) before it counts
   * as failed; the non-redirect ones back off 25 ms doubling to 1 s: about 11.6 s in all.
   */
  maxRedirects: 16,
  /** The retries' backoff: the first waits this long, ms, each next one twice as long… */
  retryBaseMs: 25,
  /** …up to this, ms. */
  retryMaxMs: 1000,
  /**
   * How long a run goes on when no node of the target answers at all (neither the workers'
   * commands nor the CPU sampler) before it stops and says so: the retries' whole budget
   * (retryBudgetMs below, ~11.6 s), so no write that could still have landed is given up early.
   */
  get unreachableStopMs() {
    return retryBudgetMs(this);
  },
  /** After the last send, replies are awaited this long (longer than the retries' backoff), ms. */
  drainMs: 15_000,
  /** A run stopped because the target is unreachable waits this long for replies still owed, ms. */
  unreachableDrainMs: 1000,
  /** A consumer cycle still running when the run ends is awaited this long, then counted as failed, ms. */
  readerDrainMs: 5000,
  /** --verify: items must live this much longer than the run (drain, actions finishing, reading back). */
  verifyTtlMarginSeconds: 60,
  /** Output directory for run directories. */
  outDir: 'runs',
  /** Histograms: 1 µs … 1 h at 3 significant digits, values in microseconds. */
  histogram: Object.freeze({ lowest: 1, highest: 3_600_000_000, digits: 3 }),
  /** Server and client samplers tick once a second. */
  sampleIntervalMs: 1000,
  /** --metrics-host: the endpoint is local unless asked (a pod passes 0.0.0.0). */
  metricsHost: '127.0.0.1',
  /**
   * --metrics-linger, s: the endpoint keeps the final values this long after a run, so the scrape
   * after the end still finds them: two intervals of the 15 s Prometheus's own example config
   * scrapes at (deploy/prometheus/ scrapes every 5 s, well inside it).
   */
  metricsLingerSeconds: 30,
  /**
   * --metrics-buckets: the histograms' bucket layout (measure/prom-buckets.js). coarse: 8 steps per
   * power of two, no bucket wider than 12.5%, half the series of fine (16 steps, 6.25%).
   */
  metricsBuckets: 'coarse',
});
