// The good experiment specs the e2e tests run end to end, in one place: the unit tier refuses
// each one with a single edit (test/unit/experiment-specs.test.js), so a refusal is always one
// mistake away from a spec that runs.
import fs from 'node:fs';
import path from 'node:path';
import { tempDir } from './producer-run.js';

/** Two steps of the default kind, a sorted set against a list (test/e2e/experiment.test.js). */
export const TWO_STEPS = `
title: Sorted set vs list (test)
seed: "002 § Sorted set vs lists"
topology: { local: { replicas: 1 } }
repeat: 2
duration: 3
warmup: 1
flags: { per-writer: 2000, t: 1 }
steps:
  - name: zset
    consumer: { limit: 100 }
  - name: list
    flags: { sl: true }
finding: "a list costs the master less CPU than a sorted set"
check: "list.master_cpu < zset.master_cpu * 10"
seedNodeVcpus: 2
`;

/** Two queue steps on the SQS emulator the runner starts (test/e2e/experiment-queue.test.js). */
export const QUEUE_SPEC = `
title: Two batch sizes on SQS (test)
seed: "000 § AWS numbers"
kind: queue
topology: { queue: { emulator: sqs } }
repeat: 1
duration: 3
warmup: 0
flags: { target: sqs, key-size: 30, value-size: 10 }
consumer: { target: sqs, threads: 2 }
steps:
  - name: big
    label: Batch 200 x 10/s
    flags: { batch-size: 200, rate: 10 }
    seedFigures: { read: [77ms, 505ms], processing: [3ms, 34ms], e2e: [316ms, 1.2s] }
  - name: small
    label: Batch 100 x 20/s
    flags: { batch-size: 100, rate: 20 }
    latencyModel: { ReceiveMessage: [30ms, 60ms] }
finding: "the same updates in half the messages"
check: "big.messages_per_sec < small.messages_per_sec and big.missing == 0 and small.missing == 0"
`;

/**
 * Two capacity steps on nodes capped at different shares of a core (test/e2e/experiment-capacity.test.js):
 * small and quick, a search that reaches its ceiling rate in two runs of 2 s.
 */
export const CAPACITY_SPEC = `
title: Two local instances (test)
seed: "002 § m6g instance and side-by-side comparison of all 3 types"
topology: { local: { replicas: 0 } }
repeat: 1
duration: 2
warmup: 1
flags: { t: 1, c: 20 }
capacity: { start-rate: 5000, max-rate: 10000, slo-p99: 1000 }
forRate: 50000
steps:
  - { name: big, kind: capacity, label: half a core, cpus: 0.5, instance: { type: local-big, vcpu: 0.5, memoryGb: 1, hourlyPrice: 0.1 } }
  - { name: small, kind: capacity, label: a quarter, cpus: 0.25, instance: { type: local-small, vcpu: 0.25, memoryGb: 1, hourlyPrice: 0.02 } }
finding: "both hold the ceiling rate"
check: "big.max_rate == 10000 and small.max_rate == 10000"
`;

/** One cell of loading (test/e2e/experiment-kinds.test.js). */
export const LOAD_SPEC = `
title: One cell of loading (test)
seed: "001 § Benchmarking on AWS EC2"
kind: load
topology: { local: {} }
repeat: 6
deltaFile: { records: 3000, recordSize: 100 }
steps:
  - { name: one, label: noop 1x1, flags: { sink: noop, reader-threads: [1], connections: 1 } }
finding: "the reader loads the file"
check: "one.check_ok == 1 and one.best_records_per_sec > 1000 and one.cells == 1"
`;

/** Redis's operations timed (test/e2e/experiment-kinds.test.js). */
export const OPS_SPEC = `
title: Redis operations (test)
seed: "003 § Baseline; 004 § Performance measurements"
kind: ops
topology: { local: {} }
repeat: 1
duration: 1
warmup: 0
spectrum: redis.get
steps:
  - { name: one, flags: { only: redis } }
finding: "the first query costs more than a warm one"
check: "one.redis_get_first_ms > 0 and one.redis_get_warm_n > 100 and one.failed_ops == 0"
`;

/** A load step whose file the runner puts on the S3 emulator (test/integration/load-s3.test.js). */
export const S3_SPEC = `
title: From S3 (test)
seed: "001 § test"
kind: load
topology: { local: {} }
repeat: 1
deltaFile: { records: 30000, recordSize: 100 }
steps:
  - name: s3
    from: s3
    flags: { sink: memory, reader-threads: [1, 2], s3-connections: 2 }
check: "s3.check_ok == 1"
`;

/** A one-step spec of 6 trials (test/e2e/experiment-all.test.js runs two of them in sequence). */
export const oneStepSpec = (title, seed, check, checkTests) => `
title: ${title}
seed: "${seed}"
topology: { local: { replicas: 0 } }
repeat: 6
duration: 2
warmup: 1
flags: { q: 2000, t: 1 }
steps:
  - name: one
finding: "a finding"
check: "${check}"
${checkTests ? `checkTests: "${checkTests}"\n` : ''}`;

/** Two specs in one parent directory, as experiments/ holds them. */
export function twoSpecs() {
  const parent = tempDir('rqbench-exp-all-');
  const dirs = [
    ['a-first', oneStepSpec('First (test)', '001 § A', 'one.achieved > 0', 'that something was written; not how fast')],
    ['b-second', oneStepSpec('Second (test)', '002 § B', 'one.achieved < 0')],
  ].map(([name, yaml]) => {
    const dir = path.join(parent, name);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'experiment.yaml'), yaml);
    return dir;
  });
  return { parent, dirs };
}

/**
 * One produce step placed in the seed's regime on a node capped at a quarter of a core: the runner
 * probes the rate until the master's engine is at 60 % of its cap (test/e2e/experiment-regime.test.js).
 */
export const REGIME_SPEC = `
title: A sorted set in the seed's regime (test)
seed: "002 § Sorted set vs lists"
topology: { local: { replicas: 0, cpus: 0.25 } }
repeat: 1
duration: 3
warmup: 1
flags: { per-writer: 2000, t: 1 }
regime: { engine: 0.6 }
steps:
  - name: zset
finding: "the master works hard"
check: "zset.master_cpu > 0"
`;

/**
 * A timed step beside two counted ones (count:) with a trial each of their own (test/e2e/experiment-counted.test.js):
 * the check is on the counts, decided by the counter's rule on one trial a side.
 */
export const COUNTED_SPEC = `
title: Counted (test)
seed: "002 § Sorted set vs lists"
topology: { local: { replicas: 0 } }
repeat: 2
duration: 2
warmup: 1
flags: { t: 1, q: 2000, ttl: 30 }
steps:
  - { name: zset }
  - { name: zset_ir, count: { timeScale: 10 }, repeat: 1, duration: 1, warmup: 0, consumer: { readers: 1, p: 500 } }
  - { name: list_ir, flags: { sl: true }, count: { timeScale: 10 }, repeat: 1, duration: 1, warmup: 0 }
finding: "a list costs the master less than a sorted set"
check: "list_ir.master_ir_per_item < zset_ir.master_ir_per_item"
seedEffects: { "list_ir.master_ir_per_item < zset_ir.master_ir_per_item": -19.1 }
`;

/** Two kv steps on a local 3x1 cluster, uniform and Zipf keys at one rate (test/e2e/experiment-kinds.test.js). */
export const KV_SPEC = `
title: Uniform and Zipf keys on three shards (test)
seed: none
kind: kv
topology: { local: { cluster: true, masters: 3, replicas: 1 } }
repeat: 2
duration: 2
warmup: 1
flags: { mix: "get:90,set:10", keys: 1000, rate: 3000, t: 1, seed: 5 }
steps:
  - { name: uniform, label: uniform keys, flags: { key-dist: uniform } }
  - { name: zipf, label: Zipf 1.5 keys, flags: { key-dist: "zipf:1.5" } }
finding: "Zipf keys send more of the operations to one shard than uniform keys"
check: "zipf.top_shard_ops_share > uniform.top_shard_ops_share"
`;
