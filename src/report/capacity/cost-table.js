/**
 * The seed's instance table (type | master CPU | replica CPU | vCPU | GB | Hourly | Monthly),
 * answered rather than typed: for every capacity search, its maximum, the cost per month of each
 * 100k items/s, and the shards a target rate needs at the headroom. Prices are the user's
 * (`--hourly-price`); nothing is fetched or assumed. Monthly = Hourly × 720, per node, times the
 * nodes of the topology searched. Pure.
 */
import { HOURS_PER_MONTH, fixed, grouped, mdTable } from '../../record/format.js';
import { checkAgainstSearch } from './projection.js';

/**
 * @typedef {object} InstanceRow
 * @property {string} label
 * @property {{ type: string, vcpu?: number, memoryGb?: number, hourlyPrice?: number }|null} instance
 * @property {number|null} max            max sustainable items/s
 * @property {number|null} masterCpu      busiest master's engine CPU at the maximum, %
 * @property {number|null} replicaCpu
 * @property {number} nodes               nodes in the topology searched
 * @property {number} shards
 * @property {number|null} monthly        one node's price per month (Hourly × 720, the seed's Monthly rate)
 * @property {number|null} per100k        the topology's monthly price / (max / 100k)
 * @property {number|null} perShardAtHeadroom  items/s one shard takes at the headroom
 * @property {number|null} shardsFor      shards needed for --for-rate
 * @property {number|null} projectionErrorPct  the projection against its own search (projection.js
 *   checkAgainstSearch), %: how far to trust the per-shard figure read from it; null when unchecked
 * @property {Bracket|null} bracket       where the repeats put the limit (--confirm); null without them
 * @property {[number|null, number|null]|null} shardsRange  the fewest and most shards for --for-rate
 *   over the bracket (null ends: the bracket is open there); null without a bracket or a rate
 * @property {string} [note]
 */

/**
 * @typedef {object} Bracket
 * @property {number|null} lo   the highest rate that held every try (null: none below the maximum did)
 * @property {number|null} hi   the lowest rate above it that failed every try (null: none did, the limit may be higher)
 * @property {string} record    'held 3/4 at 438,000, failed 4/4 at 450,000'
 */

/**
 * Where a search's repeats (--confirm) put its limit: the calibrated bracket the re-tests widened
 * to (confirmation.bracket). A capacity.json written before the re-tests widened has none; there an
 * end that did not repeat itself moves the bracket out to the next rate that did among the steps
 * run: a maximum that failed a re-test leaves the limit at or below the rate under it that held
 * every try.
 * @param {any} doc capacity.json
 * @returns {Bracket|null} null when the boundary was not re-tested
 */
export function limitBracket(doc) {
  const c = doc.confirmation;
  if (!c || doc.search?.max == null) return null;
  const record = `held ${c.at.held}/${c.at.of} at ${grouped(c.at.rate)}, failed ${c.above.failed}/${c.above.of} at ${grouped(c.above.rate)}`;
  if (Array.isArray(c.bracket)) return { lo: c.bracket[0], hi: c.bracket[1], record };
  const tries = new Map();
  for (const s of doc.steps ?? []) {
    const t = tries.get(s.rate) ?? { held: 0, of: 0 };
    tries.set(s.rate, { held: t.held + (s.held ? 1 : 0), of: t.of + 1 });
  }
  const always = (/** @type {boolean} */ held) =>
    [...tries].filter(([, t]) => (held ? t.held === t.of : t.held === 0)).map(([rate]) => rate);
  const lo = Math.max(-Infinity, ...always(true).filter((r) => r <= c.at.rate));
  const hi = Math.min(Infinity, ...always(false).filter((r) => r >= c.above.rate));
  return { lo: Number.isFinite(lo) ? lo : null, hi: Number.isFinite(hi) ? hi : null, record };
}

/**
 * The shards a rate needs at both ends of the bracket: the projection's rate per shard at the
 * headroom, scaled by where the repeats put the limit against the maximum it was read beside.
 * @param {number} forRate
 * @param {number} perShard items/s one shard takes at the headroom, read at the maximum
 * @param {number} max
 * @param {Bracket} b
 * @returns {[number|null, number|null]} fewest (at the bracket's top), most (at its bottom)
 */
function shardsOver(forRate, perShard, max, b) {
  const need = (/** @type {number|null} */ limit) => (limit ? Math.ceil(forRate / ((perShard * limit) / max)) : null);
  return [need(b.hi), need(b.lo)];
}

/** Money to the cent, '-' when not given. @param {number|null|undefined} v */
const money = (v) => (typeof v === 'number' ? fixed(v, 2) : '-');

/** An hourly price as given: the seed's $0.1008 is not $0.10. @param {number|undefined} v */
const hourly = (v) => (typeof v === 'number' ? String(Math.round(v * 10_000) / 10_000) : '-');

/**
 * One row per capacity search (capacity.json).
 * @param {Array<{ label: string, doc: any }>} searches
 * @param {{ forRate?: number }} o
 * @returns {InstanceRow[]}
 */
export function instanceRows(searches, { forRate } = {}) {
  return searches.map(({ label, doc }) => {
    const max = doc.search?.max ?? null;
    const best = doc.steps?.find((s) => s.rate === max);
    const nodes = best?.figures.nodes ?? doc.steps?.[0]?.figures.nodes ?? [];
    const shards = Math.max(1, nodes.filter((n) => n.role === 'master').length);
    const hourly = doc.instance?.hourlyPrice;
    const monthly = typeof hourly === 'number' ? hourly * HOURS_PER_MONTH : null;
    const proj = doc.projection?.find((p) => p.trusted);
    const perShardAtHeadroom = proj?.atHeadroom ? proj.atHeadroom / shards : null;
    const bracket = limitBracket(doc);
    const check = doc.search && doc.steps && doc.projection && doc.criteria ? checkAgainstSearch(doc) : { unchecked: 'no search' };
    return {
      label,
      instance: doc.instance ?? null,
      max,
      masterCpu: best?.figures.busiestMaster?.engine ?? null,
      replicaCpu: best?.figures.busiestReplica?.engine ?? null,
      nodes: nodes.length,
      shards,
      monthly,
      per100k: monthly !== null && max ? (monthly * Math.max(1, nodes.length) * 100_000) / max : null,
      perShardAtHeadroom,
      shardsFor: forRate && perShardAtHeadroom ? Math.ceil(forRate / perShardAtHeadroom) : null,
      bracket,
      projectionErrorPct: 'errorPct' in check ? check.errorPct : null,
      shardsRange: forRate && perShardAtHeadroom && bracket && max ? shardsOver(forRate, perShardAtHeadroom, max, bracket) : null,
      ...(proj ? {} : { note: 'no trusted projection: shards at the headroom not worked out' }),
    };
  });
}

/**
 * The monthly price of the shards a row needs for its rate (each shard: its master and replicas).
 * @param {InstanceRow} r
 * @returns {number|null}
 */
export function monthlyFor(r) {
  return r.shardsFor && r.monthly !== null ? r.monthly * (Math.max(1, r.nodes) / r.shards) * r.shardsFor : null;
}

/**
 * The cheapest way to carry the rate the rows' shard counts were worked out for: shards needed ×
 * the monthly price of one shard (its master and replicas).
 * @param {InstanceRow[]} rows instanceRows(…, { forRate })
 * @returns {{ row: InstanceRow, monthly: number }|null}
 */
export function cheapest(rows) {
  const priced = rows.filter((r) => monthlyFor(r) !== null).map((r) => ({ row: r, monthly: monthlyFor(r) }));
  priced.sort((a, b) => a.monthly - b.monthly);
  return priced[0] ?? null;
}

/**
 * The table, and the cheapest choice when a rate is given.
 * @param {InstanceRow[]} rows
 * @param {{ forRate?: number, headroom: number, unit?: 'items'|'operations' }} o unit: what the rates count (a kv search's: operations)
 */
export function instanceTableMd(rows, { forRate, headroom, unit = 'items' }) {
  const u = `${unit}/s`;
  const U = `${unit[0].toUpperCase()}${unit.slice(1)}/s`;
  // rows of one instance type (a data model per row, say) are told apart by their step's label
  const types = rows.map((r) => r.instance?.type ?? null);
  const shared = (t) => t !== null && types.filter((x) => x === t).length > 1;
  /** @param {InstanceRow} r */
  const nameOf = (r) => (r.instance?.type ? (shared(r.instance.type) ? `${r.label}: ${r.instance.type}` : r.instance.type) : r.label);
  const table = mdTable(
    [
      'Instance',
      // not the seed's CloudWatch % of the node at one load: the engine at each search's own maximum
      'master engine at max, % of a core',
      'replica engine at max, % of a core',
      'vCPU',
      'GB',
      'Hourly rate',
      'Monthly rate',
      'Nodes',
      `Max sustainable ${u}`,
      'Limit between (re-tests)',
      `Monthly per 100k ${u}`,
      `${U} per shard at ${headroom}%`,
      'Projection vs its search',
      ...(forRate ? [`Shards for ${grouped(forRate)} ${u}`] : []),
    ],
    rows.map((r) => [
      nameOf(r),
      fixed(r.masterCpu ?? NaN, 1),
      fixed(r.replicaCpu ?? NaN, 1),
      r.instance?.vcpu ?? '-',
      r.instance?.memoryGb ?? '-',
      hourly(r.instance?.hourlyPrice),
      money(r.monthly),
      r.nodes,
      grouped(r.max ?? NaN),
      bracketCell(r.bracket),
      money(r.per100k),
      grouped(r.perShardAtHeadroom ?? NaN),
      signedPct(r.projectionErrorPct),
      ...(forRate ? [shardsCell(r)] : []),
    ]),
  );
  const lines = [
    table,
    '',
    `CPU: the busiest node's engine (main thread) at the maximum, % of one core. Monthly rate = Hourly rate × ${HOURS_PER_MONTH}, per node; the cost per 100k ${u} and per shard count every node of the topology searched (Nodes). Prices are the user's; none is fetched.`,
    '',
    `Limit between: the boundary re-tested (capacity --confirm), each end's record with the search's own try; the limit lies between the highest rate that held every try and the lowest that failed every try ("-" where the search was not re-tested, "?" for an end no rate pinned). Projection vs its search: where the projection's line reaches the engine ceiling against the maximum the search held, the error of the per-shard figure read from the same line ("-": the search did not stop on the engine, so nothing checks it).${forRate ? ' Shards as a range: the shards needed at each end of that interval, where they differ.' : ''}`,
  ];
  const notes = rows.filter((r) => r.note).map((r) => `${nameOf(r)}: ${r.note}`);
  if (notes.length) lines.push('', ...notes.map((n) => `- ${n}`));
  if (forRate) {
    const c = cheapest(rows);
    lines.push(
      '',
      c
        ? `**Cheapest for ${grouped(forRate)} ${u} at ${headroom}% engine CPU: ${nameOf(c.row)}, ${c.row.shardsFor} shard(s), ${money(c.monthly)} per month${spans(c.row) ? ` (${shardsCell(c.row)} shards over the limit's interval: the re-tests do not settle the count)` : ''}.**${unsized(rows, c.row)}`
        : `No priced instance with a trusted projection: the cheapest choice for ${grouped(forRate)} ${u} cannot be worked out.`,
    );
  }
  return lines.join('\n');
}

/**
 * The priced rows the choice could not weigh (no trusted projection): said beside it, so "cheapest"
 * is read as the cheapest of the rows sized, not of every row.
 * @param {InstanceRow[]} rows
 * @param {InstanceRow} chosen
 */
function unsized(rows, chosen) {
  const left = rows.filter((r) => r !== chosen && r.instance?.hourlyPrice && monthlyFor(r) === null);
  if (!left.length) return '';
  const names = left.map((r) => r.instance?.type ?? r.label).join(', ');
  return ` Not weighed (no trusted projection): ${names}.`;
}

/** @param {number|null} v */
const signedPct = (v) => (v === null ? '-' : `${v >= 0 ? '+' : '−'}${Math.abs(v).toFixed(1)}%`);

/** @param {Bracket|null} b */
function bracketCell(b) {
  if (!b) return '-';
  const end = (/** @type {number|null} */ v) => (v === null ? '?' : grouped(v));
  return `${end(b.lo)}–${end(b.hi)} (${b.record})`;
}

/** The shard range differs at its two ends, or one end is open. @param {InstanceRow} r */
const spans = (r) => !!r.shardsRange && r.shardsRange[0] !== r.shardsRange[1];

/** Shards for the rate: one count, or the range over the limit's interval. @param {InstanceRow} r */
function shardsCell(r) {
  if (!spans(r)) return r.shardsFor ?? '-';
  const [fewest, most] = /** @type {[number|null, number|null]} */ (r.shardsRange);
  return `${fewest ?? '?'}–${most ?? '?'}`;
}

/**
 * The seed's own table for plain runs that carry instance facts (their manifest's flags): type,
 * master and replica CPU, vCPU, GB, Hourly and Monthly rate. Null when no run has facts.
 * @param {Array<{ label: string, instance: Record<string, any>, cpu: { master: number|null, replica: number|null } }>} runs
 * @returns {string|null}
 */
export function seedTableMd(runs) {
  if (!runs.some((r) => r.instance?.instanceType)) return null;
  return mdTable(
    ['EC2 type', 'master CPU', 'replica CPU', 'vCPU', 'GB', 'Hourly rate', 'Monthly rate'],
    runs.map((r) => {
      const f = r.instance ?? {};
      return [
        `${r.label}: ${f.instanceType ?? '-'}`,
        fixed(r.cpu?.master ?? NaN, 1),
        fixed(r.cpu?.replica ?? NaN, 1),
        f.vcpu ?? '-',
        f.memoryGb ?? '-',
        hourly(f.hourlyPrice),
        money(typeof f.hourlyPrice === 'number' ? f.hourlyPrice * HOURS_PER_MONTH : undefined),
      ];
    }),
  );
}
