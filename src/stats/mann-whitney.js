/**
 * The exact two-sided Mann–Whitney U test between two groups of trials. No well-kept npm package
 * offers the exact null distribution (the few that exist are small and unmaintained, and use the
 * normal approximation), so it is counted here: without ties by the standard recurrence on
 * (m, n, u); with ties as the exact permutation distribution of the midrank sum over every split
 * of the pooled values, counted by dynamic programming. Past a budget of splits (far more trials
 * than a benchmark runs) the normal approximation with tie and continuity correction is used.
 */
import normalCdf from '@stdlib/stats-base-dists-normal-cdf';

/**
 * Splits counted exactly at most. Visiting each split would stop at a few million; the counting
 * below never visits one, so it stays exact far further: up to C(54, 27) ≈ 1.9e15, where every
 * count still fits a double exactly (below 2^53).
 */
const EXACT_SPLITS = 1e15;
/** Cell updates the counting may take (pooled values × A's size × doubled rank sum): ~0.1 s. */
const EXACT_WORK = 5e7;

/**
 * @param {number[]} a
 * @param {number[]} b
 * @returns {{ u: number, p: number, n1: number, n2: number }} u: #{a_i > b_j} + ½·#{a_i = b_j}
 */
export function mannWhitney(a, b) {
  const n1 = a.length;
  const n2 = b.length;
  const u = uOf(a, b);
  if (!n1 || !n2) return { u, p: 1, n1, n2 };
  const pooled = [...a, ...b];
  const ties = new Set(pooled).size < pooled.length;
  const exact = choose(n1 + n2, n1) <= EXACT_SPLITS;
  let p;
  if (!ties && exact) p = twoSided(nullCounts(n1, n2), u, n1 * n2);
  else if (ties && exact && countingWork(n1, n2) <= EXACT_WORK) p = permutationP(pooled, n1, u);
  else p = normalP(a, b, u);
  return { u, p: Math.min(1, p), n1, n2 };
}

/** @param {number[]} a @param {number[]} b @returns {number} */
export function uOf(a, b) {
  let u = 0;
  for (const x of a) for (const y of b) u += x > y ? 1 : x === y ? 0.5 : 0;
  return u;
}

/**
 * How many of the C(m+n, m) orderings give U = 0 … m·n, without ties.
 * @param {number} m
 * @param {number} n
 * @returns {number[]}
 */
export function nullCounts(m, n) {
  // f(m, n, u) = f(m−1, n, u−n) + f(m, n−1, u): the largest value is from one side or the other
  /** @type {number[][]} row i holds f(i, j, ·) for the current j */
  let prev = Array.from({ length: m + 1 }, () => [1]);
  for (let j = 1; j <= n; j++) {
    const cur = [[1]];
    for (let i = 1; i <= m; i++) {
      const size = i * j + 1;
      const row = new Array(size).fill(0);
      const left = cur[i - 1];
      const up = prev[i];
      for (let u = 0; u < size; u++) row[u] = (u - j >= 0 && u - j < left.length ? left[u - j] : 0) + (u < up.length ? up[u] : 0);
      cur.push(row);
    }
    prev = cur;
  }
  return prev[m];
}

/** Two-sided p from the counts of U over 0 … max. */
function twoSided(counts, u, max) {
  const total = counts.reduce((s, c) => s + c, 0);
  let lower = 0;
  let upper = 0;
  for (let v = 0; v <= max; v++) {
    if (v <= u + 1e-9) lower += counts[v];
    if (v >= u - 1e-9) upper += counts[v];
  }
  return (2 * Math.min(lower, upper)) / total;
}

/**
 * Exact permutation p with ties: the distribution of A's midrank sum over every split of the
 * pooled values, counted by dynamic programming (ways to pick j values with doubled rank sum s)
 * rather than by visiting each split.
 */
function permutationP(pooled, n1, u) {
  const sorted = [...pooled].sort((x, y) => x - y);
  /** doubled midranks, integers */
  const ranks = [];
  for (let i = 0; i < sorted.length;) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[i]) j++;
    for (let k = i; k <= j; k++) ranks.push(i + j + 2);
    i = j + 1;
  }
  const max = ranks.reduce((t, r) => t + r, 0);
  /** ways[j][s]: subsets of the values seen so far with j members and doubled rank sum s */
  const ways = Array.from({ length: n1 + 1 }, () => new Float64Array(max + 1));
  ways[0][0] = 1;
  for (const r of ranks) {
    // j and sum downward, so each value joins a subset at most once (updated in place, no copy)
    for (let j = n1; j >= 1; j--) {
      const row = ways[j];
      const from = ways[j - 1];
      for (let sum = max; sum >= r; sum--) row[sum] += from[sum - r];
    }
  }
  // U = R − n1(n1+1)/2, so 2U = 2R − n1(n1+1)
  const target = 2 * u + n1 * (n1 + 1);
  let lower = 0;
  let upper = 0;
  let total = 0;
  ways[n1].forEach((c, sum) => {
    if (!c) return;
    total += c;
    if (sum <= target + 1e-9) lower += c;
    if (sum >= target - 1e-9) upper += c;
  });
  return (2 * Math.min(lower, upper)) / total;
}

/** Cell updates permutationP makes: each pooled value × A's size × the doubled rank sum N(N+1). */
function countingWork(n1, n2) {
  const n = n1 + n2;
  return n * n1 * n * (n + 1);
}

/** The normal approximation with tie correction and continuity correction. */
function normalP(a, b, u) {
  const n1 = a.length;
  const n2 = b.length;
  const n = n1 + n2;
  const counts = new Map();
  for (const x of [...a, ...b]) counts.set(x, (counts.get(x) ?? 0) + 1);
  const tie = [...counts.values()].reduce((s, t) => s + (t ** 3 - t), 0);
  const sd = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tie / (n * (n - 1))));
  if (sd === 0) return 1;
  const z = (Math.abs(u - (n1 * n2) / 2) - 0.5) / sd;
  return 2 * (1 - normalCdf(Math.max(0, z), 0, 1));
}

/** C(n, k) as a float (exact enough to compare with a budget). @param {number} n @param {number} k @returns {number} */
export function choose(n, k) {
  let c = 1;
  for (let i = 1; i <= k; i++) c = (c * (n - k + i)) / i;
  return c;
}
