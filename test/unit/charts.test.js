// Charts (src/report/charts/, `rqbench chart`) drawn from recorded run directories
// (test/fixtures/runs/): a producer run with a failover under load on a local 3x1 cluster, and a
// consumer run. Every SVG must parse as XML and name what it shows; every PNG must be a real PNG of
// the requested size with a picture in it (decoded here, not just sniffed). `chart` runs in-process.
import fs from 'node:fs';
import path from 'node:path';
import { inflateSync } from 'node:zlib';
import { DOMParser } from '@xmldom/xmldom';
import { afterAll, describe, expect, it } from 'vitest';
import { drawRunCharts } from '../../src/report/charts/run-charts.js';
import { percentilePoints } from '../../src/report/charts/distribution.js';
import { eventLabels, panelsSpec } from '../../src/report/charts/vega-spec.js';
import { padTo, toSvg } from '../../src/report/charts/render.js';
import { newHistogram, record } from '../../src/measure/histogram.js';
import { removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { copyFixtures, readJson, rq } from '../helpers/fixture-runs.js';

const fx = copyFixtures();
/** a producer run with a failover at second 2, and a consumer run */
const prod = { dir: fx.run('produce-cluster-failover'), manifest: readJson(fx.run('produce-cluster-failover'), 'manifest.json') };
const cons = { dir: fx.run('consume') };

afterAll(() => removeTempDirs());

/** Every <text> of an SVG, after checking that it is well-formed XML. */
function svgTexts(file) {
  const doc = new DOMParser({
    onError: (level, msg) => {
      throw new Error(`${file}: ${level}: ${msg}`);
    },
  }).parseFromString(fs.readFileSync(file, 'utf8'), 'image/svg+xml');
  expect(doc.documentElement.tagName).toBe('svg');
  return { doc, texts: Array.from(doc.getElementsByTagName('text'), (t) => t.textContent ?? '') };
}

/**
 * Decodes an 8-bit RGBA PNG (what resvg writes): checks the signature and chunk layout, undoes
 * the scanline filters and counts the distinct colours.
 */
function decodePng(file) {
  const b = fs.readFileSync(file);
  expect(b.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a');
  expect(b.toString('latin1', 12, 16)).toBe('IHDR');
  const width = b.readUInt32BE(16);
  const height = b.readUInt32BE(20);
  expect([b[24], b[25]], 'bit depth 8, colour type RGBA').toEqual([8, 6]);
  const idat = [];
  for (let at = 8; at < b.length;) {
    const len = b.readUInt32BE(at);
    const type = b.toString('latin1', at + 4, at + 8);
    if (type === 'IDAT') idat.push(b.subarray(at + 8, at + 8 + len));
    at += 12 + len;
    if (type === 'IEND') break;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 4;
  expect(raw.length).toBe(height * (stride + 1));
  const px = Buffer.alloc(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const v = raw[y * (stride + 1) + 1 + x];
      const a = x >= 4 ? px[y * stride + x - 4] : 0;
      const up = y > 0 ? px[(y - 1) * stride + x] : 0;
      const c = x >= 4 && y > 0 ? px[(y - 1) * stride + x - 4] : 0;
      const paeth = () => {
        const p = a + up - c;
        const pa = Math.abs(p - a);
        const pb = Math.abs(p - up);
        const pc = Math.abs(p - c);
        return pa <= pb && pa <= pc ? a : pb <= pc ? up : c;
      };
      const pred = [0, a, up, (a + up) >> 1, filter === 4 ? paeth() : 0][filter];
      px[y * stride + x] = (v + pred) & 0xff;
    }
  }
  const colours = new Set();
  let nonWhite = 0;
  for (let i = 0; i < px.length; i += 4) {
    const rgba = px.readUInt32BE(i);
    colours.add(rgba);
    if (rgba !== 0xffffffff) nonWhite++;
  }
  return { width, height, colours: colours.size, inked: nonWhite / (width * height) };
}

/** What every chart must be: parseable SVG and a real, non-blank PNG, both of the size asked for. */
function checkChart(chart, width, height) {
  const { doc, texts } = svgTexts(chart.svg);
  expect(Number(doc.documentElement.getAttribute('width'))).toBe(width);
  expect(Number(doc.documentElement.getAttribute('height'))).toBe(height);
  expect(texts, chart.name).toContain(chart.title);
  // every legend entry has a visible line (a filled stroke symbol is invisible)
  const symbols = Array.from(doc.getElementsByTagName('g'))
    .filter((g) => (g.getAttribute('class') ?? '').includes('role-legend-symbol'))
    .flatMap((g) => Array.from(g.getElementsByTagName('path')));
  expect(symbols.length, `${chart.name} legend symbols`).toBeGreaterThan(0);
  for (const p of symbols) expect(p.getAttribute('stroke'), `${chart.name} legend symbol`).toMatch(/^#[0-9a-f]{3,6}$/i);
  const png = decodePng(chart.png);
  expect({ width: png.width, height: png.height }).toEqual({ width, height });
  // Lines, text and grid in several colours; a blank image has one.
  expect(png.colours, `${chart.png} colours`).toBeGreaterThan(20);
  expect(png.inked, `${chart.png} share of non-white pixels`).toBeGreaterThan(0.02);
  return texts;
}

describe('charts of recorded runs', () => {
  it('draws two steps end to end: CPU per node, throughput, latency over time, percentile spectrum', async () => {
    const out = tempDir('rqbench-charts-');
    const labels = ['write 2k/s', 'read all'];
    const charts = await drawRunCharts([prod.dir, cons.dir], out, { stepLabels: labels, title: 'charts test' });
    expect(charts.map((c) => c.name)).toEqual(['cpu', 'throughput', 'latency', 'percentiles']);
    const texts = Object.fromEntries(charts.map((c) => [c.name, checkChart(c, 900, 360)]));
    for (const t of Object.values(texts)) expect(t).toContain('charts test');

    // CPU: every node of the cluster by address and role, both steps, the failover
    const nodes = prod.manifest.topology;
    expect(nodes).toHaveLength(6);
    for (const n of nodes) expect(texts.cpu).toContain(`s${n.shard} ${n.role} ${n.addr}`);
    expect(texts.cpu).toEqual(expect.arrayContaining(['master', 'replica', 'Redis CPU (% of one core)', 'time (s)', ...labels]));
    expect(texts.cpu.some((t) => t.startsWith('2:failover started'))).toBe(true);
    // throughput, latency: both kinds of run, steps and the event marked there too
    expect(texts.throughput).toEqual(
      expect.arrayContaining(['acked items/s', 'intended items/s (target)', 'cycles/s', 'target cycles/s', ...labels]),
    );
    expect(texts.latency).toEqual(expect.arrayContaining(['batch p50', 'batch p99', 'cycle p50', 'cycle p99', ...labels]));
    expect(texts.latency.some((t) => t.startsWith('2:failover started'))).toBe(true);
    // percentiles: HdrHistogram's axis labels, one line per run named by its step
    expect(texts.percentiles).toEqual(expect.arrayContaining(['0%', '90%', '99%', 'latency (ms)']));
    expect(texts.percentiles.some((t) => t.startsWith('write 2k/s (batch, n='))).toBe(true);
    expect(texts.percentiles.some((t) => t.startsWith('read all (cycle, n='))).toBe(true);
  }, 20_000);

  it('rqbench chart writes every chart of one run at the size asked and prints the files', async () => {
    const out = path.join(tempDir('rqbench-chart-cli-'), 'charts');
    const r = await rq('chart', prod.dir, '--out', out, '--width', '640', '--height', '300');
    expect(r.code, r.stderr).toBe(0);
    const files = r.stdout.trim().split('\n');
    expect(files.map((f) => path.basename(f))).toEqual(
      ['cpu', 'throughput', 'latency', 'percentiles'].flatMap((n) => [`${n}.svg`, `${n}.png`]),
    );
    for (const f of files) expect(fs.existsSync(f), f).toBe(true);
    const png = decodePng(path.join(out, 'cpu.png'));
    expect([png.width, png.height]).toEqual([640, 300]);
    // one run: its name is the subtitle, no step rules; the action is still marked
    const { texts } = svgTexts(path.join(out, 'cpu.svg'));
    expect(texts).toContain(path.basename(prod.dir).replace(/^\d{8}-\d{6}-/, ''));
    expect(texts.some((t) => t.startsWith('2:failover started'))).toBe(true);
  }, 20_000);

  it('bad input: one line on stderr, exit 2, nothing written', async () => {
    const base = tempDir('rqbench-chart-bad-');
    const empty = fs.mkdtempSync(path.join(base, 'not-a-run-'));
    const out = path.join(base, 'out');
    const cases = [
      [[path.join(base, 'missing'), '--out', out], /no such directory/],
      [[empty, '--out', out], /not-a-run-\w+: no manifest\.json \(not an rqbench run directory\)$/m],
      [[prod.dir, '--out', out, '--colour', 'red'], /unknown flag --colour/],
      [[prod.dir], /out/],
      [[prod.dir, '--out', out, '--width', 'wide'], /--width must be an integer/],
      [[prod.dir, '--out', out, '--label', 'a', '--label', 'b'], /--label given 2 times for 1 run directory/],
      // a path that is no directory is named as --out, not as a raw EEXIST from mkdir
      [[prod.dir, '--out', '/dev/null'], /--out must be a directory rqbench can write \("\/dev\/null" is not a directory\)$/m],
    ];
    const results = await Promise.all(cases.map(([args]) => rq('chart', ...args)));
    results.forEach((r, i) => {
      const what = `chart ${cases[i][0].join(' ')} → ${r.code}: ${r.stderr}`;
      expect(r.code, what).toBe(2);
      expect(r.stderr.trim().split('\n'), what).toHaveLength(1);
      expect(r.stderr, what).toMatch(/^rqbench chart: /);
      expect(r.stderr, what).toMatch(cases[i][1]);
      expect(r.stdout, what).toBe('');
    });
    expect(fs.existsSync(out)).toBe(false);
  }, 20_000);
});

describe('chart pieces', () => {
  it('percentile points follow HdrHistogram: 1/(1-p) per tenth of a decade up to the count, then the max', () => {
    const h = newHistogram();
    for (let ms = 1; ms <= 1000; ms++) record(h, ms * 1000);
    const pts = percentilePoints(h);
    expect(pts[0]).toMatchObject({ x: 1, percentile: 0 });
    const at = (x) => pts.find((p) => Math.abs(p.x - x) < 1e-9);
    expect(at(10).value).toBeCloseTo(900, -1); // 90%
    expect(at(100).value).toBeCloseTo(990, -1); // 99%
    expect(pts).toHaveLength(31); // 10^0 … 10^2.9, then the max
    expect(pts[pts.length - 1]).toMatchObject({ x: 1000 });
    expect(pts[pts.length - 1].value).toBeCloseTo(1000, -1);
    for (let i = 1; i < pts.length; i++) expect(pts[i].value).toBeGreaterThanOrEqual(pts[i - 1].value);
  });

  it('event labels closer than the gap share one label', () => {
    const labels = eventLabels(
      [
        { x: 10, text: 'b' },
        { x: 3, text: 'a1' },
        { x: 4, text: 'a2' },
        { x: 30, text: 'c' },
      ],
      2,
    );
    expect(labels).toEqual([
      { x: 3, text: 'a1; a2' },
      { x: 10, text: 'b' },
      { x: 30, text: 'c' },
    ]);
  });

  it('stacked panels: what the panel heights leave over is taken up by the padding, to the pixel, in either direction', async () => {
    // padding never goes below zero: what the right and bottom cannot give, the left and top do
    expect(padTo(8, { width: 900, height: 540 }, { width: 900, height: 546 })).toEqual({ left: 8, right: 8, top: 8, bottom: 2 });
    expect(padTo(8, { width: 900, height: 540 }, { width: 910, height: 551 })).toEqual({ left: 6, right: 0, top: 5, bottom: 0 });
    expect(padTo(8, { width: 900, height: 540 }, { width: 893, height: 530 })).toEqual({ left: 8, right: 15, top: 8, bottom: 18 });
    // and padding moves nothing inside the drawing: the image comes out exactly the size asked for
    const values = [1, 5, 3, 9].map((value, x) => ({ x, value }));
    const panel = (title) => ({
      title,
      layer: [
        {
          data: { values },
          mark: { type: 'line', point: true },
          encoding: { x: { field: 'x', type: 'quantitative' }, y: { field: 'value', type: 'quantitative' } },
        },
      ],
    });
    const spec = panelsSpec({ title: 'three panels', width: 900, height: 540 }, [panel('a'), panel('b'), panel('c')]);
    const size = (svg) => /^<svg[^>]* width="(\d+)" height="(\d+)"/.exec(svg)?.slice(1).map(Number);
    const [w, h] = /** @type {number[]} */ (size(await toSvg(spec)));
    for (const want of [
      { width: w - 6, height: h - 6 },
      { width: w + 5, height: h + 13 },
      { width: w - 12, height: h - 11 },
    ]) {
      expect(size(await toSvg({ ...spec, padding: padTo(spec.padding, want, { width: w, height: h }) })), JSON.stringify(want)).toEqual([
        want.width,
        want.height,
      ]);
    }
  });
});
