/**
 * One command line, parsed and run: `rqbench <command> …` (runCommand) or a seed-named script as
 * the whole program (runScript: `node src/producer.js …`). The entry points call these with the
 * process's own streams; tests call them in-process with buffers and get the exit code back, the
 * way k6 runs its commands against a test state and benchstat its main against testdata.
 */
import yargs from 'yargs';
import { failHandler, markGiven, numberWords, onceOnly } from './usage-error.js';
import { CommandExit, exitCodeSet, withCommandIo, writeErr, writeOut } from './command-io.js';

const PROG = 'rqbench';
/** command name → its module, in the order --help lists them */
const MODULES = {
  produce: './commands/produce.js',
  consume: './commands/consume.js',
  local: './commands/local.js',
  report: './commands/report.js',
  compare: './commands/compare.js',
  chart: './commands/chart.js',
  ops: './commands/ops.js',
  load: './commands/load.js',
  kv: './commands/kv.js',
  capacity: './commands/capacity.js',
  experiment: './commands/experiment.js',
  'generate-deltas': './commands/generate-deltas.js',
  k8s: './commands/k8s.js',
};
const NAMES = Object.keys(MODULES);
/** the seed's script names → the command each one is */
const SCRIPTS = { 'producer.js': 'produce', 'consumer.js': 'consume' };

/**
 * @typedef {{ write(text: string): unknown }} Sink
 * @typedef {{ stdout: Sink, stderr: Sink }} Streams
 */

/**
 * `rqbench <argv…>`.
 * @param {string[]} argv the words after `rqbench`
 * @param {Streams} [streams] in-process: where stdout and stderr go (the process's own when left out)
 * @returns {Promise<number>} the exit code
 */
export function runCommand(argv, streams) {
  return run(argv, streams, async () => {
    const first = argv[0];
    // a word where a command goes that names none: say so (yargs would call it an unknown flag)
    if (first && !first.startsWith('-') && !NAMES.includes(first)) {
      writeErr(`${PROG}: unknown command ${JSON.stringify(first)} (commands: ${NAMES.join(', ')}; see ${PROG} --help)\n`);
      return 2;
    }
    // a command loads its own module only: loading all twelve (the AWS SDK, Vega, the Kubernetes
    // schemas…) was most of a short command's time; --help and --version without one load them all
    const wanted = first && NAMES.includes(first) ? [first] : NAMES;
    /** @type {Array<Record<string, any>>} */
    const commands = await Promise.all(wanted.map((n) => import(MODULES[/** @type {keyof typeof MODULES} */ (n)])));
    /** command name → its usage (`experiment <action> <dirs..>`) */
    const usages = Object.fromEntries(commands.map((c) => [c.command.split(' ')[0], c.command]));
    /** command name → flag → another way to give a value that starts with "-" (k8s: the producer flags after --) */
    const valueHints = Object.fromEntries(commands.map((c) => [c.command.split(' ')[0], c.valueHints ?? {}]));
    // produce and consume name themselves in their messages as the seed's scripts do: given here
    const withProg = (c) =>
      ['produce', 'consume'].includes(c.command.split(' ')[0])
        ? { ...c, handler: (a) => c.handler(a, `${PROG} ${c.command.split(' ')[0]}`) }
        : c;
    return (
      yargs(argv)
        .scriptName(PROG)
        // before the commands: a middleware added after them does not run for them
        .middleware(onceOnly(`${PROG} ${first}`), true)
        .middleware(numberWords(`${PROG} ${first}`), true)
        .middleware(markGiven, true)
        .command(commands.map(withProg))
        .demandCommand(1, `a command is needed: ${NAMES.slice(0, -1).join(', ')} or ${NAMES.at(-1)} (see --help)`)
        .strict()
        .fail(failHandler(PROG, usages, valueHints))
        .help()
        .version()
    );
  });
}

/**
 * A seed-named script as the whole program: `node src/producer.js <argv…>`.
 * @param {keyof typeof SCRIPTS} script
 * @param {string[]} argv the words after the script's name
 * @param {Streams} [streams]
 * @returns {Promise<number>}
 */
export function runScript(script, argv, streams) {
  return run(argv, streams, async () => {
    const name = SCRIPTS[script];
    const commandModule = await import(MODULES[name]);
    return yargs(argv)
      .scriptName(`node src/${script}`)
      .command({ ...commandModule, command: '$0', handler: (a) => commandModule.handler(a, script) })
      .middleware(onceOnly(script), true)
      .middleware(numberWords(script), true)
      .middleware(markGiven, true)
      .strict()
      .fail(failHandler(script))
      .help()
      .version(false);
  });
}

/**
 * Parse and run; --help and --version print through the command's stdout (a parse callback, so
 * yargs neither writes to the console nor exits the process).
 * @param {string[]} argv
 * @param {Streams|undefined} streams
 * @param {() => Promise<any>} build a yargs instance, or an exit code where none is needed
 * @returns {Promise<number>}
 */
function run(argv, streams, build) {
  const go = async () => {
    try {
      const y = await build();
      if (typeof y === 'number') return y;
      await y
        .wrap(Math.min(110, process.stdout.columns || 110))
        .parseAsync(argv, {}, (_e, _a, output) => {
          if (output) writeOut(`${output}\n`);
        })
        .catch((/** @type {unknown} */ e) => {
          if (e instanceof CommandExit) throw e;
          // an error a handler threw (a --metrics-port in use…): with a parse callback yargs hands it
          // back instead of giving it to .fail(); give it there, as yargs does without one: one line, exit 2
          y.getInternalMethods().getUsageInstance().fail(null, e);
        });
      return exitCodeSet() ?? 0;
    } catch (e) {
      if (e instanceof CommandExit) return e.code;
      throw e;
    }
  };
  if (!streams) return go();
  return withCommandIo({ ...streams, argv, exitCode: undefined }, go);
}
