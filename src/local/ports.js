/**
 * Free loopback ports for throwaway servers. A port found here is only free at the moment
 * it was checked: callers must still handle "address in use" when the server binds it.
 *
 * The ports are drawn below the kernel's ephemeral range (ip_local_port_range) where there is
 * room: a port the kernel picked for `listen(0)` lies inside that range, and so does the local
 * port of every outgoing connection, so in the seconds between finding a port and a server
 * binding it, any connection the machine opens (a client, a scraper's retry) could take it; one
 * did in a test, and its run failed on "--metrics-port … is in use". Below the range only
 * another explicit bind can.
 */
import fs from 'node:fs';
import net from 'node:net';
import { randomInt } from 'node:crypto';

const HOST = '127.0.0.1';
/** Redis Cluster's bus listens on port + 10000, so cluster ports must stay below this. */
export const CLUSTER_PORT_LIMIT = 65535 - 10000;
/** The lowest port drawn: well above the well-known and registered services' usual ports. */
const LOWEST = 10000;
/** Fewer candidate ports than this below the ephemeral range, and the kernel's pick is used instead. */
const MIN_ROOM = 1000;

/**
 * Binds `port` on 127.0.0.1 (0 = let the kernel pick) and closes it again.
 * @param {number} port
 * @returns {Promise<number|null>} the bound port, or null when it was not free
 */
function probe(port) {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.unref();
    server.once('error', () => resolve(null));
    server.listen({ host: HOST, port, exclusive: true }, () => {
      const bound = /** @type {net.AddressInfo} */ (server.address()).port;
      server.close(() => resolve(bound));
    });
  });
}

/**
 * @param {number} port
 * @returns {Promise<boolean>} true when 127.0.0.1:port can be bound right now
 */
export async function isPortFree(port) {
  return (await probe(port)) === port;
}

/**
 * The first port of the kernel's ephemeral range (Linux), or null where it cannot be read.
 * @returns {number|null}
 */
export function ephemeralLow() {
  try {
    const [low] = fs.readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
    return Number.isInteger(low) && low > 0 ? low : null;
  } catch {
    return null;
  }
}

/**
 * Where candidates are drawn: [lo, hi), below the ephemeral range, with a cluster port's bus
 * (port + 10000) below it too; null when there is too little room (the kernel picks then).
 * @param {boolean} clusterBus
 * @param {number|null} low the ephemeral range's first port
 * @returns {[number, number]|null}
 */
export function candidateRange(clusterBus, low) {
  if (low === null) return null;
  const hi = clusterBus ? Math.min(low - 10000, CLUSTER_PORT_LIMIT) : low;
  return hi - LOWEST >= MIN_ROOM ? [LOWEST, hi] : null;
}

/**
 * Finds `count` distinct free loopback ports.
 * With `clusterBus`, each port is below 55535 and port + 10000 is free too, and no port
 * collides with another one's bus port.
 * @param {number} count
 * @param {{ clusterBus?: boolean, exclude?: Iterable<number>, attempts?: number }} [opts]
 * @returns {Promise<number[]>}
 */
export async function findFreePorts(count, { clusterBus = false, exclude = [], attempts = 500 } = {}) {
  const taken = new Set(exclude);
  const ports = [];
  const range = candidateRange(clusterBus, ephemeralLow());
  for (let i = 0; i < attempts && ports.length < count; i++) {
    const found = range ? await drawn(range) : await probe(0);
    if (found === null || taken.has(found)) continue;
    if (clusterBus) {
      const bus = found + 10000;
      if (found >= CLUSTER_PORT_LIMIT || taken.has(bus) || !(await isPortFree(bus))) continue;
      taken.add(bus);
    }
    taken.add(found);
    ports.push(found);
  }
  if (ports.length < count) {
    throw new Error(`could not find ${count} free loopback ports (found ${ports.length})`);
  }
  return ports;
}

/**
 * A random port of the range, when it is free now.
 * @param {[number, number]} range
 * @returns {Promise<number|null>}
 */
async function drawn([lo, hi]) {
  const port = randomInt(lo, hi);
  return (await isPortFree(port)) ? port : null;
}
