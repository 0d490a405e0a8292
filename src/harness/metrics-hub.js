/**
 * One metrics endpoint for a runner that spawns the CLIs as children, step after step, several
 * at a time (an experiment's producer and consumer, a capacity search's steps): the children run
 * with --metrics-relay and send their metrics over the IPC channel each second and once at their
 * end; the hub serves its own process metrics and every child's latest, side by side (each child's
 * series carry its own run_name and, from --metrics-label, its step, so none collide).
 *
 * The hub has no histograms of its own: every bucket it serves is a child's, as the
 * child laid it out, and series of one name and labels from two children are added up. So every
 * child of a runner must lay its buckets out alike: the hub holds the runner's --metrics-buckets
 * and relayArgs (experiments/children.js) passes it to each child with --metrics-relay.
 *
 * A child that has ended keeps its final values on the endpoint for `keepS` (two scrape
 * intervals by default): the scrape after a step's end still finds them, and a long run of steps
 * does not pile up series. The runner lingers once, at its own end, as a CLI does.
 */
import os from 'node:os';
import client from 'prom-client';
import { lingerFor, listenForScrapes } from './metrics-server.js';
import { settings } from '../settings.js';
import { writeErr } from '../command-io.js';
import { redact } from '../record/redact.js';

/** The message type a relaying child sends ({ type, final, families }). */
export const RELAY_MESSAGE = 'rqbench-metrics';

/** @typedef {{ name: string, help: string, type: string, aggregator?: string, values: Array<{ value: number, labels: Record<string, string|number>, metricName?: string }> }} Family */

export class MetricsHub {
  /**
   * @param {object} p
   * @param {number} p.port
   * @param {string} [p.host]
   * @param {number} [p.lingerS] after the last step, as --metrics-linger
   * @param {number} [p.keepS] how long an ended child's values stay (whatever the runner's own linger: a step's last scrape is never lost)
   * @param {Record<string, string>} p.labels the runner's own series' labels (run_id, run_name; host is added)
   * @param {string} [p.buckets] the runner's --metrics-buckets, which its children are given
   * @param {boolean} [p.quiet]
   */
  static async open({
    port,
    host = settings.metricsHost,
    lingerS = settings.metricsLingerSeconds,
    keepS = settings.metricsLingerSeconds,
    labels,
    buckets = settings.metricsBuckets,
    quiet = false,
  }) {
    const hub = new MetricsHub({ lingerS, keepS, buckets, quiet });
    // through the one redaction, as the steps' own labels (live-endpoint.js)
    hub.registry.setDefaultLabels(redact({ host: os.hostname(), ...labels }));
    client.collectDefaultMetrics({ register: hub.registry });
    hub.server = await listenForScrapes({ host, port, render: () => hub.render(), contentType: hub.registry.contentType });
    if (!quiet) writeErr(`metrics: ${hub.server.url}\n`);
    return hub;
  }

  /** @param {{ lingerS: number, keepS: number, buckets?: string, quiet: boolean }} p */
  constructor({ lingerS, keepS, buckets = settings.metricsBuckets, quiet }) {
    this.lingerS = lingerS;
    /** the bucket layout every child is told to use (--metrics-buckets) */
    this.buckets = buckets;
    this.keepMs = keepS * 1000;
    this.quiet = quiet;
    this.registry = new client.Registry();
    /** @type {import('./metrics-server.js').MetricsServer|null} */
    this.server = null;
    /** @type {Map<number, { families: Family[], endedAt: number|null }>} by child pid */
    this.children = new Map();
  }

  /**
   * Takes a child's relayed metrics (spawn it with an IPC channel: stdio [..., 'ipc']).
   * @param {import('node:child_process').ChildProcess} child
   */
  attach(child) {
    const pid = /** @type {number} */ (child.pid);
    child.on('message', (/** @type {any} */ m) => {
      if (m?.type !== RELAY_MESSAGE) return;
      this.children.set(pid, { families: m.families, endedAt: m.final ? Date.now() : null });
    });
    child.once('exit', () => {
      const c = this.children.get(pid);
      if (c && c.endedAt === null) c.endedAt = Date.now();
    });
  }

  async render() {
    const now = Date.now();
    for (const [pid, c] of this.children) if (c.endedAt !== null && now - c.endedAt > this.keepMs) this.children.delete(pid);
    const own = /** @type {Family[]} */ (/** @type {unknown} */ (await this.registry.getMetricsAsJSON()));
    return formatFamilies(mergeFamilies([own, ...[...this.children.values()].map((c) => c.families)]));
  }

  /** After the last step: the final values stay up lingerS (Ctrl-C leaves at once), then the endpoint closes. */
  async linger() {
    const ms = this.lingerS * 1000;
    if (ms > 0 && this.server) {
      // the Ctrl-C handler first: a Ctrl-C sent on reading the line below must find it
      const waiting = lingerFor(ms);
      if (!this.quiet) writeErr(`metrics: the final values stay on ${this.server.url} for ${this.lingerS} s\n`);
      await waiting;
    }
    await this.close();
  }

  async close() {
    await this.server?.close();
    this.server = null;
  }
}

/**
 * Families of several registries as one list: the same name is one family; the same series
 * (name and labels) in two sources is added up (a gauge keeps the later one).
 * @param {Family[][]} sources
 * @returns {Family[]}
 */
export function mergeFamilies(sources) {
  /** @type {Map<string, Family & { byKey: Map<string, Family['values'][number]> }>} */
  const byName = new Map();
  for (const families of sources) {
    for (const f of families) {
      let m = byName.get(f.name);
      if (!m) byName.set(f.name, (m = { ...f, values: [], byKey: new Map() }));
      for (const v of f.values) {
        const key = `${v.metricName ?? f.name}${JSON.stringify(Object.entries(v.labels).sort(([x], [y]) => (x < y ? -1 : 1)))}`;
        const have = m.byKey.get(key);
        if (have && f.type !== 'gauge') have.value += v.value;
        else m.byKey.set(key, { ...v });
      }
    }
  }
  return [...byName.values()].map(({ byKey, ...f }) => ({ ...f, values: [...byKey.values()] }));
}

/**
 * The Prometheus text format of families, by prom-client's own formatter.
 * @param {Family[]} families
 */
export function formatFamilies(families) {
  const reg = new client.Registry();
  for (const f of families) reg.registerMetric(/** @type {any} */ ({ name: f.name, get: () => f }));
  return reg.metrics();
}
