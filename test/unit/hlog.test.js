import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import hdr from 'hdr-histogram-js';
import { newHistogram, record, stats, mergeAll, encode } from '../../src/measure/histogram.js';
import { HlogWriter, readHlog, mergeHlogFiles } from '../../src/record/hlog.js';
import { UsageError } from '../../src/usage-error.js';

const START_MS = 1_700_000_000_123;
let dir;

beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-hlog-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** Histogram of n values spread over [base, base * 100) µs, deterministic. */
function sample(n, base) {
  const h = newHistogram();
  for (let i = 0; i < n; i++) record(h, base * (1 + (99 * i) / n));
  return h;
}

/** Writes intervals [{ tag, startSec, endSec, histogram }] to a new file and returns its path. */
function writeLog(name, intervals, startTimeMs = START_MS) {
  const file = path.join(dir, name);
  const w = new HlogWriter(file, { startTimeMs, comment: 'rqbench test' });
  for (const { tag, startSec, endSec, histogram } of intervals) w.writeInterval(histogram, { tag, startSec, endSec });
  w.close();
  return file;
}

/** Two tags interleaved, 5 one-second intervals each. */
function interleaved() {
  const out = [];
  for (let s = 0; s < 5; s++) {
    out.push({ tag: 'corrected', startSec: s, endSec: s + 1, histogram: sample(1000 + s, 100 + s) });
    out.push({ tag: 'uncorrected', startSec: s, endSec: s + 1, histogram: sample(500 + s, 50) });
  }
  return out;
}

describe('HlogWriter', () => {
  it('writes the standard header and interval lines', () => {
    const file = writeLog('a.hlog', interleaved());
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    expect(lines.at(-1)).toBe(''); // ends with a newline
    expect(lines).toContain('#[rqbench test]');
    expect(lines).toContain('#[Values in microseconds]');
    expect(lines).toContain('#[Histogram log format version 1.3]');
    expect(lines).toContain('#[StartTime: 1700000000.123 (seconds since epoch), 2023-11-14T22:13:20.123Z]');
    expect(lines).toContain('#[BaseTime: 1700000000.123 (seconds since epoch)]');
    expect(lines).toContain('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"');
    expect(lines.filter((l) => l === '')).toHaveLength(1); // no blank lines inside
    const data = lines.filter((l) => l.startsWith('Tag='));
    expect(data).toHaveLength(10);
    for (const line of data) {
      expect(line).toMatch(/^Tag=(corrected|uncorrected),\d+\.\d{3},\d+\.\d{3},\d+\.\d{3},[A-Za-z0-9+/]+=*$/);
      expect(line.split(',')).toHaveLength(5); // tag + 4 fields
    }
    // max column: µs / 1000 = ms; interval 0 of 'corrected' spans 100 µs … ~10 ms
    const [, start, length, max] = data[0].split(',');
    expect([start, length]).toEqual(['0.000', '1.000']);
    expect(Number(max)).toBeCloseTo(stats(interleaved()[0].histogram).max, 3);
  });

  it('lines are on disk as soon as they are written (no buffering until close)', () => {
    const file = path.join(dir, 'live.hlog');
    const w = new HlogWriter(file, { startTimeMs: START_MS });
    w.writeInterval(sample(10, 5), { tag: 'a', startSec: 0, endSec: 1 });
    expect(readHlog(file).intervals).toHaveLength(1);
    w.close();
    w.close(); // idempotent
    expect(() => w.writeInterval(sample(1, 1), { tag: 'a', startSec: 1, endSec: 2 })).toThrow(/closed/);
  });

  it('refuses to overwrite an existing file', () => {
    const file = writeLog('once.hlog', []);
    expect(() => new HlogWriter(file, { startTimeMs: START_MS })).toThrow(/EEXIST/);
  });

  it('rejects tags that standard readers cannot parse, and bad intervals', () => {
    const w = new HlogWriter(path.join(dir, 'bad.hlog'), { startTimeMs: START_MS });
    const h = sample(1, 1);
    expect(() => w.writeInterval(h, { tag: 'a,b', startSec: 0, endSec: 1 })).toThrow(RangeError);
    expect(() => w.writeInterval(h, { tag: 'a b', startSec: 0, endSec: 1 })).toThrow(RangeError);
    expect(() => w.writeInterval(h, { tag: 'a', startSec: 2, endSec: 1 })).toThrow(RangeError);
    w.close();
  });
});

describe('readHlog', () => {
  it('reads back two interleaved tags with the same counts per tag and interval', () => {
    const written = interleaved();
    const { startTimeMs, intervals } = readHlog(writeLog('a.hlog', written));
    expect(startTimeMs).toBe(START_MS);
    expect(intervals).toHaveLength(written.length);
    intervals.forEach((got, i) => {
      const want = written[i];
      expect(got.tag).toBe(want.tag);
      expect(got.startSec).toBe(want.startSec);
      expect(got.endSec).toBe(want.endSec);
      expect(got.histogram.totalCount).toBe(want.histogram.totalCount);
      expect(stats(got.histogram)).toEqual(stats(want.histogram));
    });
  });

  it('keeps fractional interval times and untagged lines', () => {
    const h = sample(7, 3);
    const { intervals } = readHlog(writeLog('frac.hlog', [{ startSec: 1.25, endSec: 2.5, histogram: h }]));
    expect(intervals).toEqual([{ tag: null, startSec: 1.25, endSec: 2.5, histogram: expect.anything() }]);
    expect(intervals[0].histogram.totalCount).toBe(7);
  });

  it('ignores a truncated last line, wherever it was cut', () => {
    const file = writeLog('t.hlog', interleaved());
    const full = fs.readFileSync(file, 'utf8');
    const lastStart = full.lastIndexOf('Tag=');
    const lastLine = full.slice(lastStart, -1);
    const lastLineNo = full.slice(0, lastStart).split('\n').length;
    for (const cut of [3, 8, 16, lastLine.length - 40, lastLine.length - 3, lastLine.length - 1]) {
      fs.writeFileSync(file, full.slice(0, lastStart + cut));
      const { intervals, cutLine, lines } = readHlog(file);
      expect(intervals).toHaveLength(9);
      expect(intervals.at(-1).tag).toBe('corrected');
      expect({ cutLine, lines }).toEqual({ cutLine: lastLineNo, lines: lastLineNo });
    }
    // Only the newline missing: the line is complete and counts.
    fs.writeFileSync(file, full.slice(0, -1));
    expect(readHlog(file)).toMatchObject({ cutLine: null, lines: lastLineNo });
    expect(readHlog(file).intervals).toHaveLength(10);
  });

  it('throws on a damaged line that is not the last one, naming the file and the line', () => {
    const file = writeLog('d.hlog', interleaved());
    const lines = fs.readFileSync(file, 'utf8').split('\n');
    const i = lines.findIndex((l) => l.startsWith('Tag='));
    lines[i] = lines[i].slice(0, 30);
    fs.writeFileSync(file, lines.join('\n'));
    expect(() => readHlog(file)).toThrow(UsageError);
    expect(() => readHlog(file)).toThrow(
      `${file}:${i + 1}: not an interval line: 3 fields after the tag, where 4 are expected (start, length, max, histogram)`,
    );
  });

  it('a bad last line is a cut only without a newline after it, and only of what interval lines hold', () => {
    const file = writeLog('e.hlog', interleaved());
    const full = fs.readFileSync(file, 'utf8');
    const n = full.split('\n').length; // the line after the last newline
    // a whole line was written (its newline too): it is damage, not a write cut short
    fs.writeFileSync(file, `${full}Tag=corrected,5.000,1.0\n`);
    expect(() => readHlog(file)).toThrow(`${file}:${n}: not an interval line: 2 fields after the tag, where 4 are expected`);
    // bytes no interval line holds: damage too, even as the last line
    fs.writeFileSync(file, `${full}\u0000\u001b[2J\u0089PNG`);
    expect(() => readHlog(file)).toThrow(`${file}:${n}: not an interval line`);
    fs.writeFileSync(file, `${full}Tag=corrected,5.000,1.0`);
    expect(readHlog(file)).toMatchObject({ cutLine: n, lines: n });
  });

  it('says what is wrong with a line: fields, numbers, histogram', () => {
    const h = encode(sample(3, 10));
    for (const [line, why] of [
      ['1.000,1.000,1.000', '3 fields, where 4 are expected (start, length, max, histogram)'],
      [`Tag=a,x,1.000,1.000,${h}`, 'the start is not a number'],
      [`Tag=a,1.000,,1.000,${h}`, 'the length is not a number >= 0'],
      [`Tag=a,1.000,-1,1.000,${h}`, 'the length is not a number >= 0'],
      [`Tag=a,1.000,1.000,max,${h}`, 'the max is not a number'],
      ['Tag=a,1.000,1.000,1.000,HISTFAAAAxyz', 'the histogram does not decode'],
    ]) {
      const file = path.join(dir, 'l.hlog');
      fs.writeFileSync(file, `#[StartTime: 1700000000.123 (seconds since epoch), x]\n${line}\n`);
      expect(() => readHlog(file), line).toThrow(`${file}:2: not an interval line: ${why}`);
    }
  });

  it('writes files that hdr-histogram-js HistogramLogReader reads the same way', () => {
    const written = interleaved();
    const reader = new hdr.HistogramLogReader(fs.readFileSync(writeLog('a.hlog', written), 'utf8'), 64);
    expect(hdr.listTags(fs.readFileSync(path.join(dir, 'a.hlog'), 'utf8'))).toEqual(['corrected', 'uncorrected']);
    for (const want of written) {
      const got = reader.nextIntervalHistogram();
      expect(got.tag).toBe(want.tag);
      expect(got.totalCount).toBe(want.histogram.totalCount);
      expect(got.startTimeStampMsec).toBeCloseTo(START_MS + want.startSec * 1000, 3);
      expect(got.endTimeStampMsec).toBeCloseTo(START_MS + want.endSec * 1000, 3);
    }
    expect(reader.nextIntervalHistogram()).toBeNull();
  });

  it('reads logs with absolute timestamps and no BaseTime (other tools)', () => {
    const file = path.join(dir, 'abs.hlog');
    const h = sample(42, 10);
    const startSec = START_MS / 1000;
    fs.writeFileSync(
      file,
      `#[StartTime: ${startSec.toFixed(3)} (seconds since epoch), x]\n` + `${(startSec + 3).toFixed(3)},1.000,1.000,${encode(h)}\n`,
    );
    const { startTimeMs, intervals } = readHlog(file);
    expect(startTimeMs).toBe(START_MS);
    expect(intervals[0]).toMatchObject({ tag: null, startSec: 3, endSec: 4 });
    expect(intervals[0].histogram.totalCount).toBe(42);
  });
});

describe('mergeHlogFiles', () => {
  it('across 3 files equals the exact sum of every interval with that tag', () => {
    const files = [];
    const corrected = [];
    for (let f = 0; f < 3; f++) {
      const intervals = interleaved().map((iv) => ({ ...iv, histogram: sample(iv.histogram.totalCount + f * 17, 20 + f * 40) }));
      corrected.push(...intervals.filter((iv) => iv.tag === 'corrected').map((iv) => iv.histogram));
      files.push(writeLog(`w${f}.hlog`, intervals, START_MS + f));
    }
    const merged = mergeHlogFiles(files, { tag: 'corrected' });
    const expected = mergeAll(corrected);
    expect(merged.totalCount).toBe(corrected.reduce((n, h) => n + h.totalCount, 0));
    expect(stats(merged)).toEqual(stats(expected));
    expect(encode(merged)).toBe(encode(expected));
  });

  it('returns an empty histogram when no interval has the tag', () => {
    const file = writeLog('a.hlog', interleaved());
    expect(mergeHlogFiles([file], { tag: 'nope' }).totalCount).toBe(0);
  });
});
