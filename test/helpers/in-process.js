// Runs an rqbench command in this process (src/run-command.js) and collects what it printed and
// its exit code, in the shape runNode gives for a child process: a refusal checked this way costs
// milliseconds, not a Node start-up. test/integration/cli-contract.test.js holds the real
// processes to the same one line and exit code.
import { runCommand, runScript } from '../../src/run-command.js';

/**
 * @typedef {{ code: number, signal: null, stdout: string, stderr: string, ms: number }} InProcessRun
 */

/** A stream that keeps what is written to it. */
function buffer() {
  let text = '';
  return {
    write: (/** @type {string} */ t) => {
      text += t;
      return true;
    },
    text: () => text,
  };
}

/**
 * @param {(streams: { stdout: { write(t: string): unknown }, stderr: { write(t: string): unknown } }) => Promise<number>} go
 * @returns {Promise<InProcessRun>}
 */
async function collect(go) {
  const stdout = buffer();
  const stderr = buffer();
  const started = Date.now();
  const code = await go({ stdout, stderr });
  return { code, signal: null, stdout: stdout.text(), stderr: stderr.text(), ms: Date.now() - started };
}

/**
 * `rqbench <argv…>`, in this process.
 * @param {string[]} argv
 */
export const rqbench = (argv) => collect((streams) => runCommand(argv, streams));

/**
 * `node src/<script> <argv…>` (the seed's names), in this process.
 * @param {'producer.js'|'consumer.js'} script
 * @param {string[]} argv
 */
export const seedScript = (script, argv) => collect((streams) => runScript(script, argv, streams));

/**
 * A port no test server is on, for a check that must come before any connection: the unit tier
 * cannot bind one to be sure (it listens on nothing), and port 1 (tcpmux) is not served here. A
 * check that slips through then fails to connect, exit 1, never the exit 2 a refusal asserts.
 */
export const DEAD_PORT = '1';
