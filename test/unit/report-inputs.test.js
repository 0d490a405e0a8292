// Damaged and foreign run directories given to `rqbench report`, `report --spectrum`,
// `report --format csv`, `compare` and `chart`: each is refused in one line naming the file (and
// line) and what is wrong, exit 2, nothing on stdout and nothing in chart's --out. A recorded
// producer run (test/fixtures/runs/produce-standalone, on a local Redis) is copied and damaged one
// way per case; a recorded SQS publisher run (test/fixtures/runs/queue-publish, on the fauxqs
// emulator) is read, and refused the same way when damaged (test/unit/report-kinds.test.js merges
// queue runs). Also: every report path covers the summary's window [fromSecond, toSecond), never
// the seconds after it, and a last .hlog line cut by a crash past the window is still read. The
// commands run in-process (runCommand); test/integration/report-spawn.test.js runs each as a program.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { newHistogram, record, encode } from '../../src/measure/histogram.js';
import { listTree, removeTempDirs, tempDir } from '../helpers/producer-run.js';
import { copyFixtures, rq } from '../helpers/fixture-runs.js';

const fx = copyFixtures();
/** A finished producer run: window [fromSecond, toSecond) with at least one second in it. */
const good = fx.run('produce-standalone');
/** @type {Record<string, any>} */
const summary = JSON.parse(fs.readFileSync(path.join(good, 'summary.json'), 'utf8'));
/** An SQS publisher's run directory. */
const queueRun = fx.runs('queue-publish')[0];

const why = (r) => `exit ${r.code}; stderr: ${r.stderr.trim().slice(0, 400)}`;
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
// what printable() escapes: a terminal would act on these
// eslint-disable-next-line no-control-regex -- the test looks for raw control characters on purpose
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

afterAll(() => removeTempDirs());

describe('the recorded run these cases damage', () => {
  it('has a second in its window, batches in it, and an .hlog of another operation (setex)', () => {
    expect(summary.window.seconds, 'the run has a second in its window to damage').toBeGreaterThanOrEqual(1);
    expect(summary.latency.batch.intended.count).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(good, 'setex.hlog'))).toBe(true);
  });
});

/** A fresh copy of the good run, damaged by `damage(dir)`. */
function damaged(damage) {
  const dir = path.join(tempDir('rqbench-bad-'), path.basename(good));
  fs.cpSync(good, dir, { recursive: true });
  damage(dir);
  return dir;
}

const file = (dir, name) => path.join(dir, name);
const lines = (dir, name) => fs.readFileSync(file(dir, name), 'utf8').split('\n');
const writeJson = (dir, name, v) => fs.writeFileSync(file(dir, name), JSON.stringify(v));
const editJson = (dir, name, edit) => {
  const v = JSON.parse(fs.readFileSync(file(dir, name), 'utf8'));
  edit(v);
  writeJson(dir, name, v);
};
/** The 1-based number of the first batch.hlog line tagged intended for a second in the window. */
function firstWindowLine(dir) {
  const at = lines(dir, 'batch.hlog').findIndex((l) => {
    const [tag, start] = l.split(',');
    return tag === 'Tag=intended' && Number(start) >= summary.window.fromSecond && Number(start) < summary.window.toSecond;
  });
  expect(at, 'batch.hlog has an interval in the window').toBeGreaterThan(0);
  return at + 1;
}
/** The 1-based number of the first interval line of an .hlog. */
const firstInterval = (dir, name) => lines(dir, name).findIndex((l) => l.startsWith('Tag=')) + 1;
/** Bytes no rqbench file holds: a PNG signature, an escape sequence, invalid UTF-8. */
const BINARY = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x1b, 0x5b, 0x32, 0x4a, 0xff, 0xfe, 0x0a]);

/**
 * [what, damage(dir) → the message expected (a function of the damaged dir, so it can name its
 * files and lines)]
 * @type {Array<[string, (dir: string) => (bad: string) => RegExp]>}
 */
const CASES = [
  [
    'an .hlog cut in the middle of the file, mid-line',
    (dir) => {
      const n = firstWindowLine(dir);
      const all = lines(dir, 'batch.hlog');
      fs.writeFileSync(file(dir, 'batch.hlog'), `${all.slice(0, n - 1).join('\n')}\n${all[n - 1].slice(0, 30)}`);
      return (bad) =>
        new RegExp(
          `^${escape(file(bad, 'batch.hlog'))}: 0 values tagged intended from second ${summary.window.fromSecond} on, where summary\\.json counts ${summary.latency.batch.intended.count}: line ${n} is cut short$`,
        );
    },
  ],
  [
    'an .hlog cut in the middle of the file, at a line end',
    (dir) => {
      const n = firstWindowLine(dir);
      fs.writeFileSync(
        file(dir, 'batch.hlog'),
        `${lines(dir, 'batch.hlog')
          .slice(0, n - 1)
          .join('\n')}\n`,
      );
      return (bad) =>
        new RegExp(
          `^${escape(file(bad, 'batch.hlog'))}: 0 values tagged intended from second \\d+ on, where summary\\.json counts \\d+: the file ends at line ${n - 1}$`,
        );
    },
  ],
  [
    'an .hlog with a garbage line in the middle',
    (dir) => {
      const all = lines(dir, 'batch.hlog');
      const n = firstInterval(dir, 'batch.hlog') + 1;
      all.splice(n - 1, 0, 'garbage,line');
      fs.writeFileSync(file(dir, 'batch.hlog'), all.join('\n'));
      return (bad) =>
        new RegExp(
          `^${escape(file(bad, 'batch.hlog'))}:${n}: not an interval line: 2 fields, where 4 are expected \\(start, length, max, histogram\\)$`,
        );
    },
  ],
  [
    'an .hlog line whose histogram is garbage',
    (dir) => {
      const all = lines(dir, 'batch.hlog');
      const n = firstInterval(dir, 'batch.hlog');
      all[n - 1] = `${all[n - 1].split(',').slice(0, 4).join(',')},HISTFAAAAnotbase64`;
      fs.writeFileSync(file(dir, 'batch.hlog'), all.join('\n'));
      return (bad) => new RegExp(`^${escape(file(bad, 'batch.hlog'))}:${n}: not an interval line: the histogram does not decode$`);
    },
  ],
  [
    'an empty .hlog',
    (dir) => {
      fs.writeFileSync(file(dir, 'batch.hlog'), '');
      return (bad) => new RegExp(`^${escape(file(bad, 'batch.hlog'))}: empty \\(an HdrHistogram log starts with its header\\)$`);
    },
  ],
  [
    'an .hlog of binary garbage',
    (dir) => {
      fs.writeFileSync(file(dir, 'batch.hlog'), BINARY);
      return (bad) => new RegExp(`^${escape(file(bad, 'batch.hlog'))}:1: not an interval line: 1 field, where 4 are expected`);
    },
  ],
  [
    'a damaged .hlog of an operation the spectrum, the timeline and the charts do not read',
    (dir) => {
      const all = lines(dir, 'setex.hlog');
      const n = firstInterval(dir, 'setex.hlog') + 1;
      all.splice(n - 1, 0, 'Tag=intended,1.000,1.000');
      fs.writeFileSync(file(dir, 'setex.hlog'), all.join('\n'));
      return (bad) => new RegExp(`^${escape(file(bad, 'setex.hlog'))}:${n}: not an interval line: 2 fields after the tag`);
    },
  ],
  [
    'an .hlog missing',
    (dir) => {
      fs.rmSync(file(dir, 'batch.hlog'));
      return (bad) => new RegExp(`^${escape(bad)}: no batch\\.hlog, where summary\\.json has \\d+ batch values$`);
    },
  ],
  [
    'timeline.csv missing',
    (dir) => {
      fs.rmSync(file(dir, 'timeline.csv'));
      return (bad) => new RegExp(`^${escape(bad)}: no timeline\\.csv$`);
    },
  ],
  [
    'an empty timeline.csv',
    (dir) => {
      fs.writeFileSync(file(dir, 'timeline.csv'), '');
      return (bad) => new RegExp(`^${escape(file(bad, 'timeline.csv'))}: empty \\(not even the header line\\)$`);
    },
  ],
  [
    'timeline.csv without its header',
    (dir) => {
      fs.writeFileSync(file(dir, 'timeline.csv'), lines(dir, 'timeline.csv').slice(1).join('\n'));
      return (bad) => new RegExp(`^${escape(file(bad, 'timeline.csv'))}:1: not a timeline header: it starts with second,time \\(got "0,`);
    },
  ],
  [
    "timeline.csv with another command's columns",
    (dir) => {
      const all = lines(dir, 'timeline.csv');
      all[0] = all[0].replace(',acked,', ',cycles,');
      fs.writeFileSync(file(dir, 'timeline.csv'), all.join('\n'));
      return (bad) => new RegExp(`^${escape(file(bad, 'timeline.csv'))}:1: no acked column: not a Redis producer run's timeline$`);
    },
  ],
  [
    'timeline.csv of binary garbage',
    (dir) => {
      fs.writeFileSync(file(dir, 'timeline.csv'), BINARY);
      return (bad) => new RegExp(`^${escape(file(bad, 'timeline.csv'))}:1: not a timeline header`);
    },
  ],
  [
    'timeline.csv with a garbage row in the middle',
    (dir) => {
      const all = lines(dir, 'timeline.csv');
      all.splice(2, 0, 'not,a,row');
      fs.writeFileSync(file(dir, 'timeline.csv'), all.join('\n'));
      const width = all[0].split(',').length;
      return (bad) => new RegExp(`^${escape(file(bad, 'timeline.csv'))}:3: 3 cells where the header has ${width}$`);
    },
  ],
  [
    'timeline.csv with text in a number column',
    (dir) => {
      const all = lines(dir, 'timeline.csv');
      const col = all[0].split(',').indexOf('acked');
      const cells = all[2].split(',');
      cells[col] = 'lots';
      all[2] = cells.join(',');
      fs.writeFileSync(file(dir, 'timeline.csv'), all.join('\n'));
      return (bad) => new RegExp(`^${escape(file(bad, 'timeline.csv'))}:3: acked is not a number \\(got "lots"\\)$`);
    },
  ],
  [
    'timeline.csv cut in the middle, at a row end',
    (dir) => {
      const keep = lines(dir, 'timeline.csv').filter(
        (l, i) => i === 0 || (l !== '' && Number(l.split(',')[0]) < summary.window.fromSecond),
      );
      fs.writeFileSync(file(dir, 'timeline.csv'), `${keep.join('\n')}\n`);
      const { fromSecond, toSecond, seconds } = summary.window;
      return (bad) =>
        new RegExp(
          `^${escape(file(bad, 'timeline.csv'))}: 0 rows in seconds ${fromSecond} to ${toSecond}, where summary\\.json's window has ${seconds} \\(the file has ${keep.length} lines\\)$`,
        );
    },
  ],
  ...[
    ['[]', [], 'must hold a JSON object \\(got \\[\\]\\)'],
    ['{}', {}, 'no window \\(it must be an object\\)'],
    ['{"window": 3}', { window: 3 }, 'window must be an object \\(got 3\\)'],
    ['a number', 3, 'must hold a JSON object \\(got 3\\)'],
  ].map(([what, v, message]) => [
    `summary.json of the wrong shape: ${what}`,
    (dir) => {
      writeJson(dir, 'summary.json', v);
      return (bad) => new RegExp(`^${escape(file(bad, 'summary.json'))}: ${message}$`);
    },
  ]),
  ...[
    [
      'without window',
      (s) => {
        delete s.window;
      },
      'no window \\(it must be an object\\)',
    ],
    [
      'with a negative window start',
      (s) => {
        s.window.fromSecond = -1;
      },
      'window\\.fromSecond must be an integer >= 0 \\(got -1\\)',
    ],
    [
      'with latency a string',
      (s) => {
        s.latency = 'fast';
      },
      'latency must be an object \\(got "fast"\\)',
    ],
    [
      'with a count as text',
      (s) => {
        s.latency.batch.intended.count = '12';
      },
      'latency\\.batch\\.intended\\.count must be an integer >= 0 \\(got "12"\\)',
    ],
    [
      'without writers',
      (s) => {
        delete s.writers;
      },
      'no writers \\(it must be an integer >= 1\\)',
    ],
    [
      'with an escape sequence for a rate',
      (s) => {
        s.target.itemsPerSec = '\u001b[2J';
      },
      'target\\.itemsPerSec must be a number \\(got "\\\\u001b\\[2J"\\)',
    ],
  ].map(([what, edit, message]) => [
    `a summary.json ${what}`,
    (dir) => {
      editJson(dir, 'summary.json', edit);
      return (bad) => new RegExp(`^${escape(file(bad, 'summary.json'))}: ${message}$`);
    },
  ]),
  [
    'summary.json that is not JSON',
    (dir) => {
      fs.writeFileSync(file(dir, 'summary.json'), fs.readFileSync(file(dir, 'summary.json'), 'utf8').replace(':', ';'));
      return (bad) => new RegExp(`^${escape(file(bad, 'summary.json'))}:2: not valid JSON$`);
    },
  ],
  [
    'summary.json of binary garbage',
    (dir) => {
      fs.writeFileSync(file(dir, 'summary.json'), BINARY);
      return (bad) => new RegExp(`^${escape(file(bad, 'summary.json'))}(:\\d+)?: not valid JSON$`);
    },
  ],
  [
    'the placeholder summary.json of a run that failed',
    (dir) => {
      writeJson(dir, 'summary.json', { incomplete: true, interrupted: false, failed: 'cannot connect to 127.0.0.1:1' });
      return (bad) =>
        new RegExp(`^${escape(file(bad, 'summary.json'))}: the run did not finish: it failed: cannot connect to 127\\.0\\.0\\.1:1$`);
    },
  ],
  // summary.json missing beside a closed manifest: report reads the run as one whose final save
  // failed (test/unit/report-stopped.test.js), compare and chart refuse it
  ...[
    ['[]', () => [], 'must hold a JSON object \\(got \\[\\]\\)'],
    ['{}', () => ({}), 'no command \\(it must be a string\\)'],
    ['t0 as text', (m) => ({ ...m, t0: 'yesterday' }), 't0 must be a number \\(epoch ms\\) \\(got "yesterday"\\)'],
    ['flags null', (m) => ({ ...m, flags: null }), 'flags must be an object \\(got null\\)'],
  ].map(([what, make, message]) => [
    `manifest.json of the wrong shape: ${what}`,
    (dir) => {
      writeJson(dir, 'manifest.json', make(JSON.parse(fs.readFileSync(file(dir, 'manifest.json'), 'utf8'))));
      return (bad) => new RegExp(`^${escape(file(bad, 'manifest.json'))}: ${message}$`);
    },
  ]),
  [
    'manifest.json naming another command, with an escape sequence in it',
    (dir) => {
      // a manifest from before runs named their kind: the command tells it
      editJson(dir, 'manifest.json', (m) => {
        delete m.kind;
        m.command = '\u001b[2Jops';
      });
      return (bad) =>
        new RegExp(
          `^${escape(bad)}: manifest\\.json names command "\\\\u001b\\[2Jops"; reports read produce, consume, queue publish, queue consume and kv runs$`,
        );
    },
  ],
  [
    'manifest.json of binary garbage',
    (dir) => {
      fs.writeFileSync(file(dir, 'manifest.json'), BINARY);
      return (bad) => new RegExp(`^${escape(file(bad, 'manifest.json'))}(:\\d+)?: not valid JSON$`);
    },
  ],
  [
    "a consumer manifest over a producer's files",
    (dir) => {
      editJson(dir, 'manifest.json', (m) => {
        m.kind = 'consume';
        m.command = 'consume';
        m.flags.period = 1000;
      });
      return (bad) => new RegExp(`^${escape(file(bad, 'summary.json'))}: no readers \\(it must be an integer >= 1\\)$`);
    },
  ],
  [
    'a run directory that is a file',
    (dir) => {
      fs.rmSync(dir, { recursive: true });
      fs.writeFileSync(dir, 'not a directory\n');
      return (bad) => new RegExp(`^${escape(bad)}: not a directory$`);
    },
  ],
];

/** The five commands that read run directories, each given `bad` (compare: as B, after a good A). */
const COMMANDS = [
  ['report', (bad) => ['report', bad]],
  ['report', (bad) => ['report', '--spectrum', bad]],
  ['report', (bad) => ['report', '--format', 'csv', bad]],
  ['compare', (bad) => ['compare', good, bad]],
  ['chart', (bad, out) => ['chart', bad, '--out', out]],
];

/**
 * Runs the five commands on `bad` and checks each was refused in one line matching `message`.
 * @param {string} bad
 * @param {RegExp} message
 */
async function expectRefusedEverywhere(bad, message) {
  const outs = COMMANDS.map(() => path.join(tempDir('rqbench-chart-out-'), 'charts'));
  const results = await Promise.all(COMMANDS.map(([, args], i) => rq(...args(bad, outs[i]))));
  results.forEach((r, i) => {
    const [prog, args] = COMMANDS[i];
    const what = `rqbench ${args(bad, outs[i]).join(' ')} → ${why(r)}`;
    expect(r.code, what).toBe(2);
    expect(r.stdout, what).toBe('');
    expect(r.stderr.endsWith('\n'), what).toBe(true);
    const stderr = r.stderr.slice(0, -1);
    expect(stderr.split('\n'), what).toHaveLength(1);
    expect(stderr, what).not.toMatch(CONTROL);
    expect(stderr.startsWith(`rqbench ${prog}: `), what).toBe(true);
    expect(stderr.slice(`rqbench ${prog}: `.length), what).toMatch(message);
    // no chart, whole or half-written, and no temp file
    expect(listTree(outs[i]), what).toEqual([]);
  });
}

describe('malformed run directories: one line naming the file, exit 2, nothing printed or drawn', () => {
  it.each(CASES)(
    '%s',
    async (_what, damage) => {
      let message;
      const bad = damaged((dir) => {
        message = damage(dir);
      });
      await expectRefusedEverywhere(bad, message(bad));
    },
    20_000,
  );
});

describe('queue runs: read, and refused the same way when damaged', () => {
  it('an SQS publisher run, as written: every command reads it', async () => {
    const out = path.join(tempDir('rqbench-chart-out-'), 'charts');
    const results = await Promise.all([
      rq('report', queueRun),
      rq('report', '--spectrum', queueRun),
      rq('report', '--format', 'csv', queueRun),
      rq('compare', queueRun, queueRun),
      rq('chart', queueRun, '--out', out),
    ]);
    for (const r of results) expect(r.code, why(r)).toBe(0);
  }, 20_000);

  it.each([
    [
      'a target reports do not know',
      () =>
        damagedQueue((m) => {
          delete m.kind;
          m.flags.target = 'kafka';
        }),
      (dir) => `${escape(dir)}: manifest\\.json names target "kafka"; reports read redis, sqs, sns, pubsub runs`,
    ],
    [
      'a count as text in a queue summary',
      () =>
        damagedQueueSummary((s) => {
          s.publish.intended.count = 'many';
        }),
      (dir) => `${escape(file(dir, 'summary.json'))}: publish\\.intended\\.count must be an integer >= 0 \\(got "many"\\)`,
    ],
    [
      'a queue summary counting more than publish.hlog holds',
      () =>
        damagedQueueSummary((s) => {
          s.publish.intended.count += 1000;
        }),
      (dir) =>
        `${escape(file(dir, 'publish.hlog'))}: \\d+ values tagged intended from second 0 on, where summary\\.json counts \\d+: the file ends at line \\d+`,
    ],
  ])(
    '%s',
    async (_what, dirOf, message) => {
      const dir = dirOf();
      await expectRefusedEverywhere(dir, new RegExp(`^${message(dir)}$`));
    },
    20_000,
  );
});

/** A copy of the SQS run with its summary edited. */
function damagedQueueSummary(edit) {
  const dir = path.join(tempDir('rqbench-queue-'), path.basename(queueRun));
  fs.cpSync(queueRun, dir, { recursive: true });
  editJson(dir, 'summary.json', edit);
  return dir;
}

/** A copy of the SQS run with its manifest edited. */
function damagedQueue(edit) {
  const dir = path.join(tempDir('rqbench-queue-'), path.basename(queueRun));
  fs.cpSync(queueRun, dir, { recursive: true });
  editJson(dir, 'manifest.json', edit);
  return dir;
}

/** An .hlog interval line for second `start`: `n` values of `ms` each. */
function intervalLine(tag, start, length, n, ms) {
  const h = newHistogram();
  for (let i = 0; i < n; i++) record(h, ms * 1000);
  return `Tag=${tag},${start.toFixed(3)},${length.toFixed(3)},${ms.toFixed(3)},${encode(h)}`;
}

/** The good run with seconds after its window: a second cut short by a Ctrl-C, then the drain. */
function withSecondsPastTheWindow() {
  return damaged((dir) => {
    const tl = lines(dir, 'timeline.csv').filter(Boolean);
    const last = Number(tl.at(-1).split(',')[0]);
    // a row per added second, so the timeline and the .hlog agree on what the run measured
    for (const s of [last + 1, last + 2]) tl.push([s, ...tl.at(-1).split(',').slice(1)].join(','));
    fs.writeFileSync(file(dir, 'timeline.csv'), `${tl.join('\n')}\n`);
    const add = [last + 1, last + 2].flatMap((s, i) => ['intended', 'sent'].map((tag) => intervalLine(tag, s, i ? 1 : 0.4, 7, 5000)));
    fs.appendFileSync(file(dir, 'batch.hlog'), `${add.join('\n')}\n`);
  });
}

/** The Total count of wrk2's spectrum footer. */
const spectrumCount = (stdout) => Number(/Total count {4}= +(\d+)\]/.exec(stdout)?.[1]);

describe("one window: the summary's [fromSecond, toSecond) on every report path", () => {
  it('report --spectrum, the merged summary and the percentile chart leave out the seconds after the window', async () => {
    const [a, b] = [withSecondsPastTheWindow(), withSecondsPastTheWindow()];
    const want = summary.latency.batch.intended;
    const out = path.join(tempDir('rqbench-window-'), 'charts');
    const [spectrum, merged, one, chart] = await Promise.all([
      rq('report', '--spectrum', a),
      rq('report', '--format', 'json', a, b),
      rq('report', '--format', 'json', a),
      rq('chart', a, '--out', out),
    ]);
    for (const r of [spectrum, merged, one, chart]) expect(r.code, why(r)).toBe(0);
    // the 5000 ms values are in the files, after toSecond: counted nowhere
    expect(spectrumCount(spectrum.stdout)).toBe(want.count);
    expect(spectrum.stdout).not.toMatch(/^ +5\d{3}\.\d{3} /m);
    expect(JSON.parse(one.stdout).latency).toEqual(summary.latency);
    const m = JSON.parse(merged.stdout);
    expect(m.latency.batch.intended.count).toBe(2 * want.count);
    expect(m.latency.batch.intended.max).toBe(want.max);
    expect(fs.readFileSync(path.join(out, 'percentiles.svg'), 'utf8')).toContain(`(batch, n=${want.count})`);
  }, 20_000);
});

describe('a last .hlog line cut short by a crash', () => {
  it('is left out when it lies past the window: every command still reads the run', async () => {
    const dir = damaged((d) => {
      const last = Number(lines(d, 'timeline.csv').filter(Boolean).at(-1).split(',')[0]);
      fs.appendFileSync(file(d, 'batch.hlog'), intervalLine('intended', last + 1, 0.4, 7, 5000).slice(0, 40));
    });
    const out = path.join(tempDir('rqbench-cut-'), 'charts');
    const results = await Promise.all([
      rq('report', dir),
      rq('report', '--spectrum', dir),
      rq('report', '--format', 'csv', dir),
      rq('compare', good, dir),
      rq('chart', dir, '--out', out),
    ]);
    for (const r of results) expect(r.code, why(r)).toBe(0);
    expect(spectrumCount(results[1].stdout)).toBe(summary.latency.batch.intended.count);
    expect(results[2].stdout).toBe(fs.readFileSync(file(good, 'timeline.csv'), 'utf8'));
    expect(fs.readdirSync(out).sort()).toEqual(
      ['cpu', 'latency', 'percentiles', 'throughput'].flatMap((n) => [`${n}.png`, `${n}.svg`]).sort(),
    );
  }, 20_000);
});
