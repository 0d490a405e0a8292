/**
 * Where a node would saturate, from the steps that held: a least-squares line of its engine CPU
 * against the achieved rate, read at 100% of its CPU (saturation) and at the headroom a user
 * wants to keep (say 60%). Pure. A line is only as good as its fit: too few points, a poor R² or
 * a flat slope is said, not projected.
 */

/** Below this R² (or with fewer points) the projection is shown but not trusted. */
export const MIN_R2 = 0.9;
export const MIN_POINTS = 3;

/**
 * @typedef {object} Fit
 * @property {number} slope      % of a core per item/s
 * @property {number} intercept  % of a core at no load
 * @property {number} r2
 * @property {number} points
 */

/**
 * @typedef {object} NodeProjection
 * @property {string} addr
 * @property {string} role
 * @property {number} shard
 * @property {Fit|null} fit
 * @property {number|null} saturatesAt  items/s where the engine reaches 100% of the node's CPU
 * @property {number|null} atHeadroom   items/s where it reaches the headroom
 * @property {boolean} trusted
 * @property {string} [why]             why not trusted
 */

/**
 * Ordinary least squares of y on x.
 * @param {number[]} xs
 * @param {number[]} ys
 * @returns {Fit|null} null for fewer than two distinct x
 */
export function leastSquares(xs, ys) {
  const n = xs.length;
  if (n < 2) return null;
  const mx = xs.reduce((a, b) => a + b, 0) / n;
  const my = ys.reduce((a, b) => a + b, 0) / n;
  let sxx = 0;
  let sxy = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
    syy += (ys[i] - my) ** 2;
  }
  if (sxx === 0) return null;
  const slope = sxy / sxx;
  // a flat, noiseless line explains everything there is
  const r2 = syy === 0 ? 1 : (sxy * sxy) / (sxx * syy);
  return { slope, intercept: my - slope * mx, r2, points: n };
}

/**
 * The rate at which a fitted line reaches `pct` % of a core, or null for a line that does not rise.
 * @param {Fit|null} fit
 * @param {number} pct
 */
export function rateAt(fit, pct) {
  return fit && fit.slope > 0 ? Math.round((pct - fit.intercept) / fit.slope) : null;
}

/**
 * One projection per node, over the steps that held.
 * @param {Array<{ held: boolean, figures: import('./held.js').StepFigures }>} steps
 * @param {{ headroom: number, nodeCpus: number }} o headroom: % of the node's CPU
 * @returns {NodeProjection[]} soonest to saturate first
 */
export function project(steps, { headroom, nodeCpus }) {
  const held = steps.filter((s) => s.held);
  const byNode = new Map();
  for (const s of held) {
    for (const n of s.figures.nodes) {
      let e = byNode.get(n.addr);
      if (!e) byNode.set(n.addr, (e = { addr: n.addr, role: n.role, shard: n.shard, xs: [], ys: [] }));
      e.xs.push(s.figures.achieved);
      e.ys.push(n.engine);
    }
  }
  const full = 100 * nodeCpus;
  return [...byNode.values()].map((e) => {
    const fit = leastSquares(e.xs, e.ys);
    const why = !fit || fit.points < MIN_POINTS ? `${e.xs.length} held step${e.xs.length === 1 ? '' : 's'} (needs ${MIN_POINTS})`
      : fit.slope <= 0 ? 'CPU does not rise with the rate'
        : fit.r2 < MIN_R2 ? `R² ${fit.r2.toFixed(2)} below ${MIN_R2}` : undefined;
    return {
      addr: e.addr, role: e.role, shard: e.shard, fit, saturatesAt: rateAt(fit, full), atHeadroom: rateAt(fit, (headroom / 100) * full),
      trusted: !why, ...(why ? { why } : {}),
    };
  }).sort((a, b) => (a.saturatesAt ?? Infinity) - (b.saturatesAt ?? Infinity));
}
