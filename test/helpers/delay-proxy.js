/**
 * A TCP proxy on 127.0.0.1 that holds every chunk the server sends back for `delayMs` before the
 * client gets it: a server that delays its answers, so that a call's time on the wire is known to
 * be at least that. What the client sends goes through at once; order is kept.
 */
import net from 'node:net';

/**
 * @param {{ host: string, port: number }} upstream
 * @param {number} delayMs
 * @returns {Promise<{ host: string, port: number, close: () => Promise<void> }>}
 */
export async function startDelayProxy(upstream, delayMs) {
  const sockets = new Set();
  const server = net.createServer((client) => {
    const up = net.connect(upstream.port, upstream.host);
    sockets.add(client);
    sockets.add(up);
    client.on('data', (d) => up.write(d));
    up.on('data', (d) => setTimeout(() => client.write(d), delayMs));
    const end = () => {
      client.destroy();
      up.destroy();
    };
    client.on('close', end);
    up.on('close', () => setTimeout(end, delayMs));
    client.on('error', end);
    up.on('error', end);
  });
  await new Promise((resolve) => server.listen({ host: '127.0.0.1', port: 0 }, () => resolve(undefined)));
  const { port } = /** @type {net.AddressInfo} */ (server.address());
  return {
    host: '127.0.0.1',
    port,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
