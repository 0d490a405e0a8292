/**
 * The clients `rqbench ops` times AWS operations with: a fresh, metered client per session (so
 * "connect" is making the client, and the first call carries the handshake), a client of its own
 * per admin call (setup, teardown). An operation the endpoint does not implement (an emulator's
 * HTML 404 page where the service's answer should be; the service's own error would parse) fails
 * with `notEmulated`: its row says so, and no figure is made.
 */
import { meterOverhead } from './sdk-overhead.js';

/**
 * @param {any} e
 * @returns {boolean}
 */
const notImplemented = (e) => e?.$metadata?.httpStatusCode === 404 && e?.name === 'SyntaxError';

/**
 * @param {new (cfg: object) => any} Client
 * @param {object} cfg
 * @param {string} where shown in a not-emulated row: the endpoint, or "<service> in AWS"
 */
export function awsClients(Client, cfg, where) {
  const notEmulated = (op) => (e) => {
    if (notImplemented(e))
      throw Object.assign(new Error(`${where} does not implement ${op} (HTTP 404, not the service's answer)`), { notEmulated: true });
    throw e;
  };
  return {
    /**
     * @param {string} op
     * @param {() => any} command made when called (the resources exist by then)
     * @returns {() => Promise<import('./queue-driver.js').OpSession>}
     */
    session: (op, command) => async () => {
      const client = new Client(cfg);
      const meter = meterOverhead(client);
      return { call: () => client.send(command()).catch(notEmulated(op)), overhead: meter.take, close: () => client.destroy() };
    },
    /** @template T @param {(c: any) => Promise<T>} fn */
    admin: async (fn) => {
      const client = new Client(cfg);
      try {
        return await fn(client);
      } finally {
        client.destroy();
      }
    },
    /** an admin call's error for an operation the endpoint lacks (setup may go on without it) */
    notImplemented,
  };
}
