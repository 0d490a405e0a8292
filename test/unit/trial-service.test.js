// A trial whose service stopped answering (issue 37, point 7): what marks it, from its runs'
// summaries or from a run that could not connect at all; the Finding's lines on it.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serviceLines, serviceSilence } from '../../src/experiments/trial-service.js';

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-trial-service-'));
afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

/** A trial directory holding one run with this summary. */
function trialWith(name, summary) {
  const run = path.join(root, name, '20261129-000000-producer');
  fs.mkdirSync(run, { recursive: true });
  fs.writeFileSync(path.join(run, 'summary.json'), JSON.stringify(summary));
  return path.join(root, name);
}

describe('a service that stopped answering', () => {
  it('a Redis run stopped by its silence bound, a queue run stopped for it, a run that could not connect', () => {
    expect(serviceSilence(trialWith('a', { unreachable: { silentS: 11.6 } }))).toBe('nothing answered for 11.6 s and the run stopped');
    expect(serviceSilence(trialWith('b', { stoppedBy: 'unreachable' }))).toMatch(/did not answer for longer than the run's bound/);
    const none = trialWith('c', { totals: {} });
    expect(serviceSilence(none)).toBeNull();
    expect(
      serviceSilence(none, {
        ok: false,
        error: 'src/producer.js exited with 1: producer.js: cannot connect to 127.0.0.1:6379: no answer within 3 s',
      }),
    ).toBe('cannot connect to 127.0.0.1:6379: no answer within 3 s, and the run stopped');
    // a step that failed for a reason of its own is not the service's
    expect(serviceSilence(none, { ok: false, error: 'the producer wrote no summary' })).toBeNull();
  });

  it('the Finding names a trial run again, and one kept silent', () => {
    const lines = serviceLines([
      {
        step: { name: 'only' },
        trials: [
          { trial: 1, service: { silent: null, tries: 1 } },
          { trial: 2, service: { silent: null, tries: 0 } },
        ],
      },
      { step: { name: 'other' }, trials: [{ trial: 3, service: { silent: 'nothing answered for 12 s and the run stopped', tries: 2 } }] },
    ]);
    expect(lines).toContain('- only trial 1: its service stopped answering 1 time; the trial counted is the run that answered');
    expect(lines.some((l) => l.startsWith('- only trial 2'))).toBe(false);
    expect(lines).toContain(
      '- other trial 3: nothing answered for 12 s and the run stopped, as in the 2 runs set aside before it: kept and counted — it measured the fault, and with few trials one such trial can decide a comparison',
    );
  });
});
