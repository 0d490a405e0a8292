/**
 * Where a node would saturate, from the steps that held: a least-squares line of its engine CPU
 * against the achieved rate, read at 100% of its CPU (saturation) and at the headroom a user
 * wants to keep (say 60%). Pure. A line is only as good as its fit: too few points, a poor R² or
 * a flat slope is said, not projected.
 */

/**
 * The most of a core a node's engine can have: its main thread is one thread, so a node of 2
 * cores still saturates at 100% of one (the rest serve I/O threads, forks and the kernel), and a
 * node capped at half a core at 50%. ElastiCache's EngineCPUUtilization is read the same way.
 * @param {number} nodeCpus cores each node has
 */
export function engineCores(nodeCpus) {
  return Math.min(nodeCpus, 1);
}

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
 * @property {number|null} saturatesAt  items/s where the engine reaches all the CPU it can have (engineCores)
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
 * @param {Array<{ held: boolean, figures: import('./capacity-result.js').StepFigures }>} steps
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
  const full = 100 * engineCores(nodeCpus);
  return [...byNode.values()]
    .map((e) => {
      const fit = leastSquares(e.xs, e.ys);
      const why =
        !fit || fit.points < MIN_POINTS
          ? `${e.xs.length} held step${e.xs.length === 1 ? '' : 's'} (needs ${MIN_POINTS})`
          : fit.slope <= 0
            ? 'CPU does not rise with the rate'
            : fit.r2 < MIN_R2
              ? `R² ${fit.r2.toFixed(2)} below ${MIN_R2}`
              : undefined;
      return {
        addr: e.addr,
        role: e.role,
        shard: e.shard,
        fit,
        saturatesAt: rateAt(fit, full),
        atHeadroom: rateAt(fit, (headroom / 100) * full),
        trusted: !why,
        ...(why ? { why } : {}),
      };
    })
    .sort((a, b) => (a.saturatesAt ?? Infinity) - (b.saturatesAt ?? Infinity));
}

/**
 * @typedef {object} ProjectionCheck
 * @property {string} addr          the node whose line is checked (the one that stopped the search)
 * @property {number} ceilingPct    the engine ceiling, % of the CPU the engine can have
 * @property {number} projected     items/s where its line reaches that ceiling
 * @property {number} searchedMax   the highest rate the search held
 * @property {number} failedAbove   the lowest rate above it that did not
 * @property {number} errorPct      (projected − searchedMax) / searchedMax, %
 */

/**
 * The projection held to account by the search it came from: where the line of the node that
 * stopped the search reaches the engine ceiling, against the highest rate the search held. Only
 * a search the engine stopped can check it: stopped by latency, failures or the writers, the
 * maximum is a different limit than the one the line projects.
 * @param {{ search: { max: number|null, failedAbove: number|null, end: string }|null, steps: Array<{ rate: number, held: boolean, limit: import('./capacity-result.js').Limit|null }>, projection: NodeProjection[], criteria: { engineCeiling: number, nodeCpus: number } }} r
 * @returns {ProjectionCheck|{ unchecked: string }}
 */
export function checkAgainstSearch(r) {
  const s = r.search;
  if (!s || s.max === null || s.failedAbove === null) return { unchecked: 'the search found no boundary' };
  const above = r.steps.find((x) => x.rate === s.failedAbove && !x.held);
  const limit = above?.limit;
  if (limit?.kind !== 'engine' || !limit.node) return { unchecked: `the search stopped on ${limit?.kind ?? 'no step'}, not the engine` };
  const p = r.projection.find((x) => x.addr === limit.node.addr);
  if (!p?.trusted) return { unchecked: `the line of ${limit.node.addr} is not trusted${p?.why ? ` (${p.why})` : ''}` };
  const ceilingPct = r.criteria.engineCeiling;
  const projected = rateAt(p.fit, ceilingPct * engineCores(r.criteria.nodeCpus));
  if (projected === null) return { unchecked: 'the line does not rise' };
  return {
    addr: p.addr,
    ceilingPct,
    projected,
    searchedMax: s.max,
    failedAbove: s.failedAbove,
    errorPct: ((projected - s.max) / s.max) * 100,
  };
}
