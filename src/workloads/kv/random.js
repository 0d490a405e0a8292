/**
 * The kv workload's one source of randomness: a seeded xoroshiro128+ (pure-rand), so a `--seed`
 * gives the same keys, sizes and gaps on every run and every host. Each generator takes its own
 * stream (`streamOf(seed, name)`), so adding a draw to one (a size) does not shift another (the keys).
 */
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { uniformFloat64 } from 'pure-rand/distribution/uniformFloat64';

/** @typedef {() => number} Uniform a draw on [0, 1) */

/**
 * A uniform double on [0, 1): 53 random bits, as Math.random gives.
 * @param {number} seed any 32-bit integer
 * @returns {Uniform}
 */
export function uniformFrom(seed) {
  const rng = xoroshiro128plus(seed | 0);
  return () => uniformFloat64(rng);
}

/**
 * The stream a generator named `name` draws from under `seed`: the seed mixed with the name
 * (FNV-1a), so each generator's sequence depends on the seed and on nothing else drawn.
 * @param {number} seed
 * @param {string} name 'keys', 'sizes', 'gaps', 'ops'
 * @returns {Uniform}
 */
export function streamOf(seed, name) {
  let h = 0x811c9dc5 ^ (seed | 0);
  for (let i = 0; i < name.length; i++) h = Math.imul(h ^ name.charCodeAt(i), 0x01000193);
  return uniformFrom(h);
}
