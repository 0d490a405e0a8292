// What the queue kind says of a consumer that fell behind and of the latency model's draws
// (seed 000): it does not credit the seed with an applied rate it never gave, and a p999 of fewer
// than 1,000 draws is the largest draw, named so.
import { describe, expect, it } from 'vitest';
import { heldWords, queueOutOfRegime, queueResults } from '../../src/experiments/kinds/queue-results.js';

describe('a consumer that fell behind', () => {
  it('is said to have fallen behind over the run; the seed gives no applied rate', () => {
    const w = queueOutOfRegime({}, { kept_up: 0.924 });
    expect(w).toBe(
      "its consumer applied messages at 92.4% of the publisher's rate (median, over the span from its first to its last) and fell behind over the run (the seed gives no applied rate)",
    );
    expect(w).not.toContain("the seed's kept up");
  });
});

describe('what the latency model held', () => {
  it('under 1,000 draws: the largest, not a p999', () => {
    const w = heldWords({ calls: 191, delayMs: { count: 191, p50: 64, p999: 275, max: 275 } });
    expect(w).toBe('191 calls held p50 64ms, the largest 275ms');
    expect(w).not.toContain('p999');
  });

  it('1,000 draws or more: p999, flagged while fewer than 10 lie beyond it', () => {
    expect(heldWords({ calls: 1680, delayMs: { count: 1680, p50: 77, p999: 440, max: 470 } })).toBe(
      '1,680 calls held p50 77ms, p999 440ms ⚠',
    );
    expect(heldWords({ calls: 20000, delayMs: { count: 20000, p50: 77, p999: 505, max: 900 } })).toBe(
      '20,000 calls held p50 77ms, p999 505ms',
    );
  });
});

describe('a step under the latency model, as RESULTS.md gives it', async () => {
  const stat = (p50, p999, count) => ({ p50, p999, count });
  const step = /** @type {any} */ ({
    step: {
      label: 'b1000m',
      flags: { rate: 45, 'batch-size': 1000 },
      consumer: { target: 'sqs', threads: 4 },
      latencyModel: { ReceiveMessage: { p50Ms: 77, p999Ms: 505 }, DeleteMessageBatch: { p50Ms: 77, p999Ms: 505 } },
    },
    r: {
      complete: true,
      consumer: {
        latency: { e2eSent: stat(300, 1200, 360), e2e: stat(300, 1200, 360), read: stat(77, 500, 165), processing: stat(3, 30, 360) },
        messagesPerSec: 45,
        rowsPerSec: 45000,
        averageBatchSize: 1000,
        threads: 4,
        nothingLost: { ok: true, missing: 0, duplicates: 0 },
      },
      meta: {
        cpu: {},
        latencyModel: {
          drawn: {
            ReceiveMessage: { calls: 191, delayMs: { count: 191, p50: 64, p999: 275, max: 275 } },
            DeleteMessageBatch: { calls: 166, delayMs: { count: 166, p50: 78, p999: 439, max: 439 } },
          },
        },
      },
    },
  });
  const md = (await queueResults(/** @type {any} */ ({}), [step])).join('\n');

  it("says the model follows AWS only where a percentile is the seed's", () => {
    expect(md).toContain(
      "Stand-in: the model for AWS's own latency; it follows AWS only where a named percentile is the seed's, and the others are assumed.",
    );
    expect(md).not.toContain('which it copies only in the actions and percentiles named');
    expect(md).toContain('ReceiveMessage 191 calls held p50 64ms, the largest 275ms');
  });

  it('says what the receive calls of the flag note are', () => {
    expect(md).toContain('(360 messages, 165 timed receive calls that returned messages)');
  });
});
