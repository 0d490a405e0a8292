/**
 * Client overhead of an AWS SDK v3 call, as seed 003 measures it with the SDK for Kotlin's
 * `smithy.client.attempt_overhead_duration`: the time of a call attempt less the time spent
 * waiting on the HTTP response. An attempt is what the retry middleware hands on, once per try:
 * signing, the HTTP exchange and deserializing the output. The HTTP exchange is timed by a
 * wrapper around the client's request handler, from handing it the request to its response
 * (status and headers; a small body arrives with them). What is left of the attempt is the
 * client's own work.
 */
import { overheadTally } from './overhead-tally.js';

const NAME = 'rqbenchAttemptOverhead';

/**
 * @typedef {object} OverheadMeter
 * @property {() => number|null} take the overhead of the calls since the last take, ms (summed
 *   over their attempts), or null when no attempt ran
 */

/**
 * Instruments one client: a middleware around each attempt and a timer around its request
 * handler. The client is its own: the handler instance is wrapped in place.
 * @param {{ middlewareStack: any, config: { requestHandler: any } }} client
 * @returns {OverheadMeter}
 */
export function meterOverhead(client) {
  const tally = overheadTally();
  const handler = client.config.requestHandler;
  const handle = handler.handle.bind(handler);
  handler.handle = (...args) => tally.wire(() => handle(...args));
  const attempt = (next) => (args) => tally.whole(() => next(args));
  // before signing, so that signing counts as the client's work (as it does in the Kotlin SDK)
  client.middlewareStack.addRelativeTo(attempt, { name: NAME, relation: 'before', toMiddleware: 'httpSigningMiddleware', override: true });
  return { take: tally.take };
}
