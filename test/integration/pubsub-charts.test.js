// A Pub/Sub consumer's charts from a real run on the Pub/Sub emulator (when installed, on
// loopback): Pub/Sub has no receive to time, so the per-second chart has two panels, processing and
// E2E; E2E by publisher for two publishers. The SQS consumer's charts are drawn from recorded runs
// in test/unit/queue-charts.test.js.
import fs from 'node:fs';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { drawRunCharts, readRunDir } from '../../src/report/charts/run-charts.js';
import { layOut } from '../../src/report/charts/sequence.js';
import { queueLatencySpec } from '../../src/report/charts/queue-latency.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { consumeQueue, publish } from '../helpers/queue-run.js';
import { describePubsub } from '../helpers/emulators.js';

const T = 60_000;
const FRAME = { title: 't', width: 900, height: 360 };
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(0, 400)}`;

afterAll(() => removeTempDirs());

/** A chart's SVG is well-formed XML of the size asked for; its PNG starts with PNG's signature and is as large. */
function checkFiles(chart, width, height) {
  const doc = new DOMParser({
    onError: (level, msg) => {
      throw new Error(`${chart.svg}: ${level}: ${msg}`);
    },
  }).parseFromString(fs.readFileSync(chart.svg, 'utf8'), 'image/svg+xml');
  expect(doc.documentElement.tagName).toBe('svg');
  expect([Number(doc.documentElement.getAttribute('width')), Number(doc.documentElement.getAttribute('height'))], chart.name).toEqual([
    width,
    height,
  ]);
  const png = fs.readFileSync(chart.png);
  expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect([png.readUInt32BE(16), png.readUInt32BE(20)], chart.png).toEqual([width, height]);
  return Array.from(doc.getElementsByTagName('text'), (t) => t.textContent ?? '');
}

describePubsub('Pub/Sub', () => {
  let ps;
  beforeAll(async () => {
    ps = await startPubsub();
  }, T);
  afterAll(() => ps?.stop());

  it(
    'no receive to time: two panels, processing and E2E; E2E by publisher for two publishers',
    async () => {
      const t = ['--target', 'pubsub', '--endpoint', ps.endpoint, '--topic', 'qcharts', '--subscription', 'qcharts', '--create'];
      const load = ['--rate', '20', '--batch-size', '10', '-d', '1'];
      for (const id of ['gcp-a', 'gcp-b']) {
        const p = await publish([...t, '--publisher-id', id, ...load]);
        expect(p.code, why(p)).toBe(0);
      }
      const c = await consumeQueue([...t, '--threads', '1', '--until-complete', '-d', '20']);
      expect(c.code, why(c)).toBe(0);
      const out = tempDir('rqbench-qcharts-');
      const charts = await drawRunCharts([c.dir], out);
      expect(charts.map((x) => x.name)).toEqual(['throughput', 'latency', 'queue-latency', 'e2e-by-publisher', 'percentiles']);
      const texts = checkFiles(charts[2], 900, 360);
      expect(charts[2].title).toBe('Latency per second: processing, E2E');
      expect(charts[4].title).toBe('Latency by percentile: processing, E2E');
      expect(texts.some((x) => x.startsWith('Reading off the queue'))).toBe(false);
      for (const m of ['Server side processing (', 'E2E ('])
        expect(
          texts.some((x) => x.startsWith(m)),
          m,
        ).toBe(true);
      checkFiles(charts[3], 900, 360);
      const spec = queueLatencySpec(layOut([readRunDir(c.dir)]), FRAME);
      expect(spec?.vconcat).toHaveLength(2);
    },
    T,
  );
});
