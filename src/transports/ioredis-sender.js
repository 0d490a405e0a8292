/**
 * The seed's client behind a writer (`produce --client ioredis`): ioredis, a Cluster with
 * enableAutoPipelining under --cluster as the seed's producer ran it (one call per command, grouped
 * per node and event-loop tick by ioredis), in place of rqbench's ClusterSender. What ioredis does
 * with a redirect is ioredis's own: a MOVED it throws is a failed command, counted by its error
 * reply and never retried here. The seed's writers died on one (002 § Online scaling of shards:
 * "ReplyError: MOVED 13664 …"); this sender counts them instead, so the run says how many.
 * It speaks the Batch interface ClusterSender does (transports/cluster-sender.js).
 */
import { performance } from 'node:perf_hooks';
import { Cluster, Redis } from 'ioredis';
import { tlsFor } from './redis.js';
import { logDrops } from './ioredis-watch.js';

/** Its connections' name in CLIENT LIST: an operator (or a test) can tell them from the router's. */
export const SEED_CLIENT_NAME = 'rqbench-ioredis';

export class IoredisSender {
  /**
   * @param {import('./redis.js').RedisConn} conn
   * @param {import('./conn-drops.js').DropLog} [drops] where its dropped connections are logged
   */
  constructor(conn, drops) {
    const opts = { username: conn.username, password: conn.password, connectionName: SEED_CLIENT_NAME };
    /** @type {Redis|Cluster} */
    this.client = conn.cluster
      ? new Cluster([{ host: conn.host, port: conn.port }], {
          enableAutoPipelining: true,
          redisOptions: { ...opts, tls: tlsFor(conn, conn.host) || undefined },
        })
      : new Redis({
          host: conn.host,
          port: conn.port,
          db: conn.db,
          enableAutoPipelining: true,
          ...opts,
          tls: tlsFor(conn, conn.host) || undefined,
        });
    // a connection error is ioredis's to retry (it reconnects); its commands fail and are counted
    this.client.on('error', () => {});
    if (drops) logDrops(this.client, drops, 'ioredis');
  }

  /** Resolves once ioredis is ready (a Cluster: once it has the slots). */
  async open() {
    if (this.client.status === 'ready') return;
    await new Promise((resolve, reject) => {
      this.client.once('ready', resolve);
      this.client.once('end', () => reject(new Error('ioredis could not connect')));
    });
  }

  /**
   * @param {string} _addr where rqbench would send it: ioredis routes by itself
   * @param {import('./cluster-sender.js').Batch} batch
   */
  send(_addr, batch) {
    let pending = batch.n;
    const settled = () => {
      if (--pending === 0) batch.done?.(performance.now());
    };
    for (let i = 0; i < batch.n; i++) {
      const [name, ...args] = commandArgs(batch.buf, batch.starts[i], batch.starts[i + 1]);
      this.client.call(name, ...args).then(
        () => {
          batch.ok?.(1, performance.now());
          settled();
        },
        (err) => {
          batch.fail?.(i, err, performance.now());
          settled();
        },
      );
    }
  }

  close() {
    this.client.disconnect();
  }
}

/**
 * One RESP command (an array of bulk strings, as rqbench renders every command) back into its
 * arguments. Item payloads are ASCII (stores/payload.js), so strings carry the same bytes.
 * @param {Buffer} buf
 * @param {number} from
 * @param {number} to
 * @returns {string[]}
 */
export function commandArgs(buf, from, to) {
  let at = from;
  const line = () => {
    const end = buf.indexOf('\r\n', at, 'latin1');
    const text = buf.toString('latin1', at + 1, end);
    at = end + 2;
    return Number(text);
  };
  if (buf[at] !== 0x2a) throw new Error('not a RESP array');
  const n = line();
  const out = new Array(n);
  for (let i = 0; i < n; i++) {
    if (buf[at] !== 0x24) throw new Error('not a RESP bulk string');
    const len = line();
    out[i] = buf.toString('latin1', at, at + len);
    at += len + 2;
  }
  if (at !== to) throw new Error(`RESP command ends at ${at}, not ${to}`);
  return out;
}
