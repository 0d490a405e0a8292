/**
 * Zipf's law over ranks 1..n with exponent s (P(k) ∝ 1 / k^s), drawn exactly and in constant time
 * by rejection-inversion (W. Hörmann, G. Derflinger, "Rejection-inversion to generate variates
 * from monotone discrete distributions", ACM TOMACS 6(3), 1996): a draw from the continuous hat
 * h(x) = x^-s integrated over [0.5, n + 0.5], kept when it falls under the step of its rank.
 * No table of n entries (a key space of 100 million costs nothing), and unlike YCSB's
 * ZipfianGenerator (Gray et al.'s approximation) its rank frequencies are the law's own, which
 * test/unit/kv-generators.test.js checks.
 */

/** @typedef {import('./random.js').Uniform} Uniform */

/** (e^x - 1) / x, accurate near 0. @param {number} x */
function expm1OverX(x) {
  return Math.abs(x) > 1e-8 ? Math.expm1(x) / x : 1 + x * 0.5 * (1 + (x / 3) * (1 + x * 0.25));
}

/** ln(1 + x) / x, accurate near 0. @param {number} x */
function log1pOverX(x) {
  return Math.abs(x) > 1e-8 ? Math.log1p(x) / x : 1 - x * (0.5 - x * (1 / 3 - x * 0.25));
}

/**
 * @param {number} n ranks 1..n
 * @param {number} s the exponent, above 0 (YCSB's constant: 0.99)
 * @param {Uniform} random
 * @returns {() => number} a rank, 1..n (1 the most frequent)
 */
export function zipfSampler(n, s, random) {
  if (!(Number.isInteger(n) && n >= 1)) throw new RangeError(`zipf: n must be an integer >= 1 (got ${n})`);
  if (!(s > 0)) throw new RangeError(`zipf: the exponent must be above 0 (got ${s})`);
  const h = (x) => Math.exp(-s * Math.log(x));
  // the integral of h, H(x) = (x^(1-s) - 1) / (1 - s), and its inverse, both safe at s = 1
  const H = (x) => {
    const lx = Math.log(x);
    return expm1OverX((1 - s) * lx) * lx;
  };
  const Hinv = (x) => {
    const t = Math.max(-1, x * (1 - s));
    return Math.exp(log1pOverX(t) * x);
  };
  const hX1 = H(1.5) - 1;
  const hN = H(n + 0.5);
  const sCut = 2 - Hinv(H(2.5) - h(2));
  return () => {
    for (;;) {
      const u = hN + random() * (hX1 - hN);
      const x = Hinv(u);
      const k = Math.min(n, Math.max(1, Math.round(x)));
      if (k - x <= sCut || u >= H(k + 0.5) - h(k)) return k;
    }
  };
}

/**
 * P(rank k) for k = 1..n, for tests and the docs' tables.
 * @param {number} n
 * @param {number} s
 * @returns {Float64Array} index k - 1
 */
export function zipfProbabilities(n, s) {
  const p = new Float64Array(n);
  let z = 0;
  for (let k = 1; k <= n; k++) z += p[k - 1] = k ** -s;
  for (let i = 0; i < n; i++) p[i] /= z;
  return p;
}
