/**
 * summary.md's cost per item (runs/common/cost-summary.js): one row per role, then per node, and
 * for a producer the keys by shape, so a reader sees where the bytes are. A figure the run could
 * not make is shown as a dash, never a 0.
 */
import { fixed, grouped, mdTable } from '../../record/format.js';

/** @param {number|null|undefined} x */
const cell = (x, d = 1) => (x === null || x === undefined ? '–' : fixed(x, d));

/**
 * @param {import('./cost-summary.js').CostSummary|undefined} cost
 * @returns {string[]} lines
 */
export function costMd(cost) {
  if (!cost || !cost.items) return [];
  if (cost.partOf)
    return [
      `**Cost per ${cost.per}:** not made here: this run is ${cost.partOf}, and the server's work is every part's. \`rqbench report\` on every part's run directory has it.`,
      '',
    ];
  const memory = cost.per === 'item written';
  const header = ['Role', 'engine CPU µs', 'process CPU µs', 'bytes in', 'bytes out', 'replication in', 'replication out'];
  if (memory) header.push('memory, bytes per live item');
  const row = (label, c) => {
    const r = [label, cell(c.engineUs, 2), cell(c.processUs, 2), cell(c.netIn), cell(c.netOut), cell(c.replIn), cell(c.replOut)];
    if (memory) r.push(cell(c.memory, 0));
    return r;
  };
  const rows = [];
  for (const role of /** @type {const} */ (['master', 'replica']))
    if (cost.nodes.some((n) => n.role === role)) rows.push(row(`${role}s`, cost.roles[role]));
  const live =
    memory && cost.liveItems !== null
      ? `; memory per item live at the window's end (${grouped(cost.liveItems)} distinct items acknowledged within the TTL before it)`
      : '';
  const out = [
    `**Cost per ${cost.per}** (over the window's ${grouped(cost.items)} ${cost.per === 'operation' ? 'operations' : 'items'}${live}; a role's nodes together):`,
    '',
  ];
  out.push(mdTable(header, rows), '');
  if (cost.nodes.length > 1) {
    out.push(`Per node, per ${cost.per} of the whole run:`, '');
    out.push(
      mdTable(
        ['Node', ...header.slice(1)],
        cost.nodes.map((n) => row(`${n.addr} (${n.role}, shard ${n.shard})`, n)),
      ),
      '',
    );
  }
  if (memory && cost.startedEmpty === false)
    out.push(
      "Note: the server held keys before the run, so its memory's growth is not this run's alone: memory per item is measured only from an empty server (a fresh --local one, or FLUSHALL first).",
      '',
    );
  out.push(...keysMd(cost), ...keysErrors(cost));
  return out;
}

/** The keys by shape: where the bytes are. @param {import('./cost-summary.js').CostSummary} cost */
function keysMd(cost) {
  const keys = cost.keys ?? [];
  if (!keys.length) return [];
  const rows = keys.map((k) => [
    `\`${k.shape}\``,
    k.type,
    k.encoding ?? '–',
    `${grouped(k.keys)}${k.estimated ? ' (est.)' : ''}`,
    k.bytesPerKey === null ? '–' : grouped(k.bytesPerKey),
    k.bytes === null ? '–' : grouped(k.bytes),
  ]);
  return [
    "Where the bytes are, after the run (every master's keys by shape, digits as #; MEMORY USAGE of up to 3 keys each, every element counted):",
    '',
    mdTable(['Keys', 'type', 'encoding', 'count', 'bytes per key', 'bytes'], rows),
    '',
  ];
}

/** @param {import('./cost-summary.js').CostSummary} cost */
function keysErrors(cost) {
  const errors = cost.keysErrors;
  return errors?.length ? [`Note: the keys could not all be read after the run: ${errors.join('; ')}.`, ''] : [];
}
