import { describe, expect, it } from 'vitest';
import { DEFAULT_STEP_KIND, STEP_KINDS, STEP_KIND_NAMES, stepKindOf } from '../../src/experiments/kinds/step-kinds.js';

/** Every hook kind-contract.js requires, and what it is. */
const REQUIRED = {
  name: 'string',
  fields: 'array',
  specFields: 'array',
  topologyProblem: 'function',
  read: 'function',
  complete: 'function',
  run: 'function',
  readBack: 'function',
  metrics: 'object',
  metricsOf: 'function',
  results: 'function',
  manifest: 'function',
  nominalSeconds: 'function',
  what: 'function',
  figures: 'function',
  commandsNote: 'function',
  setupWords: 'object',
};
const OPTIONAL = {
  readSpec: 'function',
  start: 'function',
  chartDirs: 'function',
  setupWhere: 'function',
  setupSteps: 'function',
  details: 'function',
};

const typeOf = (v) => (Array.isArray(v) ? 'array' : typeof v);

describe('the kinds of experiment step', () => {
  it('are produce (the default), capacity, queue, load, ops and kv: one module each, the default included', () => {
    expect(STEP_KIND_NAMES).toEqual(['produce', 'capacity', 'queue', 'load', 'ops', 'kv']);
    expect(DEFAULT_STEP_KIND).toBe('produce');
    expect(stepKindOf({})).toBe(STEP_KINDS.produce);
    expect(stepKindOf({ kind: 'queue' })).toBe(STEP_KINDS.queue);
  });

  it('each declare every hook the contract requires, and its optional ones with the right type', () => {
    for (const [name, kind] of Object.entries(STEP_KINDS)) {
      expect(kind.name).toBe(name);
      for (const [hook, type] of Object.entries(REQUIRED)) expect(typeOf(kind[hook]), `${name}.${hook}`).toBe(type);
      for (const [hook, type] of Object.entries(OPTIONAL))
        if (kind[hook] !== undefined) expect(typeOf(kind[hook]), `${name}.${hook}`).toBe(type);
    }
  });

  it('name metrics a check can use, each with what it is', () => {
    for (const [name, kind] of Object.entries(STEP_KINDS)) {
      expect(Object.keys(kind.metrics).length, name).toBeGreaterThan(0);
      for (const [m, words] of Object.entries(kind.metrics))
        expect(typeof words === 'string' && words.length > 3, `${name}.${m}`).toBe(true);
    }
  });
});
