/**
 * The Redis system under test: where it is, how to reach it, and what it is made of
 * (masters and replicas with roles and shards, which master owns each slot).
 */
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { RespPipe } from './redis-pipe.js';
import { settings } from '../settings.js';

export const SLOTS = 16384;

/**
 * @typedef {object} RedisConn
 * @property {string} host
 * @property {number} port
 * @property {string} [username]
 * @property {string} [password]
 * @property {number} [db]
 * @property {boolean} cluster
 * @property {false|import('node:tls').ConnectionOptions} tls   options shared by every node (ca, rejectUnauthorized), or false
 * @property {number} [connectTimeoutMs]
 */

/**
 * @typedef {object} RedisNode
 * @property {string} id       cluster node id, or host:port when standalone
 * @property {string} addr     host:port
 * @property {string} host
 * @property {number} port
 * @property {'master'|'replica'} role
 * @property {number} shard    1-based, masters ordered by their lowest slot
 * @property {string} [masterId]
 * @property {boolean} [myself]   the node that answered CLUSTER NODES
 * @property {boolean} [failed]
 * @property {boolean} [suspect]  flagged fail? (PFAIL): the node that answered has lost touch with it
 * @property {Array<[number, number]>} slots
 */

/**
 * Builds the connection from --url / --host / --port / --user / --password / --tls flags.
 * A URL wins over host/port; its user and password are used but never echoed. TLS is on with
 * rediss://, --tls, or a TLS flag (--tls-ca, --tls-insecure): nobody gives a CA for plain TCP.
 * @param {object} a parsed flags
 * @returns {RedisConn}
 */
export function connectionFrom(a) {
  /** @type {RedisConn} */
  const conn = {
    host: a.host ?? settings.host,
    port: a.port ?? settings.port,
    username: a.user || undefined,
    password: a.password || process.env.REDIS_PASSWORD || undefined,
    db: 0,
    cluster: !!a.cluster,
    tls: false,
    connectTimeoutMs: settings.connectTimeoutMs,
  };
  let useTls = !!(a.tls || a.tlsCa || a.tlsInsecure);
  if (a.url) {
    const u = new URL(a.url);
    useTls = useTls || u.protocol === 'rediss:';
    conn.host = u.hostname.replace(/^\[|\]$/g, '');
    conn.port = u.port ? Number(u.port) : settings.port;
    if (u.username) conn.username = decodeURIComponent(u.username);
    if (u.password) conn.password = decodeURIComponent(u.password);
    if (u.pathname.length > 1) conn.db = Number(u.pathname.slice(1));
  }
  if (useTls) {
    conn.tls = {};
    if (a.tlsCa) conn.tls.ca = readFileSync(a.tlsCa);
    if (a.tlsInsecure) conn.tls.rejectUnauthorized = false;
  }
  return conn;
}

/**
 * The connection as it may be shown or saved: no password.
 * @param {RedisConn} conn
 */
export function describeConnection(conn) {
  const scheme = conn.tls ? 'rediss' : 'redis';
  const user = conn.username ? `${encodeURIComponent(conn.username)}${conn.password ? ':***' : ''}@` : conn.password ? ':***@' : '';
  const host = conn.host.includes(':') ? `[${conn.host}]` : conn.host;
  return `${scheme}://${user}${host}:${conn.port}${conn.db ? `/${conn.db}` : ''}`;
}

/**
 * Parses CLUSTER NODES into nodes with roles and shards.
 * @param {string} text
 * @returns {RedisNode[]}
 */
export function parseClusterNodes(text) {
  /** @type {RedisNode[]} */
  const nodes = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split(' ');
    if (f.length < 8) continue;
    const [id, addrField, flags, master] = f;
    const flagSet = new Set(flags.split(','));
    if (flagSet.has('noaddr') || flagSet.has('handshake')) continue;
    const hostPort = addrField.split('@')[0];
    const cut = hostPort.lastIndexOf(':');
    const host = hostPort.slice(0, cut);
    const port = Number(hostPort.slice(cut + 1));
    if (!host || !port) continue;
    /** @type {Array<[number, number]>} */
    const slots = [];
    for (const s of f.slice(8)) {
      if (s.startsWith('[')) continue; // migrating/importing marker
      const [a, b] = s.split('-').map(Number);
      slots.push([a, b ?? a]);
    }
    nodes.push({
      id,
      host,
      port,
      addr: `${host}:${port}`,
      role: flagSet.has('master') ? 'master' : 'replica',
      masterId: master === '-' ? undefined : master,
      myself: flagSet.has('myself'),
      failed: flagSet.has('fail'),
      suspect: flagSet.has('fail?'),
      slots,
      shard: 0,
    });
  }
  numberShards(nodes);
  return nodes;
}

/** Shards are numbered by their master's lowest slot, replicas take their master's number. */
function numberShards(nodes) {
  const masters = nodes.filter((n) => n.role === 'master' && n.slots.length > 0 && !n.failed);
  masters.sort((a, b) => a.slots[0][0] - b.slots[0][0]);
  masters.forEach((m, i) => {
    m.shard = i + 1;
  });
  const byId = new Map(masters.map((m) => [m.id, m]));
  for (const n of nodes) if (n.role === 'replica') n.shard = byId.get(n.masterId)?.shard ?? 0;
}

/**
 * Replicas a standalone master reports in INFO replication.
 * @param {string} info
 * @param {RedisNode} master
 * @returns {RedisNode[]}
 */
export function parseReplicas(info, master) {
  /** @type {RedisNode[]} */
  const out = [];
  for (const m of info.matchAll(/^slave\d+:ip=([^,]+),port=(\d+),state=([a-z_]+)/gm)) {
    const addr = `${m[1]}:${m[2]}`;
    out.push({ id: addr, addr, host: m[1], port: Number(m[2]), role: 'replica', masterId: master.id, shard: 1, slots: [] });
  }
  return out;
}

/**
 * Parses an INFO reply into a flat object.
 * @param {string} text
 * @returns {Record<string, string>}
 */
export function parseInfo(text) {
  /** @type {Record<string, string>} */
  const out = {};
  for (const line of text.split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0 && line[0] !== '#') out[line.slice(0, i)] = line.slice(i + 1).trim();
  }
  return out;
}

/**
 * tls.connect options for one node of the target, or false without TLS. A node is verified
 * against its own name; a node known only by its IP (CLUSTER NODES and INFO replication list
 * IPs) against the name the user connected to, when that was a name: a managed cluster's nodes
 * share one certificate for its domain (ElastiCache), and the CA still has to vouch for that
 * name. Otherwise an IP is verified as an IP (the certificate's IP SANs).
 * @param {RedisConn} conn
 * @param {string} host the node's host
 * @returns {false|import('node:tls').ConnectionOptions}
 */
export function tlsFor(conn, host) {
  if (!conn.tls) return false;
  const name = !net.isIP(host) ? host : !net.isIP(conn.host) ? conn.host : undefined;
  return name ? { ...conn.tls, servername: name } : { ...conn.tls };
}

/**
 * Opens a pipe to one address with the connection's credentials and TLS options.
 * @param {RedisConn} conn
 * @param {string} host
 * @param {number} port
 * @param {{ readonly?: boolean, connectTimeoutMs?: number, replyTimeoutMs?: number }} [extra]
 */
export function openPipe(conn, host, port, extra = {}) {
  return new RespPipe({ ...conn, host, port, tls: tlsFor(conn, host), ...extra }).connect();
}

/**
 * Reads the topology through an open pipe to one node.
 * @param {RespPipe} pipe
 * @param {RedisConn} conn
 * @returns {Promise<RedisNode[]>}
 */
export async function discover(pipe, conn) {
  if (conn.cluster) {
    const text = await pipe.call(['CLUSTER', 'NODES']);
    return parseClusterNodes(text);
  }
  const info = await pipe.call(['INFO', 'replication']);
  const role = parseInfo(info).role;
  /** @type {RedisNode} */
  const self = {
    id: `${conn.host}:${conn.port}`,
    addr: `${conn.host}:${conn.port}`,
    host: conn.host,
    port: conn.port,
    role: role === 'slave' ? 'replica' : 'master',
    shard: 1,
    slots: [[0, SLOTS - 1]],
  };
  return [self, ...parseReplicas(info, self)];
}

/**
 * Master address owning each slot.
 * @param {RedisNode[]} nodes
 * @returns {string[]}
 */
export function slotTable(nodes) {
  const table = new Array(SLOTS).fill(undefined);
  for (const n of nodes) {
    if (n.role !== 'master' || n.failed) continue;
    for (const [a, b] of n.slots) for (let s = a; s <= b; s++) table[s] = n.addr;
  }
  return table;
}
