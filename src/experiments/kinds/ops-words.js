/**
 * The words around ops steps' tables in RESULTS.md, for the spec's seed and the services it ran:
 * what the overhead table's quantity is (seed 003's for the AWS SDK rows only), what the round
 * trips stand beside and which local servers answered them, what "connect" means per client, and
 * what a spectrum is beside seed 004's wrk2 spectra.
 */
import { OVERHEAD_HOW } from '../../runs/ops/ops-table.js';
import { opsDrivers } from '../../transports/ops-drivers.js';

/** `--only` word → the name the table gives the service. */
export const SERVICE_NAMES = { redis: 'Redis', ...Object.fromEntries(opsDrivers().map((d) => [d.name, d.ops.service])) };

/**
 * The seeds a spec names, by number ("003 § Baseline; 004 § …" → ['003', '004']).
 * @param {string} seed the spec's seed:
 * @returns {string[]}
 */
export function seedNumbers(seed) {
  return [...String(seed ?? '').matchAll(/(?:^|;)\s*(\d{3})\b/g)].map((m) => m[1]);
}

/** Each local stand-in (its QueueEmulator name), as the text names it, and whether it serves several services. */
const STARTED_NAMES = /** @type {Record<string, [string, boolean]>} */ ({
  sqs: ['fauxqs', true],
  moto: ["moto's server", true],
  pubsub: ['the Pub/Sub emulator', false],
});

/**
 * The server the runner started for a service (`--only` word), as the text names it, or null
 * when the service is not on one the runner started (a url:, a queue endpoint).
 * @param {string} word
 * @param {import('../spec.js').Topology} topology
 * @returns {string|null}
 */
export function startedServer(word, topology) {
  if (word === 'redis') return topology.local ? 'a local Redis' : null;
  const emu = opsDrivers().find((d) => d.name === word)?.emulator;
  if (!emu || !STARTED_NAMES[emu.name]) return null;
  // moto's server is started on a local topology only; queue: { emulator } starts that emulator alone
  const started = Boolean(topology.local) || (emu.name !== 'moto' && topology.queue?.emulator === emu.name);
  return started ? STARTED_NAMES[emu.name][0] : null;
}

/**
 * The servers the runner started, with the services each served: "fauxqs for S3, SNS and SQS; …".
 * @param {string[]} words the services' `--only` words
 * @param {import('../spec.js').Topology} topology
 * @returns {string|null} null when it started none of them
 */
export function startedServers(words, topology) {
  /** @type {Map<string, string[]>} */
  const by = new Map();
  for (const w of new Set(words)) {
    const server = startedServer(w, topology);
    if (server) by.set(server, [...(by.get(server) ?? []), SERVICE_NAMES[w]]);
  }
  if (!by.size) return null;
  const several = new Set(
    Object.values(STARTED_NAMES)
      .filter(([, many]) => many)
      .map(([n]) => n),
  );
  const and = (xs) => (xs.length > 1 ? `${xs.slice(0, -1).join(', ')} and ${xs.at(-1)}` : xs[0]);
  return [...by].map(([server, names]) => (several.has(server) ? `${server} for ${and(names)}` : server)).join('; ');
}

/** Services whose client overhead is the nearest their client allows, not seed 003's quantity. */
const NEAREST = ['pubsub', 'redis'];

/**
 * What the overhead table is, for the spec's seed and the services it holds.
 * @param {string[]} seeds the spec's seed numbers
 * @param {string[]} words the table's services (`--only` words)
 */
export function overheadWords(seeds, words) {
  const near = NEAREST.filter((w) => words.includes(w)).map((w) => SERVICE_NAMES[w]);
  const aws = words.some((w) => !NEAREST.includes(w));
  const parts = [
    aws && "for the AWS SDK's rows, seed 003's own quantity",
    near.length &&
      `for ${near.join(' and ')}, the nearest ${near.length > 1 ? 'their clients allow' : 'its client allows'}, not seed 003's quantity`,
  ].filter(Boolean);
  const own = seeds.includes('003') ? '' : seeds.includes('004') ? '; seed 004 gives no overhead figure' : '';
  return `The client's overhead in each warm call, laid out as seed 003's table (its "Overhead (ms)" heads it${own})${parts.length ? `: ${parts.join('; ')}` : ''}. ${OVERHEAD_HOW}`;
}

/**
 * What the round-trip table stands beside in the seed, and whose servers it timed.
 * @param {import('../spec.js').Spec} spec
 * @param {string[]} words the table's services (`--only` words)
 * @param {string} lengths the calls' warm-up and measured seconds
 */
export function roundTripWords(spec, words, lengths) {
  // the seed's columns whose figure here is the warm median of a service of this table: "a / b / c" names one per metric
  const ours = (m) => /_warm_p50_ms$/.test(m) && words.some((w) => m.startsWith(`${w}_`));
  const beside = [
    ...new Set(
      (spec.seedMetrics ?? []).flatMap(([col, metrics]) => {
        const parts = col.split(' / ');
        return metrics.flatMap((m, i) => (ours(m) ? [parts.length === metrics.length ? parts[i] : col] : []));
      }),
    ),
  ];
  const seeds = seedNumbers(spec.seed);
  const seedWords = beside.length
    ? `The table beside the seed above sets the warm calls' median beside the seed's ${beside.map((c) => `"${c}"`).join(' and ')} (in the seed, ${beside.length > 1 ? "each one call's whole time" : "one call's whole time"}).`
    : `${seeds.length ? `Seed ${seeds.join(' and ')}` : 'The seed'} gives no round-trip figures for these operations.`;
  const servers = startedServers(words, spec.topology);
  return `Each operation on a fresh connection (or client): connecting, one first call, ${lengths} of calls one after another, each timed from send to reply; ms. ${seedWords} These are rqbench's${servers ? `, against the servers the runner started: ${servers}` : ''}.`;
}

/**
 * How "connect" and the first call read, for the services present: an SDK client (each AWS
 * service's, Pub/Sub's) is made fresh for each operation and connects on its first call; Redis's
 * connect is the connection.
 * @param {string[]} words the services (`--only` words)
 */
export function phasesWords(words) {
  const aws = words.some((w) => !NEAREST.includes(w));
  const sdk = [aws && "each AWS service's", words.includes('pubsub') && "Pub/Sub's"].filter(Boolean);
  return [
    'The first call on a fresh connection against the median of the warm calls after it.',
    sdk.length
      ? `${aws ? 'Every SDK client' : 'The SDK client'} (${sdk.join(' and ')}) is made fresh for each operation and connects on its first call, so there "connect" is making the client and the first call carries the handshake.`
      : '',
    words.includes('redis') ? 'Redis\'s "connect" is a connection: each operation opens its own.' : '',
  ]
    .filter(Boolean)
    .join(' ');
}

/**
 * What a spectrum below is, beside the seed's: seed 004 printed wrk2's spectra of compose-post
 * (at -t 4 -c 48, -t 2 -c 16 and -t 1 -c 1), HTTP requests through a function chain.
 * @param {string[]} seeds the spec's seed numbers
 * @param {string} service the service's name
 * @param {string} op
 * @param {string} file the .hlog
 * @param {string|null} server the server the runner started for it, or null
 */
export function spectrumWords(seeds, service, op, file, server) {
  const against = server ? ` against ${server}${service === SERVICE_NAMES.redis ? '' : `, a stand-in for ${service}`}` : '';
  const seed004 = seeds.includes('004')
    ? 'Seed 004'
    : `The layout is seed 004's${seeds.includes('003') ? ' (seed 003 prints no spectrum)' : ''}: it`;
  return (
    `Laid out as wrk2 prints it (\`rqbench report --spectrum\`'s layout), and only laid out so: each value is one ${service} ${op} call${against}, ms, from ${file}; one connection, one call at a time (like \`wrk -t 1 -c 1\`), each timed from send to reply, so no schedule and no coordinated-omission correction.` +
    ` ${seed004} printed wrk2 spectra of HTTP requests to a function chain (compose-post: 9 RPCs and 10 functions per request) at -t 4 -c 48, -t 2 -c 16 and -t 1 -c 1, a different quantity: compare the shape of the tail, not the values.`
  );
}
