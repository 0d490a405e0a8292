/**
 * Which key an operation touches, over a key space of `n` keys (indexes 0..n-1; the key template
 * makes names of them). The choosers are YCSB's and memtier_benchmark's:
 * - `uniform`: every key alike;
 * - `zipf:S` (`zipf:0.99`, YCSB's constant): key i with probability ∝ 1 / (i + 1)^S, the hottest
 *   first (0, 1, …); `zipf:S:scrambled` spreads the ranks over the key space by a fixed
 *   permutation, as YCSB's scrambled zipfian does, so the hot keys are not the first ones;
 * - `hotspot:F:P`: a fraction P of the operations on the first fraction F of the keys (uniform in
 *   each part; YCSB's hotspot generator);
 * - `latest:S`: the most recently written keys first, zipfian in their age (YCSB's "latest");
 * - `sequential`: 0, 1, 2, … and round again (memtier's S:S pattern).
 */
import { zipfSampler } from './zipf.js';

/** @typedef {import('./random.js').Uniform} Uniform */
/**
 * @typedef {{ kind: 'uniform' } | { kind: 'zipf', s: number, scrambled: boolean } | { kind: 'hotspot', keys: number, ops: number }
 *   | { kind: 'latest', s: number } | { kind: 'sequential' }} KeyDist
 * @typedef {{ next: (latest?: number) => number, dist: KeyDist }} KeyChooser latest: the newest key written (for `latest`)
 */

export const KEY_DIST_FORMS = 'uniform, zipf:S[:scrambled] (S above 0, e.g. 0.99), hotspot:F:P (fractions in (0, 1)), latest:S, sequential';

/**
 * `--key-dist` as written → its parts, or a reason it is not one.
 * @param {string} text
 * @returns {KeyDist|string} a string: what is wrong
 */
export function parseKeyDist(text) {
  const [kind, ...rest] = String(text).trim().split(':');
  const num = (x) => (x !== undefined && x !== '' && Number.isFinite(Number(x)) ? Number(x) : NaN);
  if (kind === 'uniform' || kind === 'sequential') return rest.length ? `${kind} takes no parameters` : { kind };
  if (kind === 'zipf') {
    const s = num(rest[0]);
    if (!(s > 0) || rest.length > 2 || (rest.length === 2 && rest[1] !== 'scrambled')) return 'zipf:S or zipf:S:scrambled with S above 0';
    return { kind, s, scrambled: rest[1] === 'scrambled' };
  }
  if (kind === 'hotspot') {
    const [keys, ops] = [num(rest[0]), num(rest[1])];
    if (rest.length !== 2 || !(keys > 0 && keys < 1) || !(ops > 0 && ops < 1)) return 'hotspot:F:P with both fractions between 0 and 1';
    return { kind, keys, ops };
  }
  if (kind === 'latest') {
    const s = num(rest[0]);
    if (rest.length !== 1 || !(s > 0)) return 'latest:S with S above 0';
    return { kind, s };
  }
  return `one of ${KEY_DIST_FORMS}`;
}

/**
 * A bijection of 0..n-1 that scatters neighbours: i → (a·i + b) mod n with a coprime to n, a near
 * n / φ (the golden ratio), so consecutive ranks land far apart.
 * @param {number} n
 */
export function scatter(n) {
  const gcd = (x, y) => (y ? gcd(y, x % y) : x);
  let a = Math.max(1, Math.round(n / 1.618033988749895));
  while (gcd(a, n) !== 1) a++;
  const b = Math.floor(n / 3);
  // BigInt only where a·i could pass 2^53
  const big = a * n > Number.MAX_SAFE_INTEGER;
  return big ? (i) => Number((BigInt(a) * BigInt(i) + BigInt(b)) % BigInt(n)) : (i) => (a * i + b) % n;
}

/**
 * @param {KeyDist} dist
 * @param {number} n keys in the key space
 * @param {Uniform} random
 * @returns {KeyChooser}
 */
export function keyChooser(dist, n, random) {
  switch (dist.kind) {
    case 'uniform':
      return { dist, next: () => Math.floor(random() * n) };
    case 'zipf': {
      const rank = zipfSampler(n, dist.s, random);
      const place = dist.scrambled ? scatter(n) : (i) => i;
      return { dist, next: () => place(rank() - 1) };
    }
    case 'hotspot': {
      const hot = Math.max(1, Math.min(n - 1, Math.round(n * dist.keys)));
      return {
        dist,
        next: () => (random() < dist.ops ? Math.floor(random() * hot) : hot + Math.floor(random() * (n - hot))),
      };
    }
    case 'latest': {
      const age = zipfSampler(n, dist.s, random);
      // age 1 is the newest key; before anything was written, the key space's end counts as newest
      return { dist, next: (latest = n - 1) => (((latest - (age() - 1)) % n) + n) % n };
    }
    case 'sequential': {
      let i = -1;
      return { dist, next: () => (i = (i + 1) % n) };
    }
  }
}
