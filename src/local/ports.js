/**
 * Free loopback ports for throwaway servers. A port found here is only free at the moment
 * it was checked: callers must still handle "address in use" when the server binds it.
 */
import net from 'node:net';

const HOST = '127.0.0.1';
/** Redis Cluster's bus listens on port + 10000, so cluster ports must stay below this. */
export const CLUSTER_PORT_LIMIT = 65535 - 10000;

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
  for (let i = 0; i < attempts && ports.length < count; i++) {
    const port = await probe(0);
    if (port === null || taken.has(port)) continue;
    if (clusterBus) {
      const bus = port + 10000;
      if (port >= CLUSTER_PORT_LIMIT || taken.has(bus) || !(await isPortFree(bus))) continue;
      taken.add(bus);
    }
    taken.add(port);
    ports.push(port);
  }
  if (ports.length < count) {
    throw new Error(`could not find ${count} free loopback ports (found ${ports.length})`);
  }
  return ports;
}
