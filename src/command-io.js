/**
 * Where a command's words go and how it ends. Run as the program (cli.js, producer.js,
 * consumer.js), that is the process's own stdout, stderr, argv and exit code; run in-process by
 * runCommand (tests, as k6 runs its commands against a test state), it is the caller's buffers and
 * an exit code handed back, with no process.exit. The context follows the command's async calls
 * (AsyncLocalStorage), so two commands run at once in one process keep their words apart.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { redactString } from './secrets.js';

/**
 * @typedef {object} CommandIo
 * @property {{ write(text: string): unknown }} stdout
 * @property {{ write(text: string): unknown }} stderr
 * @property {string[]} argv the words after the program's name
 * @property {number|undefined} exitCode what the command set
 */

/** @type {AsyncLocalStorage<CommandIo>} */
const context = new AsyncLocalStorage();

/** An exit asked for in the middle of an in-process command: runCommand catches it and returns its code. */
export class CommandExit extends Error {
  /** @param {number} code */
  constructor(code) {
    super(`exit ${code}`);
    this.code = code;
  }
}

/** @returns {CommandIo|undefined} the in-process command's context, if one is running here */
const inProcess = () => context.getStore();

/** @param {string} text */
export function writeOut(text) {
  (inProcess()?.stdout ?? process.stdout).write(text);
}

/** @param {string} text */
export function writeErr(text) {
  // every message, whatever check made it, quotes a secret masked (a refusal may quote the flag it refuses)
  (inProcess()?.stderr ?? process.stderr).write(redactString(text));
}

/** The stream a status line redraws on: the process's stderr, or the in-process caller's. */
export function errStream() {
  return inProcess()?.stderr ?? process.stderr;
}

/** @returns {string[]} the words after the program's name */
export function commandArgv() {
  return inProcess()?.argv ?? process.argv.slice(2);
}

/**
 * The code the command ends with, once it has nothing left to do.
 * @param {number} code
 */
export function setExitCode(code) {
  const io = inProcess();
  if (io) io.exitCode = code;
  else process.exitCode = code;
}

/** @returns {number|undefined} the code set so far */
export function exitCodeSet() {
  const io = inProcess();
  return io ? io.exitCode : /** @type {number|undefined} */ (process.exitCode);
}

/**
 * End the command now (bad input found where no error can be thrown to the caller: a yargs
 * middleware or .fail()). As the program: process.exit. In-process: CommandExit, which
 * runCommand turns into the returned code.
 * @param {number} code
 * @returns {never}
 */
export function exitNow(code) {
  if (!inProcess()) process.exit(code);
  throw new CommandExit(code);
}

/**
 * Run `fn` with the command's words going to `io`.
 * @template T
 * @param {CommandIo} io
 * @param {() => Promise<T>} fn
 * @returns {Promise<T>}
 */
export function withCommandIo(io, fn) {
  return context.run(io, fn);
}
