/**
 * `--help` for a bench: its header comment is its manual, printed as it is written, and nothing
 * runs (a bench takes minutes; asking how to use it must not start one).
 */
import fs from 'node:fs';

/**
 * Prints the header comment of the bench at `url` and exits 0 when --help is among the arguments.
 * @param {string} url the bench's import.meta.url
 * @param {string[]} [argv]
 */
export function helpFromHeader(url, argv = process.argv.slice(2)) {
  if (!argv.includes('--help') && !argv.includes('-h')) return;
  const src = fs.readFileSync(new URL(url), 'utf8');
  const header = /\/\*\*\n([\s\S]*?)\*\//.exec(src)?.[1] ?? '';
  process.stdout.write(header.replace(/^ \* ?/gm, ''));
  process.exit(0);
}
