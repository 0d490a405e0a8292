/**
 * The seed's realtime-update metrics, kept twice: as HdrHistograms (exact, for the run
 * directory and summary.md) and, with --metrics-port, as Prometheus metrics under the seed's
 * names and units (on the run's live endpoint, harness/live-metrics.js), so its queries work
 * unchanged, e.g.
 *   histogram_quantile(0.5, rate(ReceivedLowLatencyNotificationsE2E_bucket[20m]))
 *   histogram_quantile(0.5, rate(Latency_bucket{event="ReceivedLowLatencyNotifications"}[10m]))
 *   rate(EventStatus{event="RealtimeTotalRowsUpdated"}[1m])
 *
 * E2E is kept from two starts. From the intended send (time_intended, the publisher's schedule)
 * it is corrected for coordinated omission: a publisher that fell behind shows its lateness here,
 * as its own publish latency does; this is the primary figure (the table's E2E, e2e.hlog tag
 * `intended`, ReceivedLowLatencyNotificationsE2EIntended). From the actual send (time_sent) it is
 * what the seed measured, under the seed's name (ReceivedLowLatencyNotificationsE2E, tag `sent`).
 * A message without time_intended (an older publisher) counts from time_sent in both, and is counted.
 *
 * E2E from the intended send is also kept apart per publisher (the message's `publisher`
 * attribute), for the run directory only (e2e_publisher.hlog, one tag per publisher): the first
 * MAX_PUBLISHERS ids seen each have their own histogram, any further one (or an id that is not a
 * valid tag) shares OTHER_PUBLISHERS'; a message without a publisher is in none.
 *
 * The Prometheus buckets are log-linear over HdrHistogram's range, in the layout --metrics-buckets
 * picks (measure/prom-buckets.js), so histogram_quantile() lands within one bucket's width (12.5%
 * coarse, 6.25% fine) of the run's own figure at p50 and p999 alike.
 */
import client from 'prom-client';
import { newHistogram, record } from '../../measure/histogram.js';
import { layoutOf } from '../../measure/prom-buckets.js';

/** HdrHistogram names (µs) → what the seed calls them. */
export const SEED_NAMES = Object.freeze({
  read: 'Reading off the queue',
  processing: 'Server side processing',
  e2e: 'E2E',
  e2eSent: 'E2E (from the actual send)',
  e2eCloud: 'E2E (cloud timestamp)',
});

/** Publishers whose E2E is kept apart, at most: publishers are few, each costs a histogram a second. */
export const MAX_PUBLISHERS = 16;
/** The tag of the publishers past MAX_PUBLISHERS (not a valid --publisher-id, so never a publisher's own). */
export const OTHER_PUBLISHERS = '(other)';
/** What --publisher-id accepts: usable as an .hlog tag as it is. */
const PUBLISHER_TAG = /^[A-Za-z0-9_-]{1,64}$/;

export class QueueMetrics {
  /**
   * @param {import('../../transports/queue-driver.js').QueueConsumerTraits} traits the target's (its driver's `consumer`)
   * @param {import('prom-client').Registry} [registry] the live endpoint's (without one, a registry nobody serves)
   * @param {string} [buckets] the histograms' bucket layout (--metrics-buckets: coarse, fine); settings' when left out
   */
  constructor(traits, registry = new client.Registry(), buckets = undefined) {
    /** @type {Set<string>} the publishers with a histogram of their own */
    this.publishers = new Set();
    this.#fresh();
    this.registry = registry;
    const reg = [this.registry];
    const { cloud, receive } = traits;
    const layout = layoutOf(buckets);
    const us = [...layout.us];
    const ns = [...layout.ns];
    this.prom = {
      e2e: new client.Histogram({
        name: 'ReceivedLowLatencyNotificationsE2E',
        help: 'E2E from the actual send (time_sent, taken just before the publish call; as the seed measured, not corrected for coordinated omission) to updates applied, microseconds',
        buckets: us,
        registers: reg,
      }),
      e2eIntended: new client.Histogram({
        name: 'ReceivedLowLatencyNotificationsE2EIntended',
        help: "E2E from the intended send (time_intended, the publisher's schedule: corrected for coordinated omission; time_sent for messages without it) to updates applied, microseconds",
        buckets: us,
        registers: reg,
      }),
      e2eCloud: new client.Histogram({
        name: `ReceivedLowLatencyNotificationsE2E${cloud}Provided`,
        help: `E2E from the ${traits.timestampHelp} to updates applied, microseconds`,
        buckets: us,
        registers: reg,
      }),
      processing: new client.Histogram({
        name: 'ReceivedLowLatencyNotifications',
        help: 'Server side processing: messages in hand to updates applied, nanoseconds',
        buckets: ns,
        registers: reg,
      }),
      latency: new client.Histogram({
        name: 'Latency',
        help: 'Latency by event, nanoseconds (the seed queries Latency_bucket{event="ReceivedLowLatencyNotifications"})',
        labelNames: ['event'],
        buckets: ns,
        registers: reg,
      }),
      events: new client.Counter({
        name: 'EventStatus',
        help: 'Event counts (RealtimeTotalRowsUpdated: updates applied)',
        labelNames: ['event'],
        registers: reg,
      }),
      rows: new client.Counter({ name: 'RealtimeTotalRowsUpdated', help: 'Updates applied', registers: reg }),
      bytes: new client.Counter({ name: 'RealtimeTotalBytesReceived', help: 'Message body bytes received', registers: reg }),
      // only a target with a receive call to time has a reading-off-the-queue metric
      ...(receive && { read: new client.Histogram({ name: receive.metric, help: receive.help, buckets: us, registers: reg }) }),
    };
    /**
     * malformed: body lines that were not key<TAB>value (not applied), in malformedMessages
     * messages; unidentified: messages without publisher and seq (nothing can say if any is
     * lost); e2eFromSent: messages whose E2E starts at time_sent for want of time_intended
     */
    this.counts = {
      messages: 0,
      receives: 0,
      rows: 0,
      bytes: 0,
      duplicates: 0,
      malformed: 0,
      malformedMessages: 0,
      unidentified: 0,
      e2eFromSent: 0,
    };
    // the labelled series are there from the start, as the others are: rate() misses no first increment
    this.prom.events.inc({ event: 'RealtimeTotalRowsUpdated' }, 0);
    this.prom.latency.zero({ event: 'ReceivedLowLatencyNotifications' });
  }

  #fresh() {
    /** @type {Record<keyof typeof SEED_NAMES, import('hdr-histogram-js').Histogram>} */
    this.hist = {
      read: newHistogram(),
      processing: newHistogram(),
      e2e: newHistogram(),
      e2eSent: newHistogram(),
      e2eCloud: newHistogram(),
    };
    /** @type {Map<string, import('hdr-histogram-js').Histogram>} E2E from the intended send by publisher tag: only the publishers seen this interval */
    this.byPublisher = new Map();
    /** epoch ms of this interval's first and last messages applied: the rates are over that span */
    this.span = { first: /** @type {number|null} */ (null), last: /** @type {number|null} */ (null) };
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

  /**
   * One message's E2E, µs.
   * @param {number|null} intendedUs from time_intended; null: the message has none
   * @param {number} sentUs from time_sent
   * @param {number|null} cloudUs from the service's own timestamp
   * @param {string} [publisher] the message's publisher attribute
   */
  e2e(intendedUs, sentUs, cloudUs, publisher) {
    if (intendedUs === null) this.counts.e2eFromSent++;
    const primary = intendedUs ?? sentUs;
    record(this.hist.e2e, primary);
    if (publisher) {
      const tag = this.#publisherTag(publisher);
      let h = this.byPublisher.get(tag);
      if (!h) this.byPublisher.set(tag, (h = newHistogram()));
      record(h, primary);
    }
    this.prom.e2eIntended.observe(primary);
    record(this.hist.e2eSent, sentUs);
    this.prom.e2e.observe(sentUs);
    if (cloudUs !== null) {
      record(this.hist.e2eCloud, cloudUs);
      this.prom.e2eCloud.observe(cloudUs);
    }
  }

  /** @param {{ messages: number, rows: number, bytes: number, duplicates: number, malformed: number, malformedMessages: number, unidentified: number }} n */
  applied(n) {
    const now = Date.now();
    this.span.first ??= now;
    this.span.last = now;
    this.counts.receives++;
    for (const k of ['messages', 'rows', 'bytes', 'duplicates', 'malformed', 'malformedMessages', 'unidentified']) this.counts[k] += n[k];
    this.prom.rows.inc(n.rows);
    this.prom.events.inc({ event: 'RealtimeTotalRowsUpdated' }, n.rows);
    this.prom.bytes.inc(n.bytes);
  }

  /**
   * A publisher's tag in e2e_publisher.hlog: its id while there is room, OTHER_PUBLISHERS after.
   * @param {string} publisher
   */
  #publisherTag(publisher) {
    if (this.publishers.has(publisher)) return publisher;
    if (this.publishers.size >= MAX_PUBLISHERS || !PUBLISHER_TAG.test(publisher)) return OTHER_PUBLISHERS;
    this.publishers.add(publisher);
    return publisher;
  }

  /** This interval's histograms (E2E by publisher apart) and span, and fresh ones for the next. */
  take() {
    const taken = { hist: this.hist, byPublisher: this.byPublisher, span: this.span };
    this.#fresh();
    return taken;
  }
}
