/**
 * Client overhead of a Pub/Sub call (a gRPC unary call through a generated client): the whole
 * call less its time in the gRPC channel, from the request handed to the channel (before it is
 * serialized) to the call's status. An interceptor, passed per call, marks both ends; what is
 * left is the client library's own work (gax's settings, retries, promise plumbing). Serializing
 * and parsing the protobuf happen inside the channel's time, so they count as the wire's here:
 * the figure is a lower bound of the client's overhead, and says so where it is printed.
 */
import { performance } from 'node:perf_hooks';
import { grpc } from 'google-gax';
import { overheadTally } from './overhead-tally.js';

/**
 * @typedef {object} GrpcMeter
 * @property {object} callOptions gax call options that add the interceptor (merge into a call's)
 * @property {<T>(call: () => Promise<T>) => Promise<T>} time runs one call, timed whole
 * @property {() => number|null} take the overhead of the calls since the last take, ms, or null
 */

/** @returns {GrpcMeter} */
export function meterGrpc() {
  const tally = overheadTally();
  /** @type {grpc.Interceptor} */
  const interceptor = (options, nextCall) => {
    let sent = 0;
    return new grpc.InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) =>
        next(metadata, {
          onReceiveStatus: (status, done) => {
            if (sent) tally.addWire(performance.now() - sent);
            done(status);
          },
        }),
      sendMessage: (message, next) => {
        sent = performance.now();
        next(message);
      },
    });
  };
  return { callOptions: { otherArgs: { options: { interceptors: [interceptor] } } }, time: tally.whole, take: tally.take };
}
