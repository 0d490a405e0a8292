// timeline.csv when the cluster changes under a run: a node that joins, or a replica promoted,
// gets its own CPU column from that second on; earlier rows are padded so every line keeps the
// header's column count; merging runs and summarizing keep a node's roles apart.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Timeline, readTimeline } from '../../src/record/timeline.js';
import { mergeTimelines } from '../../src/report/merge-runs.js';
import { PRODUCER_ROWS } from '../../src/runs/produce/produce-run.js';
import { summarize } from '../../src/runs/produce/produce-summary.js';

const dirs = [];
afterAll(() => {
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

const A = { addr: '127.0.0.1:7000', role: 'master', shard: 1 };
const B = { addr: '127.0.0.1:7001', role: 'replica', shard: 1 };
const C = { addr: '127.0.0.1:7002', role: 'master', shard: 2 };
const cpu = (n, pct) => ({ ...n, cpuPct: pct });
const row = (second) => ({ second, time: new Date(Date.UTC(2026, 10, 22, 0, 0, second)).toISOString(), intended: 10, sent: 10, acked: 10 });

/** Four seconds: A and B; then C joins; then B is promoted and A is gone. */
function writeRun() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-tl-'));
  dirs.push(dir);
  const file = path.join(dir, 'timeline.csv');
  const t = new Timeline(file, PRODUCER_ROWS.columns, [A, B]);
  t.append(row(0), [cpu(A, 10), cpu(B, 5)]);
  t.append(row(1), [cpu(A, 11), cpu(B, 6)]);
  t.append(row(2), [cpu(A, 12), cpu(B, 7), cpu(C, 1)]);
  t.append(row(3), [cpu(A, null), { ...B, role: 'master', cpuPct: 20 }, cpu(C, 2)]);
  return file;
}

describe('a timeline whose nodes change', () => {
  it('adds a column per new node or role, pads the earlier rows, and keeps each value in its column', () => {
    const file = writeRun();
    const lines = fs.readFileSync(file, 'utf8').trim().split('\n');
    const width = lines[0].split(',').length;
    for (const l of lines) expect(l.split(',').length, l).toBe(width);
    const tl = readTimeline(file);
    expect(tl.rows).toHaveLength(4);
    expect(tl.nodes.map((n) => n.column)).toEqual([
      'cpu_master_s1_127.0.0.1:7000',
      'cpu_replica_s1_127.0.0.1:7001',
      'cpu_master_s2_127.0.0.1:7002',
      'cpu_master_s1_127.0.0.1:7001',
    ]);
    const col = (c) => tl.rows.map((r) => r[c]);
    expect(col('cpu_master_s1_127.0.0.1:7000')).toEqual([10, 11, 12, null]);
    expect(col('cpu_replica_s1_127.0.0.1:7001')).toEqual([5, 6, 7, null]);
    expect(col('cpu_master_s2_127.0.0.1:7002')).toEqual([null, null, 1, 2]);
    expect(col('cpu_master_s1_127.0.0.1:7001')).toEqual([null, null, null, 20]);
    expect(col('acked')).toEqual([10, 10, 10, 10]);
    expect(fs.existsSync(`${file}.tmp`)).toBe(false);
  });

  it('merged with a run that never saw the promotion: the roles stay apart, each averaged over the runs that had it', () => {
    const grown = readTimeline(writeRun());
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'rqbench-tl-'));
    dirs.push(dir);
    const file = path.join(dir, 'timeline.csv');
    const t = new Timeline(file, PRODUCER_ROWS.columns, [A, B]);
    for (let s = 0; s < 4; s++) t.append(row(s), [cpu(A, 30), cpu(B, 15)]);
    const m = mergeTimelines([
      { kind: 'produce', timeline: grown },
      { kind: 'produce', timeline: readTimeline(file) },
    ]);
    expect(m.nodes.map((n) => `${n.role}:${n.addr}`)).toEqual([
      'master:127.0.0.1:7000',
      'replica:127.0.0.1:7001',
      'master:127.0.0.1:7002',
      'master:127.0.0.1:7001',
    ]);
    const at3 = Object.fromEntries(m.rows[3].cpu.map((c) => [`${c.role}:${c.addr}`, c.cpuPct]));
    expect(at3).toEqual({
      'master:127.0.0.1:7000': 30,
      'replica:127.0.0.1:7001': 15,
      'master:127.0.0.1:7002': 2,
      'master:127.0.0.1:7001': 20,
    });
    expect(m.rows[3].counters.acked).toBe(20);
  });

  it('the summary lists a promoted node once per role, and counts each second under the role it had', () => {
    const rows = [0, 1, 2, 3].map((index) => ({
      index,
      intended: 10,
      counters: { acked: 10 },
      client: { cpuPct: 1, cpuPctMax: 1, loopP99Ms: 1, rssMb: 1, wallMs: 1000 },
      cpu: index < 2 ? [cpu(A, 40), cpu(B, 10)] : [cpu(A, null), { ...B, role: 'master', cpuPct: 50 }],
    }));
    const s = summarize({
      rows,
      ackedDue: new Map(rows.map((r) => [r.index, 10])),
      totals: new Map(),
      warmupS: 0,
      durationS: 4,
      targetRate: 10,
      writers: 1,
      totalCounts: { failed: 0 },
      errorKinds: {},
    });
    expect(s.cpu.nodes.map((n) => [n.addr, n.role, n.avg, n.samples])).toEqual([
      ['127.0.0.1:7000', 'master', 40, 2],
      ['127.0.0.1:7001', 'master', 50, 2],
      ['127.0.0.1:7001', 'replica', 10, 2],
    ]);
  });
});
