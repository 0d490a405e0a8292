// A bench's targets decide its exit code (issue 25, point 4): a bench that prints FAIL and exits 0
// reads as a pass in CI. bench/lib/targets.js is the one place every bench reports through.
import { describe, expect, it } from 'vitest';
import { runNode } from '../helpers/producer-run.js';

const TARGETS = new URL('../../bench/lib/targets.js', import.meta.url).href;
/** A script that checks the given outcomes through target() and prints what it prints. */
const script = (outcomes) => `import { target, targetsLine } from '${TARGETS}';
${outcomes.map((ok) => `console.log(target(${ok}, ['PASS', 'FAIL']));`).join('\n')}
console.log(targetsLine());`;

describe('bench targets', () => {
  it('a missed target exits 1 and says how many were missed', async () => {
    const r = await runNode(['--input-type=module', '-e', script([true, false, false])]);
    expect(r.stdout.trim().split('\n')).toEqual(['PASS', 'FAIL', 'FAIL', '2 targets missed: exit 1']);
    expect(r.code).toBe(1);
  });

  it('every target met exits 0', async () => {
    const r = await runNode(['--input-type=module', '-e', script([true, true])]);
    expect(r.stdout.trim().split('\n')).toEqual(['PASS', 'PASS', 'every target met']);
    expect(r.code).toBe(0);
  });
});
