// A queue consumer's charts from recorded SQS runs (test/fixtures/runs/queue-consume: a consumer
// that read some of two publishers' messages, sharing the queue with another; queue-consume-one-
// publisher: a consumer of one publisher's): the seed's three metrics per second and E2E by
// publisher, drawn only when a run had several publishers. The charts' data are checked against the
// run's .hlog lines decoded here, not by the code under test, for a spot-checked second. Pub/Sub's
// two panels: test/integration/pubsub-charts.test.js (a real run on its emulator).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { decode, newHistogram, record } from '../../src/measure/histogram.js';
import { drawRunCharts, readRunDir } from '../../src/report/charts/run-charts.js';
import { layOut } from '../../src/report/charts/sequence.js';
import { P999_MIN, queueLatencySpec } from '../../src/report/charts/queue-latency.js';
import { renderChart } from '../../src/report/charts/render.js';
import { HlogWriter } from '../../src/record/hlog.js';
import { byPublisherSpec } from '../../src/report/charts/by-publisher.js';
import { distributionSpec } from '../../src/report/charts/distribution.js';
import { MAX_PUBLISHERS, OTHER_PUBLISHERS, QueueMetrics } from '../../src/workloads/queue-updates/queue-metrics.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { checkChartFiles } from '../helpers/chart-files.js';
import { copyFixtures, readJson } from '../helpers/fixture-runs.js';

const FRAME = { title: 't', width: 900, height: 360 };

const fx = copyFixtures();
/** A recorded run directory and its summary. */
const recorded = (dir) => ({ dir, summary: readJson(dir, 'summary.json') });
/** SQS consumer runs: of two publishers' messages (pub-a, pub-b), and of one publisher's */
const TWO = recorded(fx.runs('queue-consume')[0]);
const ONE = recorded(fx.run('queue-consume-one-publisher'));
/** How many messages of a publisher TWO applied, as its summary counts them. */
const appliedOf = (id) => TWO.summary.publishers.find((p) => p.publisher === id).received;

afterAll(() => removeTempDirs());

/** Every interval line of `<op>.hlog` tagged `tag`: second → histogram, decoded here. */
function hlogSeconds(dir, op, tag) {
  const out = new Map();
  for (const line of fs.readFileSync(path.join(dir, `${op}.hlog`), 'utf8').split('\n')) {
    const [t, start, , , base64] = line.split(',');
    if (t !== `Tag=${tag}`) continue;
    const second = Math.round(Number(start));
    const h = out.get(second) ?? newHistogram();
    h.add(decode(base64));
    out.set(second, h);
  }
  return out;
}

const ms = (h, p) => h.getValueAtPercentile(p) / 1000;

/** The busiest second of a histogram series. */
const busiest = (bySecond) => [...bySecond.entries()].sort((a, b) => b[1].totalCount - a[1].totalCount)[0][0];

describe('the consumer records E2E per publisher', () => {
  it('e2e_publisher.hlog: one tag per publisher, adding up to E2E second by second; the summary unchanged', () => {
    const all = hlogSeconds(TWO.dir, 'e2e', 'intended');
    const a = hlogSeconds(TWO.dir, 'e2e_publisher', 'pub-a');
    const b = hlogSeconds(TWO.dir, 'e2e_publisher', 'pub-b');
    expect([...a.values()].reduce((n, h) => n + h.totalCount, 0)).toBe(appliedOf('pub-a'));
    expect([...b.values()].reduce((n, h) => n + h.totalCount, 0)).toBe(appliedOf('pub-b'));
    expect(appliedOf('pub-a') + appliedOf('pub-b')).toBe(TWO.summary.counts.messages);
    for (const [second, h] of all) {
      const sum = newHistogram();
      for (const x of [a.get(second), b.get(second)]) if (x) sum.add(x);
      expect(sum.totalCount, `second ${second}`).toBe(h.totalCount);
      for (const p of [50, 99, 100]) expect(ms(sum, p), `second ${second} p${p}`).toBe(ms(h, p));
    }
    expect(fs.readFileSync(path.join(TWO.dir, 'e2e_publisher.hlog'), 'utf8')).toMatch(
      /^#\[rqbench e2e_publisher, microseconds: E2E from the intended send .* one tag per publisher/,
    );
    expect(Object.keys(TWO.summary.latency).sort()).toEqual(Object.keys(ONE.summary.latency).sort());
    expect(JSON.stringify(TWO.summary)).not.toContain('e2e_publisher');
    expect(fs.readFileSync(path.join(TWO.dir, 'timeline.csv'), 'utf8').split('\n')[0]).not.toMatch(/publisher/);
  });

  it(`keeps ${MAX_PUBLISHERS} publishers apart, the rest and ids that are no tag under ${OTHER_PUBLISHERS}, none for a message without one`, () => {
    const m = new QueueMetrics({ cloud: 'Aws', timestampHelp: 'x', receive: null });
    for (let i = 0; i < MAX_PUBLISHERS + 3; i++) m.e2e(1000 + i, 1000, null, `p${i}`);
    m.e2e(5000, 5000, null, 'has space');
    m.e2e(7000, 7000, null, undefined);
    m.e2e(8000, 8000, null, 'p0');
    const { byPublisher, hist } = m.take();
    expect(byPublisher.size).toBe(MAX_PUBLISHERS + 1);
    expect(byPublisher.get(OTHER_PUBLISHERS)?.totalCount).toBe(4);
    expect(byPublisher.get('p0')?.totalCount).toBe(2);
    expect(hist.e2e.totalCount).toBe(MAX_PUBLISHERS + 6);
    // the next second starts empty, and knows its publishers still
    m.e2e(1000, 1000, null, 'p99');
    expect([...m.take().byPublisher.keys()]).toEqual([OTHER_PUBLISHERS]);
  });
});

describe('queue consumer charts', () => {
  it("two publishers: the per-second chart of the three metrics and E2E by publisher, their data the run's histograms", async () => {
    const out = tempDir('rqbench-qcharts-');
    const charts = await drawRunCharts([TWO.dir], out);
    expect(charts.map((c) => c.name)).toEqual(['throughput', 'latency', 'queue-latency', 'e2e-by-publisher', 'percentiles']);
    const byName = Object.fromEntries(charts.map((c) => [c.name, c]));
    // three panels: one and a half times the height of one chart
    const texts = checkChartFiles(byName['queue-latency'], 900, 540);
    for (const t of ['Reading off the queue', 'Server side processing', 'E2E'])
      expect(
        texts.some((x) => x.startsWith(`${t} (`)),
        t,
      ).toBe(true);
    expect(byName['queue-latency'].title).toBe('Latency per second: reading off the queue, processing, E2E');
    expect(texts).toEqual(expect.arrayContaining(['p50', 'p99', 'time (s)', byName['queue-latency'].title]));
    const pubTexts = checkChartFiles(byName['e2e-by-publisher'], 900, 360);
    expect(pubTexts).toEqual(expect.arrayContaining(['pub-a', 'pub-b', 'p50', 'p99', byName['e2e-by-publisher'].title]));

    // the specs' data, against the .hlog lines of the busiest second
    const seq = layOut([readRunDir(TWO.dir)]);
    const spec = queueLatencySpec(seq, FRAME);
    expect(spec?.vconcat).toHaveLength(3);
    const timeline = fs
      .readFileSync(path.join(TWO.dir, 'timeline.csv'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => l.split(','));
    for (const [i, [op, tag]] of [
      ['read', 'read'],
      ['processing', 'processing'],
      ['e2e', 'intended'],
    ].entries()) {
      const seconds = hlogSeconds(TWO.dir, op, tag);
      const second = busiest(seconds);
      const h = seconds.get(second);
      const values = spec?.vconcat[i].layer[0].data.values.filter((v) => v.second === second);
      expect(
        values.map((v) => [v.percentile, v.value, v.count]),
        `${op} second ${second}`,
      ).toEqual([
        ['p50', ms(h, 50), h.totalCount],
        ['p99', ms(h, 99), h.totalCount],
      ]);
      expect(values[0].x).toBe(second);
      if (op === 'e2e') {
        // and the timeline's E2E columns for that second
        const row = timeline.find((r) => r[0] === String(second));
        const col = (name) => Number(row?.[timeline[0].indexOf(name)]);
        expect([col('e2e_p50_ms'), col('e2e_p99_ms')]).toEqual([ms(h, 50), ms(h, 99)]);
      }
    }
    const pub = byPublisherSpec(seq, FRAME);
    const b = hlogSeconds(TWO.dir, 'e2e_publisher', 'pub-b');
    const second = busiest(b);
    const pv = pub?.layer[0].data.values.filter((v) => v.second === second && v.publisher === 'pub-b');
    expect(pv.map((v) => [v.percentile, v.value, v.count])).toEqual([
      ['p50', ms(b.get(second), 50), b.get(second).totalCount],
      ['p99', ms(b.get(second), 99), b.get(second).totalCount],
    ]);
    expect(new Set(pub?.layer[0].data.values.map((v) => v.publisher))).toEqual(new Set(['pub-a', 'pub-b']));
  });

  it("one publisher: no chart by publisher; two steps laid end to end keep each step's seconds and windows", async () => {
    const out = tempDir('rqbench-qcharts-');
    const one = await drawRunCharts([ONE.dir], out);
    expect(one.map((c) => c.name)).toEqual(['throughput', 'latency', 'queue-latency', 'percentiles']);
    expect(fs.readdirSync(out).filter((f) => f.startsWith('e2e-by-publisher'))).toEqual([]);

    const seq = layOut([readRunDir(ONE.dir), readRunDir(TWO.dir)], ['one', 'two']);
    const offset = seq.steps[1].start;
    expect(offset).toBeGreaterThan(0);
    // the second step's E2E seconds sit after the first step's
    const e2e = queueLatencySpec(seq, FRAME)?.vconcat[2].layer[0].data.values;
    const second = busiest(hlogSeconds(TWO.dir, 'e2e', 'intended'));
    expect(e2e.find((v) => v.step === 'two' && v.second === second && v.percentile === 'p50').x).toBe(offset + second);
    // by publisher: drawn, as the second step had two
    expect(byPublisherSpec(seq, FRAME)).not.toBeNull();
    // the distributions: one line per step and metric, each counting its own summary's values, a colour per step, E2E solid
    const dist = distributionSpec(seq, FRAME);
    const names = dist?.layer[0].encoding.color.scale.domain;
    const count = (s, k) => s.latency[k].count;
    expect(names).toEqual([
      `one (Reading off the queue, n=${count(ONE.summary, 'read')})`,
      `one (Server side processing, n=${count(ONE.summary, 'processing')})`,
      `one (E2E, n=${count(ONE.summary, 'e2e')})`,
      `two (Reading off the queue, n=${count(TWO.summary, 'read')})`,
      `two (Server side processing, n=${count(TWO.summary, 'processing')})`,
      `two (E2E, n=${count(TWO.summary, 'e2e')})`,
    ]);
    const colours = dist?.layer[0].encoding.color.scale.range;
    expect(new Set(colours.slice(0, 3)).size).toBe(1);
    expect(colours[3]).not.toBe(colours[0]);
    expect(dist?.layer[0].encoding.strokeDash.scale.range[2]).toEqual([1, 0]);
  });
});

describe('queue latency pieces', () => {
  it(`p99.9 only for seconds of ${P999_MIN} values or more; the panels fill the size asked for`, async () => {
    const file = path.join(tempDir('rqbench-qcharts-'), 'e2e.hlog');
    const w = new HlogWriter(file, { startTimeMs: Date.now() });
    const counts = [P999_MIN - 1, P999_MIN * 3, 10];
    const hs = counts.map((n, second) => {
      const h = newHistogram();
      for (let i = 1; i <= n; i++) record(h, i * 10);
      w.writeInterval(h, { tag: 'intended', startSec: second, endSec: second + 1 });
      return h;
    });
    w.close();
    const run = /** @type {any} */ ({ kind: 'queue-consume', hlogs: new Map([['e2e', file]]) });
    const seq = { steps: [{ run, label: 'synthetic', start: 0, end: 3 }], events: [], total: 3 };
    const spec = queueLatencySpec(seq, { ...FRAME, width: 700, height: 300 });
    const values = spec?.vconcat[0].layer[0].data.values;
    expect(values.filter((v) => v.percentile === 'p99.9').map((v) => [v.second, v.value])).toEqual([[1, ms(hs[1], 99.9)]]);
    const { svgText } = await renderChart(/** @type {any} */ (spec));
    expect(svgText).toMatch(/^<svg[^>]* width="700" height="300"/);
    expect(svgText).toContain(`p99.9 (seconds of ≥ ${P999_MIN} values)`);
  });
});
