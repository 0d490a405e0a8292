// A Pub/Sub consumer's charts from a real run on the Pub/Sub emulator (when installed, on
// loopback): Pub/Sub has no receive to time, so the per-second chart has two panels, processing and
// E2E; E2E by publisher for two publishers. The SQS consumer's charts are drawn from recorded runs
// in test/unit/queue-charts.test.js.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startPubsub } from '../../src/local/pubsub-emulator.js';
import { drawRunCharts, readRunDir } from '../../src/report/charts/run-charts.js';
import { layOut } from '../../src/report/charts/sequence.js';
import { queueLatencySpec } from '../../src/report/charts/queue-latency.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { checkChartFiles } from '../helpers/chart-files.js';
import { consumeQueue, publish } from '../helpers/queue-run.js';
import { describePubsub } from '../helpers/emulators.js';

const T = 60_000;
const FRAME = { title: 't', width: 900, height: 360 };
const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(0, 400)}`;

afterAll(() => removeTempDirs());

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
      const texts = checkChartFiles(charts[2], 900, 360);
      expect(charts[2].title).toBe('Latency per second: processing, E2E');
      expect(charts[4].title).toBe('Latency by percentile: processing, E2E');
      expect(texts.some((x) => x.startsWith('Reading off the queue'))).toBe(false);
      for (const m of ['Server side processing (', 'E2E ('])
        expect(
          texts.some((x) => x.startsWith(m)),
          m,
        ).toBe(true);
      checkChartFiles(charts[3], 900, 360);
      const spec = queueLatencySpec(layOut([readRunDir(c.dir)]), FRAME);
      expect(spec?.vconcat).toHaveLength(2);
    },
    T,
  );
});
