/**
 * What a producer or consumer run adds when it counted Redis's instructions
 * (--count-instructions): summary.json's `instructions` and summary.md's section, from the
 * counter's dumps and the items of the same window; and, under --time-scale, the scale itself. Kept here so that run-producer.js and
 * run-consumer.js each change by a line or two.
 */
import { instructionsSummary } from '../../runs/common/instructions-summary.js';
import { instructionsMd } from '../../runs/common/instructions-md.js';

/** @param {number} k */
function timeScaleLine(k) {
  return (
    `**Time scale ${k}:** the run was ${k} times slower than its flags say: the period, warm-up, duration and every TTL were ${k} times longer, ` +
    `the rates above ${k} times lower, and the data model's clock (scores, per-minute keys, purges) ran ${k} times slower, so that its commands and structure sizes were those of the undilated run.`
  );
}

/**
 * The hooks run-workers.js calls at the window's edges: the counter's zero and dump. The zero comes
 * half a send's spacing early (at most a second), so that the send due at the window's first instant
 * is counted whole, not raced.
 * @param {import('../../local/callgrind.js').InstructionCounter|null} counter
 * @param {number} spacingMs time between two sends of the run (dilated)
 */
export function windowHooksOf(counter, spacingMs) {
  if (!counter) return {};
  return { windowHooks: { start: () => counter.start(), end: () => counter.end(), leadMs: Math.min(spacingMs / 2, 1000) } };
}

/**
 * @param {object} p
 * @param {Record<string, any>} p.summary gains `instructions`
 * @param {string} p.md summary.md so far
 * @param {import('../../local/callgrind.js').NodeCount[]|null} p.counted the counter's result (null: nothing counted)
 * @param {import('../../record/run-recorder.js').SecondRow[]} p.rows the run's seconds
 * @param {number} p.warmupS
 * @param {number} p.endS the window's end
 * @param {string} p.counter the counter of an item in a second: acked (producer) or items (consumer)
 * @param {string} p.perWhat 'item acknowledged', 'item read'
 * @param {number} [p.timeScale]
 * @returns {string} summary.md with the section
 */
export function addInstructions({ summary, md, counted, rows, warmupS, endS, counter, perWhat, timeScale = 1 }) {
  if (timeScale !== 1) {
    summary.timeScale = timeScale;
    md = `${md.trimEnd()}\n\n${timeScaleLine(timeScale)}\n`;
  }
  if (!counted) return md;
  const items = rows.filter((r) => r.index >= warmupS && r.index < endS).reduce((n, r) => n + (r.counters[counter] || 0), 0);
  summary.instructions = instructionsSummary({ nodes: counted, items, timeScale });
  return `${md.trimEnd()}\n\n${instructionsMd(summary.instructions, perWhat).join('\n').trimEnd()}\n`;
}
