// Runs the queue publisher and consumer as child processes (--json into a fresh --out). No mocks.
import { spawn } from 'node:child_process';
import { ROOT, readRun, tempDir } from './producer-run.js';
import { runNode } from './run.js';

/**
 * `node src/producer.js --target …` with --json.
 * @param {string[]} args
 */
export async function publish(args) {
  const out = tempDir('rqbench-pub-');
  const r = await runNode('src/producer.js', [...args, '--json', '--out', out], { timeoutMs: 60_000 });
  return { ...r, ...readRun(out, r.stdout) };
}

/** Long polls of 1 s, unless the test gives its own. @param {string[]} args */
const shortPolls = (args) => (args.includes('--wait-seconds') ? [] : ['--wait-seconds', '1']);

/**
 * `node src/consumer.js --target …` with --json, --until-complete and short long polls.
 * @param {string[]} args
 * @param {{ onSpawn?: (child: import('node:child_process').ChildProcess) => void }} [opts]
 */
export async function consumeQueue(args, opts = {}) {
  const out = tempDir('rqbench-con-');
  const r = await runNode('src/consumer.js', [...shortPolls(args), ...args, '--json', '--out', out], { timeoutMs: 60_000, ...opts });
  return { ...r, ...readRun(out, r.stdout) };
}

/**
 * Starts a consumer and resolves with the child once its stderr matches `re`.
 * @param {string[]} args
 * @param {RegExp} re
 */
export function startConsumer(args, re) {
  const out = tempDir('rqbench-con-');
  const child = spawn(process.execPath, ['src/consumer.js', ...shortPolls(args), ...args, '--out', out], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no ${re} in: ${stderr}`));
    }, 30_000);
    child.stderr.on('data', (d) => {
      stderr += d;
      const m = stderr.match(re);
      if (m) {
        clearTimeout(timer);
        resolve({ child, match: m, out, stderr: () => stderr });
      }
    });
  });
}
