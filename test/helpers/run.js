/** Runs an rqbench entry point as a child process and collects what it printed. */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * @param {string} script path relative to the repo root, e.g. 'src/producer.js'
 * @param {string[]} args
 * @param {{ timeoutMs?: number, onSpawn?: (child: import('node:child_process').ChildProcess) => void }} [opts]
 * @returns {Promise<{ code: number|null, signal: string|null, stdout: string, stderr: string, ms: number }>}
 */
export function runNode(script, args, { timeoutMs = 60_000, onSpawn } = {}) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
    });
    child.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} ${args.join(' ')} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, ms: Date.now() - started });
    });
    onSpawn?.(child);
  });
}

export { ROOT };
