/**
 * What every run's summary has, whatever its kind: the window, CPU per node and role
 * (cpu-summary.js), the load generator's own figures, and the latency histograms' percentiles.
 */
import { stats } from '../../measure/histogram.js';
import { FULL_SECOND_MS } from '../../measure/aggregate.js';
import { cpuSummary } from './cpu-summary.js';
import { avg, max, round } from '../../record/numbers.js';

/** @typedef {import('../../record/run-recorder.js').SecondRow} SecondRow */

/**
 * The figures every summary shares, over the window [warmupS, durationS).
 * @param {{ rows: SecondRow[], totals: Map<string, import('hdr-histogram-js').Histogram>, warmupS: number, durationS: number }} p
 */
export function commonSummary({ rows, totals, warmupS, durationS }) {
  const windowRows = rows.filter((r) => r.index >= warmupS && r.index < durationS);
  // a worker's last interval can be a few ms long: its CPU % says nothing
  const full = windowRows.filter((r) => !(r.client.wallMs < FULL_SECOND_MS));
  const client = {
    cpuPct: round(avg(full.map((r) => r.client.cpuPct))),
    cpuPctMaxWriter: round(max(full.map((r) => r.client.cpuPctMax))),
    loopP99MsMax: round(max(full.map((r) => r.client.loopP99Ms))),
    rssMbMax: round(max(windowRows.map((r) => r.client.rssMb))),
  };
  const latency = {};
  for (const [name, h] of totals) {
    const [op, from] = name.includes('.') ? name.split('.') : [name, 'lag'];
    (latency[op] ??= {})[from] = stats(h);
  }
  return {
    windowRows,
    window: { fromSecond: warmupS, toSecond: durationS, seconds: windowRows.length },
    cpu: cpuSummary(windowRows),
    client,
    latency,
  };
}
