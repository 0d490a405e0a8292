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

/**
 * @typedef {object} GrpcMeter
 * @property {object} callOptions gax call options that add the interceptor (merge into a call's)
 * @property {<T>(call: () => Promise<T>) => Promise<T>} time runs one call, timed whole
 * @property {() => number|null} take the overhead of the calls since the last take, ms, or null
 */

/** @returns {GrpcMeter} */
export function meterGrpc() {
  let calls = 0;
  let callMs = 0;
  let wireMs = 0;
  /** @type {grpc.Interceptor} */
  const interceptor = (options, nextCall) => {
    let sent = 0;
    return new grpc.InterceptingCall(nextCall(options), {
      start: (metadata, listener, next) => next(metadata, {
        onReceiveStatus: (status, done) => {
          if (sent) wireMs += performance.now() - sent;
          done(status);
        },
      }),
      sendMessage: (message, next) => {
        sent = performance.now();
        next(message);
      },
    });
  };
  return {
    callOptions: { otherArgs: { options: { interceptors: [interceptor] } } },
    time: async (call) => {
      const t = performance.now();
      try {
        return await call();
      } finally {
        callMs += performance.now() - t;
        calls++;
      }
    },
    take: () => {
      const out = calls ? Math.max(0, callMs - wireMs) : null;
      calls = 0;
      callMs = 0;
      wireMs = 0;
      return out;
    },
  };
}
