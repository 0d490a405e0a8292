// The load kind's words about the run's servers (seed 001): the Redis sentence only where a step
// writes to a local Redis (it alone is given --url and --flush), and the sinks a spec without
// Redis uses, named.
import { describe, expect, it } from 'vitest';
import { commandsNote, setupWhere } from '../../src/experiments/kinds/load-kind.js';

const deltaFile = { records: 4000, recordSize: 512 };
/** @param {any[]} steps @param {any} [topology] */
const spec = (steps, topology = { local: {}, label: 'local standalone Redis' }) =>
  /** @type {any} */ ({ topology, steps, kindSpec: { deltaFile } });

describe('a spec from S3 into the memory sink', () => {
  const s = spec([{ from: 's3', flags: { sink: 'memory' } }]);
  it('says nothing of --url or --flush', () => {
    const note = commandsNote(s);
    expect(note).not.toMatch(/--url|--flush/);
    expect(note).toContain('the `--endpoint` is that emulator');
  });
  it('names the memory sink alone, no noop', () => {
    expect(setupWhere(s)).toMatch(/^no Redis \(the memory sink only\); the S3 emulator/);
  });
});

describe('a spec into a local Redis', () => {
  it('says what --url and --flush are', () => {
    expect(commandsNote(spec([{ flags: { sink: 'noop' } }, { flags: {} }]))).toContain(
      'The `--url` is the local Redis the runner started for the run (a new port each time); `--flush` empties it before each grid.',
    );
    expect(setupWhere(spec([{ flags: { sink: 'noop' } }]))).toBe('no Redis (the noop sink only)');
  });
});
