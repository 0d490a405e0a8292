/**
 * Live metrics of one run (--metrics-port): one endpoint per process, in the parent that merges
 * its workers' seconds, so `-t 8` is one target to scrape, not eight. Like k6's outputs it is
 * started before the run, follows the run's seconds (the harness's `second` events: the same
 * merged seconds the run directory records), and is stopped after it: it lingers first, for
 * --metrics-linger seconds, with the final values, so the scrape after the end finds them.
 *
 * Every series carries the run's labels (run_id, run_name, host, and writer or publisher where
 * one applies; docs/live-metrics.md). They are known only once the workload has named the
 * run, so until then the endpoint answers with an empty page rather than with unlabelled series.
 *
 * With --metrics-relay (a runner that spawns the CLIs step after step, with an IPC channel) the
 * process serves nothing: it sends its metrics to its parent each second and once more at the
 * end, and the parent's MetricsHub (metrics-hub.js) serves every step on one endpoint.
 */
import os from 'node:os';
import client from 'prom-client';
import { lingerFor, listenForScrapes } from './metrics-server.js';
import { RELAY_MESSAGE } from './metrics-hub.js';
import { RunMetrics } from '../measure/run-metrics.js';
import { redact } from '../record/redact.js';
import { LoadMetrics } from '../measure/load-metrics.js';
import { settings } from '../settings.js';
import { writeErr } from '../command-io.js';

export class LiveMetrics {
  /**
   * Listens (or, relaying, checks the channel is there) before anything is written.
   * @param {Readonly<Record<string, any>>} a the plan: metricsPort, metricsHost, metricsLinger, metricsBuckets, metricsLabels, metricsRunId, metricsRelay, quiet
   */
  static async open(a) {
    const live = new LiveMetrics(a);
    if (!a.metricsRelay) {
      live.server = await listenForScrapes({
        host: a.metricsHost,
        port: a.metricsPort,
        render: () => live.render(),
        contentType: live.registry.contentType,
      });
      if (!a.quiet) writeErr(`metrics: ${live.server.url}\n`);
    }
    return live;
  }

  /** @param {Readonly<Record<string, any>>} a */
  constructor(a) {
    this.a = a;
    this.registry = new client.Registry();
    /** @type {import('./metrics-server.js').MetricsServer|null} */
    this.server = null;
    this.labelled = false;
    /** @type {NodeJS.Timeout|null} */
    this.relayTimer = null;
  }

  /**
   * The run's labels, on every series from now on; the endpoint serves from here.
   * @param {{ runName: string, extra?: Record<string, string> }} p extra: writer or publisher
   */
  label({ runName, extra = {} }) {
    if (this.labelled) return;
    // through the one redaction, as every line rqbench writes: a label may quote a URL
    this.registry.setDefaultLabels(
      redact({
        run_id: this.a.metricsRunId,
        run_name: runName,
        host: os.hostname(),
        ...extra,
        ...this.a.metricsLabels,
      }),
    );
    client.collectDefaultMetrics({ register: this.registry });
    this.labelled = true;
    if (this.a.metricsRelay) {
      this.relayTimer = setInterval(() => {
        this.#relay(false);
      }, settings.sampleIntervalMs);
      // the relay never keeps a finished run alive
      this.relayTimer.unref();
    }
  }

  /** The exposition text: empty until the run is labelled. */
  async render() {
    return this.labelled ? this.registry.metrics() : '';
  }

  /**
   * Follows a run's seconds (called by the Run itself, see harness.js).
   * @param {import('node:events').EventEmitter & { kind: string }} run
   */
  follow(run) {
    const m =
      run.kind === 'load'
        ? new LoadMetrics(this.registry)
        : new RunMetrics(this.registry, /** @type {import('../measure/run-metrics.js').SecondsKind} */ (run.kind), this.a.metricsBuckets);
    run.on('second', (s) => m.second(s));
    run.once('end', () => m.end());
  }

  /**
   * The run is over and reported: the endpoint stays up --metrics-linger seconds with the final
   * values (a relay sends them to its parent instead), then closes. A Ctrl-C or SIGTERM ends the
   * wait at once: nothing is left to save.
   */
  async linger() {
    if (this.a.metricsRelay) {
      await this.#relay(true);
      return this.close();
    }
    const ms = Math.round((this.a.metricsLinger ?? 0) * 1000);
    if (ms > 0 && this.server) {
      // the Ctrl-C handler first: a Ctrl-C sent on reading the line below must find it
      const waiting = lingerFor(ms);
      if (!this.a.quiet)
        writeErr(
          `metrics: the final values stay on ${this.server.url} for ${this.a.metricsLinger} s (--metrics-linger; Ctrl-C leaves now)\n`,
        );
      await waiting;
    }
    return this.close();
  }

  async close() {
    if (this.relayTimer) clearInterval(this.relayTimer);
    this.relayTimer = null;
    // the channel to the parent would keep this process alive
    if (this.a.metricsRelay && process.connected) process.disconnect();
    await this.server?.close();
    this.server = null;
  }

  /**
   * Sends the metrics to the parent (MetricsHub.attach), resolving once they are written.
   * @param {boolean} final
   * @returns {Promise<void>}
   */
  async #relay(final) {
    if (!this.labelled || !process.connected || !process.send) return;
    const families = await this.registry.getMetricsAsJSON();
    await new Promise((resolve) => {
      try {
        /** @type {(m: unknown, cb: (e: Error|null) => void) => boolean} */ (process.send)({ type: RELAY_MESSAGE, final, families }, () =>
          resolve(undefined),
        );
      } catch {
        resolve(undefined); // the parent went away: nobody is left to serve them
      }
    });
  }
}
