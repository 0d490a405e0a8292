/**
 * A latency model for a queue endpoint: an HTTP proxy on 127.0.0.1 in front of an emulator that
 * holds each answer of the API actions it models for a delay drawn from a log-normal distribution
 * fitted to two percentiles (the seed's own: SQS ReceiveMessage p50 77 ms, p999 505 ms), and
 * passes every other action through at once. The emulator answers in about a millisecond where
 * the real service takes tens; through the model a consumer waits as the seed's did.
 *
 * A proxy rather than `tc netem`: netem delays packets, not API actions (a ReceiveMessage and a
 * DeleteMessageBatch share one connection), needs root and a network namespace, and cannot be
 * fitted per action. The draw is the answer's whole time: the emulator's own time is taken off it
 * (a long poll that waited longer than the draw is answered at once). The answer is held after the
 * emulator gave it, so it holds what the emulator had at that moment, as with a slow service.
 *
 * An SNS Publish is the exception: the emulator delivers it to the subscribed queues as it
 * receives it, so a Publish is held *before* it reaches the emulator, and its draw is the SNS→SQS
 * delivery's (the publisher's call waits for it too; E2E, from right before the send, counts it
 * either way).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

/** Actions held before they reach the emulator: it delivers them to the queues on receipt. */
export const DELIVERING = new Set(['Publish', 'PublishBatch']);

/** z of the 99.9th percentile of the standard normal. */
const Z999 = 3.090232306167813;

/**
 * @typedef {Record<string, { p50Ms: number, p999Ms: number }>} LatencyModel by API action ('ReceiveMessage')
 * @typedef {{ count: number, p50: number, p999: number, max: number }} Held the delays answers were held for, ms
 * @typedef {{ endpoint: string, stop: () => Promise<void>, report: () => Record<string, { calls: number, delayMs: Held|null }> }} LatencyProxy
 */

/**
 * A draw from the log-normal through (p50, p999): ln X ~ N(ln p50, σ), σ = ln(p999 / p50) / z999.
 * @param {{ p50Ms: number, p999Ms: number }} fit
 * @param {() => number} [random] uniform on [0, 1)
 * @returns {number} ms
 */
export function drawDelay({ p50Ms, p999Ms }, random = Math.random) {
  const sigma = Math.log(p999Ms / p50Ms) / Z999;
  // Box–Muller; 1 - u keeps the log's argument above 0
  const z = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return Math.exp(Math.log(p50Ms) + sigma * z);
}

/**
 * The API action of a request: the JSON protocol's X-Amz-Target (SQS), else the query protocol's
 * Action (SNS), in the URL or the form body.
 * @param {http.IncomingMessage} req
 * @param {Buffer} body
 */
export function actionOf(req, body) {
  const target = req.headers['x-amz-target'];
  if (typeof target === 'string') return target.slice(target.lastIndexOf('.') + 1);
  const inUrl = new URL(req.url ?? '/', 'http://x').searchParams.get('Action');
  if (inUrl) return inUrl;
  return /(?:^|&)Action=([A-Za-z]+)/.exec(body.toString('latin1'))?.[1] ?? 'unknown';
}

/**
 * @param {number[]} held ms
 * @returns {Held}
 */
function heldStats(held) {
  const xs = [...held].sort((a, b) => a - b);
  // the nearest rank, as a histogram's percentile: the value below which that share lies
  const at = (q) => (xs.length ? xs[Math.min(xs.length - 1, Math.ceil(q * xs.length) - 1)] : 0);
  const r = (x) => Math.round(x * 1000) / 1000;
  return { count: xs.length, p50: r(at(0.5)), p999: r(at(0.999)), max: r(xs.at(-1) ?? 0) };
}

/**
 * Starts the proxy in front of `upstream` (an http:// endpoint).
 * @param {string} upstream
 * @param {LatencyModel} model
 * @returns {Promise<LatencyProxy>}
 */
export async function startLatencyProxy(upstream, model) {
  const up = new URL(upstream);
  const agent = new http.Agent({ keepAlive: true });
  /** @type {Map<string, { calls: number, held: number[] }>} */
  const seen = new Map();
  const timers = new Set();
  const server = http.createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = actionOf(req, body);
      const fit = model[action];
      const s = seen.get(action) ?? { calls: 0, held: [] };
      seen.set(action, s);
      s.calls++;
      /** @param {() => void} f @param {number} ms */
      const later = (f, ms) => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          f();
        }, ms);
        timers.add(timer);
      };
      const forward = (/** @type {(ur: http.IncomingMessage, back: Buffer, tookMs: number) => void} */ answered) => {
        const t0 = performance.now();
        const fwd = http.request(
          { host: up.hostname, port: up.port, method: req.method, path: req.url, headers: req.headers, agent },
          (ur) => {
            const back = [];
            ur.on('data', (c) => back.push(c));
            ur.on('end', () => answered(ur, Buffer.concat(back), performance.now() - t0));
          },
        );
        fwd.on('error', (e) => {
          res.writeHead(502, { 'content-type': 'text/plain' });
          res.end(`latency model: the emulator at ${upstream} did not answer: ${e.message}`);
        });
        fwd.end(body);
      };
      const answer = (/** @type {http.IncomingMessage} */ ur, /** @type {Buffer} */ back) => {
        res.writeHead(ur.statusCode ?? 502, ur.headers);
        res.end(back);
      };
      if (fit && DELIVERING.has(action)) {
        const delay = drawDelay(fit);
        s.held.push(delay);
        later(() => forward(answer), delay);
        return;
      }
      forward((ur, back, tookMs) => {
        const delay = fit ? Math.max(0, drawDelay(fit) - tookMs) : 0;
        if (fit) s.held.push(delay);
        later(() => answer(ur, back), delay);
      });
    });
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, () => resolve(undefined));
  });
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  let stopped;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    // per action: its calls, and for a modelled one the delays its answers were held for
    report: () =>
      Object.fromEntries([...seen].map(([action, s]) => [action, { calls: s.calls, delayMs: model[action] ? heldStats(s.held) : null }])),
    stop: () =>
      (stopped ??= new Promise((resolve) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => resolve(undefined));
        agent.destroy();
      })),
  };
}
