/**
 * Ctrl-C and SIGTERM for a run: the first one asks the run to stop (it flushes what it measured
 * and writes its summary, marked interrupted); a second one leaves at once, because a user who
 * presses Ctrl-C twice does not want to wait for a drain. The exit code says which signal it
 * was (130 / 143), whatever else happened.
 */
import { signalExitCode } from '../record/outcome.js';

/** @typedef {'SIGINT'|'SIGTERM'} StopSignal */

/**
 * A handler that says its last words (sync) and leaves with the signal's exit code, whatever they threw.
 * @param {(sig: StopSignal) => void} say
 * @returns {(sig: StopSignal) => never}
 */
function leaving(say) {
  return (sig) => {
    try {
      say(sig);
    } finally {
      process.exit(signalExitCode(sig));
    }
  };
}

/**
 * @param {object} p
 * @param {(sig: StopSignal) => void} p.onFirst
 * @param {(sig: StopSignal) => void} p.onSecond last words before the process exits (sync only)
 * @returns {{ off: () => void }}
 */
export function watchSignals({ onFirst, onSecond }) {
  let seen = false;
  const second = leaving(onSecond);
  /** @param {StopSignal} sig */
  const handler = (sig) => {
    if (seen) second(sig);
    seen = true;
    onFirst(sig);
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return {
    off: () => {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
      // a run that was asked to stop is on its way out: a second signal landing after its end
      // (while the process exits) must still leave with 130/143, not die by the signal's default
      if (seen) {
        const leave = leaving(() => {});
        process.once('SIGINT', leave);
        process.once('SIGTERM', leave);
      }
    },
  };
}

/**
 * A last step after a run's end (--verify's read-back): a Ctrl-C or SIGTERM during it leaves at
 * once, as a second one does, once `onSignal` (sync) has said in the summary what did not finish.
 * @template T
 * @param {(sig: StopSignal) => void} onSignal
 * @param {() => Promise<T>} step
 * @returns {Promise<T>}
 */
export async function leavingOn(onSignal, step) {
  const handler = leaving(onSignal);
  // first in line: a run's own "leave" (set when it was stopped) would exit before the summary says so
  process.prependListener('SIGINT', handler);
  process.prependListener('SIGTERM', handler);
  try {
    return await step();
  } finally {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  }
}
