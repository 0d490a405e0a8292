/**
 * A consumer whose data-model flags do not match the producer's reads an index that is not
 * there: cardinality 0 every cycle, every cycle "finished", nothing to see. That is said once,
 * on stderr as it happens and in the summary, naming the keys read and the flags to check.
 */

/** Cycles (after the warm-up, none failed) that all found the index empty before the warning. */
const CYCLES_TO_WARN = 3;

import { MODEL_FLAGS } from './stores/registry.js';
import { writeErr } from '../../command-io.js';

const FLAGS_TO_CHECK = [...MODEL_FLAGS, 'ns', 'same-slot', 'actual-value'].map((f) => `--${f}`).join(', ');

export class EmptyIndexWatch {
  /**
   * @param {{ names: string[], mode: string, target: string, quiet: boolean, warmupS: number }} p
   */
  constructor({ names, mode, target, quiet, warmupS }) {
    this.names = names;
    this.mode = mode;
    this.target = target;
    this.quiet = quiet;
    this.warmupS = warmupS;
    this.emptyCycles = 0;
    this.readSomething = false;
    this.warned = null;
  }

  /** @param {{ index: number, counters: Record<string, number> }} iv one merged second */
  second(iv) {
    const c = iv.counters;
    if ((c.cycles || 0) > (c.emptyCycles || 0) + (c.failedCycles || 0)) this.readSomething = true;
    if (iv.index < this.warmupS || this.readSomething || this.warned) return;
    this.emptyCycles += c.emptyCycles || 0;
    if (this.emptyCycles < CYCLES_TO_WARN) return;
    this.warned = this.#text(`the first ${this.emptyCycles} cycles`);
    writeErr(`${this.quiet ? '' : '\n'}rqbench: warning: ${this.warned}\n`);
  }

  /**
   * The summary's warning, when the index was empty in the first cycles or in every one.
   * @param {{ windowCounts: Record<string, number> }} s
   */
  warning(s) {
    const w = s.windowCounts;
    if (this.warned) return this.warned;
    if (w.cycles && w.emptyCycles === w.cycles) return this.#text('every cycle');
    return null;
  }

  #text(which) {
    const keys = this.names.slice(0, 3).join(', ') + (this.names.length > 3 ? `, … (${this.names.length} keys)` : '');
    return `${which} found the index empty or missing (${keys} on ${this.target}, data model ${this.mode}): is a producer writing there with the same data-model flags (${FLAGS_TO_CHECK})?`;
  }
}
