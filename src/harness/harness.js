/**
 * One run of any kind, around the work it does: its run directory and manifest.json (one shape,
 * with the run's `kind`), how it stops (Ctrl-C, SIGTERM, a target that went away, a disk that
 * filled up: one `stop` event, the first reason kept), its seconds (one `second` event each, which
 * the status line and the live metrics listen to), and its summary: saved at the end with the exit code settled, or
 * kept as the run goes (a grid's finished cells) so an interrupt loses nothing already done, and
 * never a run directory left without one.
 *
 * The work — workers, a publisher, a grid, single operations — stays with its command; it listens
 * to `stop` and tells the run what it measured.
 */
import { EventEmitter } from 'node:events';
import path from 'node:path';
import { createRunDir, isFsError, outputError, placeholderSummary, saveSummary, writeJson } from '../record/run-dir.js';
import { runManifest } from './manifest.js';
import { NoiseSentinel } from '../measure/host-noise.js';
import { noiseBrief, noiseLine } from '../runs/common/noise-md.js';
import { watchSignals } from './signals.js';
import { StatusLine } from './status-line.js';
import { writeErr } from '../command-io.js';

/** @typedef {import('./manifest.js').RunKind} RunKind */
/** @typedef {'SIGINT'|'SIGTERM'} StopSignal */
/** @typedef {{ dir: string, summary: object, md: string, exitCode: number, failure?: string }} RunResult */

export class Run extends EventEmitter {
  /**
   * Signals are watched from here on: a Ctrl-C during the setup stops the run too.
   * @param {object} p
   * @param {RunKind} p.kind
   * @param {string} p.command
   * @param {Readonly<Record<string, any>>} p.a the run's plan (out, quiet, runId), frozen
   * @param {string|null} [p.leaveNote] what summary.md says after a second Ctrl-C when nothing was summarized
   *   (besides the files of what was measured, which it names where they are)
   * @param {{ follow: (run: Run) => void }|null} [p.live] live metrics (--metrics-port): they follow the run's seconds
   */
  constructor({ kind, command, a, leaveNote = null, live = null }) {
    super();
    this.kind = kind;
    this.command = command;
    this.a = a;
    this.leaveNote = leaveNote;
    /** @type {string|null} */
    this.dir = null;
    /** @type {Record<string, any>|null} */
    this.manifest = null;
    /** @type {string|null} why the run stopped early: a signal, or its own decision ('unreachable', 'output') */
    this.stoppedBy = null;
    /** @type {string|null} the line it was stopped with, when there is one */
    this.stopLine = null;
    /** @type {StopSignal|false} */
    this.interrupted = false;
    /** @type {{ summary: Record<string, any>, md: string }|null} the summary so far (saved as the run goes) */
    this.kept = null;
    this.summarized = false;
    /** @type {(() => { summary: Record<string, any>, md: string })|null} the command's summary of what it measured so far (sync), for a second Ctrl-C */
    this.lastWords = null;
    /** @type {NoiseSentinel|null} */
    this.noise = null;
    /** @type {import('../measure/host-noise.js').NoiseRecord|null} */
    this.noiseRecord = null;
    this.signals = watchSignals({
      onFirst: (sig) => {
        this.interrupted = sig;
        this.stop(sig);
      },
      onSecond: (sig) => this.#leave(sig),
    });
    live?.follow(this);
  }

  /**
   * The run directory and its manifest. A directory that cannot be made or written is the
   * one-line output error (exit 1); one that got made keeps a placeholder summary.
   * @param {object} p
   * @param {string} p.name
   * @param {number} p.t0 epoch ms of second 0
   * @param {string} p.description
   * @param {Record<string, unknown>} [p.facts]
   * @param {string[]} [p.packages]
   * @param {Record<string, unknown>} [p.versions]
   * @returns {Record<string, any>} the manifest
   */
  open({ name, t0, description, facts, packages, versions }) {
    try {
      this.dir = createRunDir(this.a.out, name);
      this.manifest = runManifest({
        kind: this.kind,
        command: this.command,
        a: this.a,
        dir: this.dir,
        t0,
        description,
        facts,
        packages,
        versions,
      });
      writeJson(path.join(this.dir, 'manifest.json'), this.manifest);
      // from here on the host's CPU outside the run is watched, each second
      this.noise = new NoiseSentinel().start();
      return this.manifest;
    } catch (e) {
      const failed = isFsError(e) ? outputError(/** @type {NodeJS.ErrnoException} */ (e), this.dir ?? this.a.out) : e;
      if (this.dir) placeholderSummary(this.dir, { interrupted: false, failed: failed.message });
      throw failed;
    }
  }

  /**
   * Shows the status line (unless --quiet) for this run's seconds.
   * @param {ConstructorParameters<typeof StatusLine>[0]} [opts]
   */
  showStatus(opts) {
    if (!this.a.quiet) new StatusLine(opts).follow(this);
    return this;
  }

  /**
   * The run must stop: listeners end their work. The first reason is the one the run keeps;
   * a signal after another reason still marks the run interrupted.
   * @param {string} why 'SIGINT', 'SIGTERM', 'unreachable', 'output', …
   * @param {{ line?: string, drainMs?: number }} [detail]
   */
  stop(why, detail = {}) {
    if (!this.stoppedBy) {
      this.stoppedBy = why;
      this.stopLine = detail.line ?? null;
    }
    this.emit('stop', why, detail);
  }

  /** @returns {boolean} */
  get stopping() {
    return this.stoppedBy !== null;
  }

  /**
   * One second of the run is over (the status line shows `text`; the live metrics take `data`:
   * the second as the run directory records it).
   * @param {number} index
   * @param {string} text
   * @param {{ iv?: object, cpu?: object[], cell?: object }} [data]
   */
  second(index, text, data = {}) {
    this.emit('second', { index, text, ...data });
  }

  /**
   * A line on stderr (unless --quiet, or `always`), through the status line's space.
   * @param {string} text
   * @param {{ always?: boolean }} [o]
   */
  say(text, { always = false } = {}) {
    if (!this.a.quiet || always) writeErr(`${text}\n`);
  }

  /**
   * The summary so far, written now: a run that is cut short later still has it.
   * @param {Record<string, any>} summary
   * @param {string} md
   */
  keep(summary, md) {
    this.kept = { summary, md };
    if (this.dir) saveSummary(this.dir, summary, md);
  }

  /**
   * The summary, saved; the exit code settled: a run whose directory could not be written, or
   * that ended with a `failure` line, exits 1 at least (an interrupt keeps 130/143). A summary that
   * could not be saved is still printed: `restate` makes it again with the failed save among its
   * outcome's problems, so that what is printed names it (a kind whose summary has no outcome
   * passes none, and the failure line alone says it).
   * @param {Record<string, any>} summary
   * @param {string} md
   * @param {{ exitCode: number, writeError?: NodeJS.ErrnoException|null, failure?: string,
   *   restate?: (unsaved: string) => { summary: Record<string, any>, md: string } }} end
   * @returns {RunResult}
   */
  save(summary, md, { exitCode, writeError = null, failure, restate }) {
    const dir = /** @type {string} */ (this.dir);
    const noise = this.#noiseDone();
    /** @param {{ summary: Record<string, any>, md: string }} s */
    const withNoise = (s) =>
      noise ? { summary: { ...s.summary, noise: noiseBrief(noise) }, md: `${s.md.trimEnd()}\n\n${noiseLine(noise)}\n` } : s;
    ({ summary, md } = withNoise({ summary, md }));
    const saved = saveSummary(dir, summary, md, writeError);
    // from here the summary is written (or cannot be): no placeholder may replace it
    this.summarized = true;
    if (saved.unsaved && restate) ({ summary, md } = withNoise(restate(saved.unsaved)));
    const why = saved.failure ?? failure;
    return { dir, summary, md, exitCode: why ? Math.max(exitCode, 1) : exitCode, failure: why };
  }

  /**
   * The run failed before it could be summarized: a placeholder summary says so.
   * @param {unknown} e
   */
  failed(e) {
    if (!this.dir || this.summarized) return;
    const failed = String(/** @type {any} */ (e)?.message ?? e).split('\n')[0];
    this.#noiseDone();
    // what was kept stays (finished cells are still finished), marked with the failure
    if (this.kept)
      saveSummary(this.dir, { ...this.kept.summary, interrupted: this.interrupted, failed }, `${this.kept.md}\n**Failed**: ${failed}.\n`);
    else placeholderSummary(this.dir, { interrupted: this.interrupted, failed });
  }

  /**
   * The noise sentinel stopped (once: the run's end, whichever of close, save or a failure comes
   * first), its record (every second) added to manifest.json; null when the run never opened its directory.
   * @returns {import('../measure/host-noise.js').NoiseRecord|null}
   */
  #noiseDone() {
    if (this.noiseRecord) return this.noiseRecord;
    if (!this.noise || !this.dir || !this.manifest) return null;
    const noise = this.noise.stop();
    this.noise = null;
    this.noiseRecord = noise;
    this.manifest = { ...this.manifest, noise };
    try {
      writeJson(path.join(this.dir, 'manifest.json'), this.manifest);
    } catch {
      // an unwritable directory is the summary's to report
    }
    return noise;
  }

  /** The run is over: signals go back to their defaults, the status line goes. */
  close() {
    this.#noiseDone();
    this.signals.off();
    this.emit('end');
  }

  /** @returns {{ summary: Record<string, any>, md: string }|null} lastWords' summary; null when there is none or it failed */
  #sofar() {
    try {
      return this.lastWords?.() ?? null;
    } catch {
      // a summary that cannot be made leaves the placeholder: the files still hold what was measured
      return null;
    }
  }

  /**
   * A second Ctrl-C: leave at once, but never with a run directory that has no summary.
   * @param {StopSignal} sig
   */
  #leave(sig) {
    this.emit('end');
    if (!this.dir || this.summarized) return;
    const note = `a second ${sig} ended the run at once`;
    this.#noiseDone();
    const sofar = this.#sofar();
    if (sofar) {
      // the seconds measured so far, summarized by the command: what it did not get to do, it says
      saveSummary(this.dir, { ...sofar.summary, interrupted: sig, note }, `${sofar.md.trimEnd()}\n\n**Interrupted** (${sig}): ${note}.\n`);
    } else if (this.kept) {
      // what was kept is whole (finished cells): it stays, marked interrupted
      saveSummary(this.dir, { ...this.kept.summary, interrupted: sig, note }, `${this.kept.md}\n**Interrupted** (${sig}): ${note}.\n`);
    } else {
      placeholderSummary(this.dir, { interrupted: sig, note: this.leaveNote ? `${note}: ${this.leaveNote}.` : `${note}.` });
    }
    // the last word even in a hurry: the outcome and where it is (--quiet too: stdout stays empty)
    this.say(`Interrupted: ${note}; what it measured so far is in ${this.dir}`, { always: true });
  }
}
