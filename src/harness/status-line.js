/**
 * The one-line live status on stderr, rewritten each second. It listens to a run's `second`
 * events (the run says what it has to say; this file only knows how to show it) and goes away
 * at its `end`.
 *
 * On a terminal the line is rewritten in place. Queue runs show it in logs as well (`everywhere`):
 * their users watch a long consumer through a pipe, and the `[Ns]` marks are how scripts (and the
 * tests) know a run is under way; there each line is padded so a shorter one covers a longer one.
 */
import { errStream } from '../command-io.js';

export class StatusLine {
  /**
   * @param {object} [p]
   * @param {number} [p.durationS] 0 or absent: open-ended, no "/Ns" in the mark
   * @param {boolean} [p.everywhere] write it when stderr is not a terminal too
   * @param {boolean} [p.keepLast] leave the last line on screen at the end (a newline) instead of clearing it
   * @param {{ write(text: string): unknown, isTTY?: boolean }} [p.stream] stderr (the process's, or an in-process command's)
   */
  constructor({ durationS = 0, everywhere = false, keepLast = false, stream = errStream() } = {}) {
    this.durationS = durationS;
    this.stream = stream;
    this.tty = !!stream.isTTY;
    this.on = this.tty || everywhere;
    this.keepLast = keepLast;
    this.shown = false;
  }

  /**
   * Shows the line for each second a run reports, until the run ends.
   * @param {import('node:events').EventEmitter} run emits `second` ({ index, text }) and `end`
   * @returns {this}
   */
  follow(run) {
    if (!this.on) return this;
    const onSecond = (/** @type {{ index: number, text: string }} */ s) => this.show(s.index, s.text);
    run.on('second', onSecond);
    run.once('end', () => {
      run.off('second', onSecond);
      this.end();
    });
    return this;
  }

  /**
   * @param {number} index the second (0-based)
   * @param {string} text what the command has to say about it
   */
  show(index, text) {
    if (!this.on) return;
    const line = `[${index + 1}s${this.durationS ? `/${this.durationS}s` : ''}] ${text}`;
    this.stream.write(this.tty ? `\r\x1b[K${line}` : `\r${line.padEnd(100)}`);
    this.shown = true;
  }

  end() {
    if (!this.on || !this.shown) return;
    this.stream.write(this.keepLast || !this.tty ? '\n' : '\r\x1b[K');
    this.shown = false;
  }
}
