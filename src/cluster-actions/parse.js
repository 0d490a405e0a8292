/**
 * `--at <seconds>:<action>[:<arg>]`: a change to the cluster, due some seconds into a run.
 * Everything is checked here, before anything connects: bad values are one-line UsageErrors.
 */
import { UsageError } from '../usage-error.js';
import { SLOTS } from '../transports/redis.js';

/**
 * @typedef {'reshard'|'remove-shard'|'add-shard'|'kill-master'|'failover'} ActionKind
 * @typedef {{ index: number } | { addr: string }} MasterRef  a master by its shard number (1-based,
 *   masters ordered by their lowest slot, as rqbench numbers shards) or by host:port
 * @typedef {object} AtAction
 * @property {number} atSec        seconds into the run
 * @property {ActionKind} kind
 * @property {string} [arg]        the text after the action name, as given
 * @property {number} [slots]      reshard: how many slots to move
 * @property {MasterRef} [master]  remove-shard, kill-master, failover: which master
 * @property {string[]} [addrs]    add-shard: the new nodes, master first, then its replicas
 * @property {string} text         the whole flag value
 */

const SYNTAX =
  '<seconds>:<action>[:<arg>] with action reshard:<slots>, remove-shard[:<master>], ' +
  'add-shard[:<host:port>,...], kill-master[:<master>] or failover[:<master>]';
const MASTER = 'a master as its shard number (1 = lowest slots) or host:port';

/** What each action takes after its name. */
const ARGS = {
  reshard: { required: true, read: readSlots },
  'remove-shard': { read: readMaster },
  'add-shard': { read: readAddrs },
  'kill-master': { read: readMaster },
  failover: { read: readMaster },
};

/**
 * Parses one `--at` value, e.g. `30:reshard:500`, `60:remove-shard:2`, `10:add-shard:10.0.0.5:6379,10.0.0.6:6379`.
 * @param {string} text
 * @returns {AtAction}
 * @throws {UsageError} one line naming --at and what it accepts
 */
export function parseAt(text) {
  const value = String(text ?? '').trim();
  const fail = (what) => new UsageError(`--at ${what} (got ${JSON.stringify(value)})`);
  const m = /^([^:]*):([^:]*)(?::(.*))?$/s.exec(value);
  if (!m) throw fail(`must be ${SYNTAX}`);
  const [, secText, kind, arg] = m;
  if (!/^\d+(\.\d+)?$/.test(secText)) throw fail(`must start with the seconds into the run, a number >= 0: ${SYNTAX}`);
  const spec = Object.hasOwn(ARGS, kind) ? ARGS[kind] : undefined;
  if (!spec) throw fail(`must be ${SYNTAX}`);
  /** @type {AtAction} */
  const action = { atSec: Number(secText), kind: /** @type {ActionKind} */ (kind), text: value };
  if (arg === undefined) {
    if (spec.required) throw fail(`${kind} needs the number of slots to move: <seconds>:reshard:<slots>`);
    return action;
  }
  action.arg = arg;
  return Object.assign(
    action,
    spec.read(arg, (what) => fail(`${kind} ${what}`)),
  );
}

/**
 * Parses a repeated `--at` flag (yargs gives one string or an array), sorted by time; actions
 * due at the same time keep the order given.
 * @param {string|string[]|undefined} values
 * @returns {AtAction[]}
 */
export function parseAtList(values) {
  const list = values === undefined ? [] : Array.isArray(values) ? values : [values];
  return list
    .map(parseAt)
    .map((a, i) => ({ a, i }))
    .sort((x, y) => x.a.atSec - y.a.atSec || x.i - y.i)
    .map(({ a }) => a);
}

/**
 * A host:port (or [ipv6]:port) as `host:port`, the way CLUSTER NODES writes addresses; null when it is not one.
 * @param {string} text
 * @returns {string|null}
 */
export function parseAddr(text) {
  const m = /^(?:\[([^\]]+)\]|([^:\s[\]]+)):(\d{1,5})$/.exec(text);
  const port = m ? Number(m[3]) : 0;
  return m && port >= 1 && port <= 65535 ? `${m[1] ?? m[2]}:${port}` : null;
}

function readSlots(arg, fail) {
  const slots = /^\d+$/.test(arg) ? Number(arg) : NaN;
  if (!(slots >= 1 && slots <= SLOTS)) throw fail(`needs the number of slots to move, an integer from 1 to ${SLOTS}`);
  return { slots };
}

function readMaster(arg, fail) {
  if (/^\d+$/.test(arg) && Number(arg) >= 1) return { master: { index: Number(arg) } };
  const addr = parseAddr(arg);
  if (!addr) throw fail(`takes ${MASTER}`);
  return { master: { addr } };
}

function readAddrs(arg, fail) {
  const addrs = arg.split(',').map((a) => parseAddr(a.trim()));
  if (addrs.some((a) => a === null)) throw fail('takes the new nodes as host:port,host:port,... (master first, then its replicas)');
  if (new Set(addrs).size !== addrs.length) throw fail('lists a node twice');
  return { addrs };
}
