/**
 * The Results section's cost per item (runs/common/cost-summary.js) for `produce` steps: what one
 * item written cost each role, the figures that carry over to a node of another size, with the
 * seed's own per-item figure beside where its row gives its items per second (`items/s`).
 *
 * The seed's figure is its master node's CPUUtilization × the node's vCPUs ÷ the items per second
 * of every writer: process CPU of the whole node, which holds the host's own work too (the OS and
 * the agents CloudWatch counts), a floor a local redis-server's figure does not have.
 */
import { fixed, grouped, mdTable } from '../../record/format.js';
import { stepMetrics } from './produce-metrics.js';

/** The seed column whose figure is the master's CPU, % of its node. */
const SEED_MASTER = 'master CPU';

/**
 * @param {import('../spec.js').Spec} spec
 * @param {import('./kind-contract.js').StepRun[]} steps
 * @returns {string[]} lines; none when no step has run with cost per item and no step has the seed's
 */
export function costTable(spec, steps) {
  const measured = steps.some(({ r }) => r?.complete && r.producer?.cost);
  const seeded = steps.some(({ step }) => seedUsPerItem(spec, step) !== null);
  if (!measured && !seeded) return [];
  const rows = steps.map(({ step, r }) => {
    const seed = seedUsPerItem(spec, step);
    const seedCell = seed === null ? '-' : fixed(seed, 2);
    if (!r?.complete || !r.producer?.cost) return [step.label, ...Array(7).fill('-'), seedCell];
    const m = stepMetrics(r.producer, r.consumer);
    return [
      step.label,
      fixed(m.master_us_per_item ?? NaN, 2),
      fixed(m.master_process_us_per_item ?? NaN, 2),
      fixed(m.replica_us_per_item ?? NaN, 2),
      fixed(m.master_bytes_in_per_item ?? NaN, 0),
      fixed(m.master_repl_bytes_per_item ?? NaN, 0),
      fixed(m.memory_per_item ?? NaN, 0),
      r.producer.cost.liveItems === null || r.producer.cost.liveItems === undefined ? '-' : grouped(r.producer.cost.liveItems),
      seedCell,
    ];
  });
  const header = [
    'Step',
    'master µs/item',
    'master process µs/item',
    'replica µs/item',
    'bytes in/item',
    'replication out/item',
    'memory bytes/live item',
    'live items',
    'seed: master node µs/item',
  ];
  const note = [
    "Per item written: each role's CPU over the window (main thread, then process) ÷ the items acknowledged in it, every node of the role together; client bytes in and replication bytes out per item (INFO stats); the masters' used_memory growth (less the replication backlog and client buffers) ÷ the distinct items live at the window's end, measured only from a server that started empty.",
    seeded
      ? `The seed's figure is its master CPU column (% of ${spec.seedNodeVcpus ?? '?'} vCPUs; for a cluster's row, its masters added up) × its vCPUs ÷ its items/s: the whole node's CPU, the host's own work included (the OS and CloudWatch's agents), so it reads beside "master process µs/item", and is an upper bound of Redis's own.`
      : '',
  ].filter(Boolean);
  return ['### Cost per item', '', mdTable(header, rows), '', note.join(' '), ''];
}

/**
 * The seed's master node CPU per item, µs: its figure (% of the node) × vCPUs ÷ its items/s; null
 * without the three.
 * @param {import('../spec.js').Spec} spec
 * @param {import('../spec.js').Step} step
 * @returns {number|null}
 */
export function seedUsPerItem(spec, step) {
  const rate = step.seed?.itemsPerSec;
  const figure = step.seed?.figures.find(([c]) => c === SEED_MASTER)?.[1];
  // the seed's cell as written: "44.5", "36%", "38 up to 43%" (its first figure)
  const pct = figure === undefined ? NaN : Number.parseFloat(figure);
  if (!rate || !spec.seedNodeVcpus || !Number.isFinite(pct)) return null;
  return ((pct / 100) * spec.seedNodeVcpus * 1e6) / rate;
}
