/**
 * The seed's realtime-update metrics, kept twice: as HdrHistograms (exact, for the run
 * directory and summary.md) and, with --metrics-port, as Prometheus metrics under the seed's
 * names and units, so its queries work unchanged, e.g.
 *   histogram_quantile(0.5, rate(ReceivedLowLatencyNotificationsE2E_bucket[20m]))
 *   histogram_quantile(0.5, rate(Latency_bucket{event="ReceivedLowLatencyNotifications"}[10m]))
 *   rate(EventStatus{event="RealtimeTotalRowsUpdated"}[1m])
 */
import http from 'node:http';
import client from 'prom-client';
import { newHistogram, record } from '../measure/histogram.js';

/** HdrHistogram names (µs) → what the seed calls them. */
export const SEED_NAMES = Object.freeze({
  read: 'Reading off the queue',
  processing: 'Server side processing',
  e2e: 'E2E',
  e2eCloud: 'E2E (cloud timestamp)',
});

/** 1-2-5 steps from 10 µs to 100 s: the seed's values run from 300 µs to 5 s. */
const US_BUCKETS = [];
for (let d = 10; d <= 1e8; d *= 10) US_BUCKETS.push(d, 2 * d, 5 * d);

export class QueueMetrics {
  /**
   * @param {'sqs'|'pubsub'} target
   */
  constructor(target) {
    this.target = target;
    this.#fresh();
    this.registry = new client.Registry();
    const reg = [this.registry];
    const cloud = target === 'pubsub' ? 'Gcp' : 'Aws';
    this.prom = {
      e2e: new client.Histogram({ name: 'ReceivedLowLatencyNotificationsE2E', help: 'E2E: time_sent (before the publish) to updates applied, microseconds', buckets: US_BUCKETS, registers: reg }),
      e2eCloud: new client.Histogram({ name: `ReceivedLowLatencyNotificationsE2E${cloud}Provided`, help: `E2E from the ${target === 'pubsub' ? 'Pub/Sub publishTime' : 'SNS Timestamp (SQS SentTimestamp without SNS)'} to updates applied, microseconds`, buckets: US_BUCKETS, registers: reg }),
      processing: new client.Histogram({ name: 'ReceivedLowLatencyNotifications', help: 'Server side processing: messages in hand to updates applied, nanoseconds', buckets: US_BUCKETS.map((b) => b * 1000), registers: reg }),
      latency: new client.Histogram({ name: 'Latency', help: 'Latency by event, nanoseconds (the seed queries Latency_bucket{event="ReceivedLowLatencyNotifications"})', labelNames: ['event'], buckets: US_BUCKETS.map((b) => b * 1000), registers: reg }),
      events: new client.Counter({ name: 'EventStatus', help: 'Event counts (RealtimeTotalRowsUpdated: updates applied)', labelNames: ['event'], registers: reg }),
      rows: new client.Counter({ name: 'RealtimeTotalRowsUpdated', help: 'Updates applied', registers: reg }),
      bytes: new client.Counter({ name: 'RealtimeTotalBytesReceived', help: 'Message body bytes received', registers: reg }),
      ...(target === 'sqs' && { read: new client.Histogram({ name: 'AwsSqsReceiveMessageLatency', help: 'Reading off SQS: one ReceiveMessage that returned messages, microseconds', buckets: US_BUCKETS, registers: reg }) }),
    };
    this.counts = { messages: 0, receives: 0, rows: 0, bytes: 0, duplicates: 0 };
    /** @type {number|null} epoch ms of the first and last messages applied: the rates are over that span */
    this.firstAt = null;
    this.lastAt = null;
  }

  #fresh() {
    /** @type {Record<keyof typeof SEED_NAMES, import('hdr-histogram-js').Histogram>} */
    this.hist = { read: newHistogram(), processing: newHistogram(), e2e: newHistogram(), e2eCloud: newHistogram() };
  }

  /** A receive that returned messages took `us`. */
  read(us) {
    record(this.hist.read, us);
    this.prom.read?.observe(us);
  }

  /** Messages in hand to updates applied. */
  processing(us) {
    record(this.hist.processing, us);
    this.prom.processing.observe(us * 1000);
    this.prom.latency.observe({ event: 'ReceivedLowLatencyNotifications' }, us * 1000);
  }

  /** @param {number} us @param {number|null} cloudUs */
  e2e(us, cloudUs) {
    record(this.hist.e2e, us);
    this.prom.e2e.observe(us);
    if (cloudUs !== null) {
      record(this.hist.e2eCloud, cloudUs);
      this.prom.e2eCloud.observe(cloudUs);
    }
  }

  /** @param {{ messages: number, rows: number, bytes: number, duplicates: number }} n */
  applied(n) {
    const now = Date.now();
    this.firstAt ??= now;
    this.lastAt = now;
    this.counts.receives++;
    this.counts.messages += n.messages;
    this.counts.rows += n.rows;
    this.counts.bytes += n.bytes;
    this.counts.duplicates += n.duplicates;
    this.prom.rows.inc(n.rows);
    this.prom.events.inc({ event: 'RealtimeTotalRowsUpdated' }, n.rows);
    this.prom.bytes.inc(n.bytes);
  }

  /** This interval's histograms, and fresh ones for the next. */
  take() {
    const h = this.hist;
    this.#fresh();
    return h;
  }

  /**
   * Serves GET /metrics on 127.0.0.1:port (0: a free port).
   * @param {number} port
   * @returns {Promise<{ port: number, close: () => Promise<void> }>}
   */
  async serve(port) {
    const server = http.createServer(async (req, res) => {
      if (req.url !== '/metrics') {
        res.writeHead(404).end('see /metrics\n');
        return;
      }
      res.writeHead(200, { 'Content-Type': this.registry.contentType });
      res.end(await this.registry.metrics());
    });
    await new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen({ host: '127.0.0.1', port }, resolve);
    });
    return {
      port: /** @type {import('node:net').AddressInfo} */ (server.address()).port,
      close: () => new Promise((r) => { server.closeAllConnections(); server.close(() => r(undefined)); }),
    };
  }
}
