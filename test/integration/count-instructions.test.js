// --count-instructions --time-scale on a real standalone Redis with a replica, both under
// Valgrind's callgrind: the run prints and saves instructions per item per node and role, with
// the split by where they went adding up, and the kernel's part; the time scale is stated. Short:
// time scale 10, one send in the window (about 25 s with Valgrind's start and the idle count).
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { valgrindTestsRun } from '../helpers/valgrind.js';
import { CLI, describeRun, readRun, removeTempDirs, runNode, tempDir } from '../helpers/producer-run.js';

afterAll(() => removeTempDirs());

const runs = valgrindTestsRun('--count-instructions');

describe.skipIf(!runs)('--count-instructions --time-scale (standalone + replica under callgrind)', () => {
  it('reports instructions per item per node and role, split by where they went', { timeout: 120_000 }, async () => {
    const out = tempDir('rqbench-count-');
    // prettier-ignore
    const args = [CLI, 'produce', '--local', '--replicas', '1', '--count-instructions', '--time-scale', '10',
      '-q', '2000', '-p', '1000', '-d', '2', '--warmup', '1', '--ttl', '30', '--out', out, '--json', '--quiet'];
    const r = await runNode(args, { timeoutMs: 110_000 });
    expect(r.code, describeRun(r)).toBe(0);
    const { summary, dir } = readRun(out, r.stdout);
    expect(summary.timeScale).toBe(10);
    const ins = summary.instructions;
    expect(ins.errors).toEqual([]);
    // the same seeds for every Redis process (src/local/fixed-seeds.js; .ci/run installs the C compiler it needs)
    expect(ins.seeds).toBe('fixed');
    // one send of 2,000 items in the window (seconds 10-20 of a run 10 times slower than -p 1000 -d 2)
    expect(ins.items).toBe(2000);
    expect(ins.idleSeconds).toBeGreaterThan(4.5);
    expect(ins.nodes.map((n) => n.role).sort()).toEqual(['master', 'replica']);
    for (const n of ins.nodes) {
      // a SETEX and a ZADD member per item cost thousands of instructions, not millions
      expect(n.irPerItem, n.addr).toBeGreaterThan(1000);
      expect(n.irPerItem, n.addr).toBeLessThan(200_000);
      const sum = Object.values(n.split).reduce((a, b) => a + b, 0);
      expect(Math.abs(sum - n.irPerItem), `${n.addr}: the split adds up`).toBeLessThan(0.01 * n.irPerItem + 1);
      expect(n.syscalls.readPerItem).toBeGreaterThanOrEqual(0);
      expect(n.bytes.readPerItem, `${n.addr} read the items' bytes`).toBeGreaterThan(100);
    }
    const master = ins.nodes.find((n) => n.role === 'master');
    expect(master.split.SETEX).toBeGreaterThan(0);
    expect(master.split.ZADD).toBeGreaterThan(0);
    expect(master.split.replicas, 'the master fed its replica').toBeGreaterThan(0);
    expect(ins.roles.master.irPerItem).toBe(master.irPerItem);
    // the replica runs the same ZADDs from the stream, counted until it has applied them all (it lags its
    // master under Valgrind: dumped at the master's moment, it read about half the master's ZADD)
    const replica = ins.nodes.find((n) => n.role === 'replica');
    expect(Math.abs(replica.split.ZADD / master.split.ZADD - 1), JSON.stringify([master.split, replica.split])).toBeLessThan(0.05);
    const md = fs.readFileSync(path.join(/** @type {string} */ (dir), 'summary.md'), 'utf8');
    expect(md).toContain('## Instructions per item');
    expect(md).toContain('**Time scale 10:**');
    // the dumps, for callgrind_annotate
    const kept = fs.readdirSync(path.join(/** @type {string} */ (dir), 'callgrind')).sort();
    expect(kept).toHaveLength(4);
    expect(kept.filter((f) => f.endsWith('.window.out'))).toHaveLength(2);
  });
});
