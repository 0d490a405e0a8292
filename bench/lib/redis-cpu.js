/**
 * Redis CPU the DESIGN.md way: % of one core = Δ(used_cpu_user + used_cpu_sys) / Δwall, from
 * INFO cpu, wall time taken when the reply arrives.
 */
import { performance } from 'node:perf_hooks';

/**
 * @param {import('ioredis').Redis} client a client that is NOT auto-pipelining the load
 * @returns {Promise<{ used: number, at: number }>} CPU seconds used by Redis, perf-clock ms
 */
export async function redisCpuSample(client) {
  const text = await client.info('cpu');
  const at = performance.now();
  const get = (k) => Number((new RegExp(`^${k}:([0-9.]+)`, 'm').exec(text) || [])[1]);
  return { used: get('used_cpu_user') + get('used_cpu_sys'), at };
}

/**
 * @param {{ used: number, at: number }} a
 * @param {{ used: number, at: number }} b
 * @returns {number} % of one core between the two samples
 */
export function cpuPctBetween(a, b) {
  return b.at > a.at ? ((b.used - a.used) / ((b.at - a.at) / 1000)) * 100 : NaN;
}
