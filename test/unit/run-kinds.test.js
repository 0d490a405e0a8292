// The kinds of run directory (src/runs/kinds.js, the contract in src/runs/run-kind.js): one module
// each, every hook the reports call declared, and the facts that must agree with each other (a
// column a report needs that the run never writes).
import { describe, expect, it } from 'vitest';
import { READABLE_KINDS, RUN_KINDS, RUN_KIND_NAMES, kindOf, readKind, windowOf } from '../../src/runs/kinds.js';

/** Every hook a kind the reports read declares, and what it is. */
const REQUIRED = {
  name: 'string',
  words: 'string',
  mainOp: 'string',
  workers: 'object',
  serverCpu: 'boolean',
  manifestFields: 'array',
  summaryFields: 'array',
  checkSummary: 'function',
  recorded: 'function',
  rows: 'object',
  summarize: 'function',
  summaryMd: 'function',
  merge: 'function',
  compare: 'array',
  chart: 'object',
  panels: 'array',
};
const typeOf = (v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);

describe('the kinds of run directory', () => {
  it('are the producer, the consumer, the queue publisher and consumer and kv (read back), load and ops (not read back: their summary.md is their report)', () => {
    expect(RUN_KIND_NAMES).toEqual(['produce', 'consume', 'queue-publish', 'queue-consume', 'load', 'ops', 'kv']);
    expect(READABLE_KINDS.map((k) => k.name)).toEqual(['produce', 'consume', 'queue-publish', 'queue-consume', 'kv']);
    for (const k of RUN_KINDS.filter((x) => !x.readable)) expect(/** @type {any} */ (k).why, k.name).toMatch(/no per-second timeline/);
  });

  it('each declare every hook the reports call, of the right type', () => {
    for (const kind of READABLE_KINDS) {
      for (const [hook, type] of Object.entries(REQUIRED)) expect(typeOf(kind[hook]), `${kind.name}.${hook}`).toBe(type);
      expect(['string', 'null']).toContain(typeOf(kind.startAt));
      expect(['object', 'null']).toContain(typeOf(kind.stopped));
      expect(typeOf(kind.chart.throughput), `${kind.name}.chart.throughput`).toBe('function');
      expect(typeof kind.workers.of, `${kind.name}.workers.of`).toBe('function');
    }
  });

  it('every column a report needs is one the kind writes (and each it writes has a panel on the HTML page: test/unit/html-report.test.js)', () => {
    for (const kind of READABLE_KINDS)
      expect(
        kind.rows.needed.filter((c) => !kind.rows.columns.includes(c)),
        kind.name,
      ).toEqual([]);
  });

  it('a manifest names its kind, or an older one its command and target; load and ops runs are refused in one line', () => {
    expect(kindOf('d', { kind: 'consume' })).toBe('consume');
    expect(kindOf('d', { command: 'produce', flags: { target: 'sqs' } })).toBe('queue-publish');
    expect(kindOf('d', { command: 'consume', flags: {} })).toBe('consume');
    expect(() => kindOf('d', { kind: 'load' })).toThrow(
      /^d: a load run \(one whole-file load per grid cell: no per-second timeline to merge or chart\); reports read produce, consume, queue publish, queue consume and kv runs/,
    );
    expect(() => kindOf('d', { kind: 'bench' })).toThrow(
      /^d: manifest.json kind must be one of produce, consume, queue-publish, queue-consume, load, ops, kv \(got "bench"\)$/,
    );
    expect(() => readKind('load')).toThrow(TypeError);
  });

  it('a summary covers whole seconds; a queue run ending inside a second covers that second too', () => {
    expect(windowOf({ window: { fromSecond: 2, toSecond: 9 } })).toEqual({ fromSecond: 2, toSecond: 9 });
    expect(windowOf({ window: { fromS: 1, toS: 6.2 } })).toEqual({ fromSecond: 1, toSecond: 7 });
  });
});
