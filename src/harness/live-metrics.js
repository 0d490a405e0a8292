/**
 * The one door to a run's live metrics (--metrics-port, --metrics-relay): a workload runs through
 * withLiveMetrics, which opens the endpoint before the workload starts (a port in use stops
 * everything before anything is written) and hands back, with the result, how to linger. The
 * endpoint itself (live-endpoint.js, with prom-client and the bucket tables) is loaded only when
 * a run asks for it: a run without metrics starts as fast as it did before they existed.
 */

/** @typedef {import('./live-endpoint.js').LiveMetrics} LiveMetrics */

/**
 * @template {object} T
 * @param {Readonly<Record<string, any>>} a the plan
 * @param {(live: LiveMetrics|null) => Promise<T>} fn
 * @returns {Promise<T & { linger?: () => Promise<void> }>}
 */
export async function withLiveMetrics(a, fn) {
  if (a.metricsPort === undefined && !a.metricsRelay) return fn(null);
  const { LiveMetrics } = await import('./live-endpoint.js');
  const live = await LiveMetrics.open(a);
  /** @type {T} */
  let result;
  try {
    result = await fn(live);
  } catch (e) {
    await live.close();
    throw e;
  }
  // the command lingers once it has printed the summary (commands/report-run.js)
  return Object.assign(result, { linger: () => live.linger() });
}
