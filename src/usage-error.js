import { commandArgv, exitNow, writeErr } from './command-io.js';
import { isSecretName } from './secrets.js';

/**
 * Bad input ends in one line naming the flag and what it accepts, exit code 2, and nothing
 * written: every check runs before a connection is made or a directory created.
 */
export class UsageError extends Error {}

/**
 * @param {string} flag e.g. '-q' or '--ns'
 * @param {string} accepted e.g. 'an integer >= 1'
 * @param {unknown} [got]
 */
export function bad(flag, accepted, got) {
  const echo = got === undefined ? '' : ` (got ${typeof got === 'string' ? shown(got) : printable(String(got))})`;
  return new UsageError(`${flag} must be ${accepted}${echo}`);
}

/**
 * A value quoted back in an error line: JSON-quoted, with every control character escaped
 * (JSON leaves DEL and the C1 range as they are, and a terminal acts on them).
 * @param {string} s
 */
export function shown(s) {
  return printable(JSON.stringify(s));
}

/**
 * A line safe to print: control characters (an escape sequence in a name, a stray CR) become
 * \xNN, so what is echoed is what was typed, and the terminal does not act on it.
 * @param {string} s
 */
export function printable(s) {
  // eslint-disable-next-line no-control-regex -- matching control characters is the point: they are escaped
  return s.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
}

/**
 * "-x needs a value", and when the word after it is a value that starts with "-" (yargs reads
 * `--flags '--url …'` as --flags and then a flag of its own), how to give such a value: with `=`,
 * or the way the command says (`hints`: k8s takes the producer flags after `--` too). A value is
 * told by its spaces (no flag has one), or by the flag taking flags (`hints`): a value left out
 * before another flag (`--url --cluster`) is only said to be missing.
 * @param {string} name as yargs names it, without dashes
 * @param {Record<string, string>} hints flag → another way to give its value
 */
function needsValue(name, hints) {
  const flag = name.length === 1 ? `-${name}` : `--${name}`;
  const args = commandArgv();
  const end = args.indexOf('--');
  const words = end < 0 ? args : args.slice(0, end);
  const next = words[words.indexOf(flag) + 1];
  if (!words.includes(flag) || next === undefined || !next.startsWith('-')) return `${flag} needs a value`;
  if (!/\s/.test(next) && !hints[name]) return `${flag} needs a value`;
  const other = hints[name] ? `, or ${hints[name]}` : '';
  return `${flag} needs a value (the next word, ${shown(next)}, starts with "-" and is read as a flag): give it as ${flag}=${shown(next)}${other}`;
}

/**
 * yargs .fail() handler: one line on stderr, exit 2.
 * @param {string} prog e.g. 'rqbench produce'
 * @param {Record<string, string>} [usages] command → its usage (`experiment <action> <dirs..>`), for a missing argument
 * @param {Record<string, Record<string, string>>} [valueHints] command → flag → another way to give a value
 *   that starts with "-" (a command module's `valueHints`)
 */
export function failHandler(prog, usages = {}, valueHints = {}) {
  return (msg, err) => {
    let line = printable(choicesLine(err?.message || msg || '') ?? (err?.message || msg || 'invalid arguments').split('\n')[0]);
    line = line.replace(
      /^Unknown arguments?: (.*)$/,
      (_m, names) =>
        `unknown flag ${names
          .split(', ')
          .map((n) => (n.length === 1 ? `-${n}` : `--${n}`))
          .join(', ')} (see --help for the accepted flags)`,
    );
    line = line.replace(/^Not enough arguments following: (\S+)/, (_m, n) => needsValue(n, valueHints[commandArgv()[0]] ?? {}));
    line = line.replace(/^Not enough non-option arguments: .*$/, () => {
      const cmd = commandArgv()[0];
      return usages[cmd]
        ? `${cmd} needs more arguments: ${prog} ${usages[cmd]} (see ${prog} ${cmd} --help)`
        : 'arguments are missing (see --help)';
    });
    writeErr(`${prog}: ${line}\n`);
    exitNow(2);
  };
}

/**
 * yargs's two-line refusal of a value outside `choices`, as rqbench says it: `--delete-when must be
 * one of after-apply, before-apply (got "never")` (a positional argument by its name alone).
 * @param {string} msg
 * @param {string[]} [argv] the words parsed (default: the command's)
 * @returns {string|null}
 */
export function choicesLine(msg, argv = commandArgv()) {
  const m = /^Invalid values:\s*Argument: ([\w-]+), Given: ("[^"]*"|\S+), Choices: (.*)$/s.exec(msg.trim());
  if (!m) return null;
  const [, name, given, choices] = m;
  const asFlag = argv.some((w) => w === `--${name}` || w.startsWith(`--${name}=`) || w === `-${name}`);
  const shown = asFlag ? (name.length === 1 ? `-${name}` : `--${name}`) : name;
  return `${shown} must be one of ${choices.replace(/"/g, '').split(/,\s*/).join(', ')} (got ${given})`;
}

/** Integer check helper. */
export function intIn(v, flag, min, max = Number.MAX_SAFE_INTEGER) {
  if (!Number.isInteger(v) || v < min || v > max) {
    throw bad(flag, max === Number.MAX_SAFE_INTEGER ? `an integer >= ${min}` : `an integer from ${min} to ${max}`, v);
  }
}

/**
 * Every name a command's flags go by (each alias, the kebab and camelCase forms) → one name per
 * flag, its longest in camelCase (-q and --quantity → quantity).
 * @param {any} o yargs getOptions()
 * @returns {Map<string, string>}
 */
function canonicalNames(o) {
  const camel = (k) => k.replace(/-([a-z])/g, (_m, c) => c.toUpperCase());
  const names = new Map();
  for (const key of Object.keys(o.key ?? {})) names.set(key, camel(key));
  // an alias is a key of its own too, listed one way only: group each key with its aliases
  for (const [key, aliases] of Object.entries(o.alias ?? {})) {
    const group = [key, ...aliases];
    const long = camel(group.reduce((x, y) => (y.length > x.length ? y : x)));
    for (const n of group) names.set(n, long).set(camel(n), long);
  }
  return names;
}

/**
 * The flags typed on the command line, each as it was typed and by the name it stands for.
 * @param {Map<string, string>} names canonicalNames()
 * @returns {Array<{ typed: string, name: string }>}
 */
function typedFlags(names) {
  const args = commandArgv();
  const end = args.indexOf('--');
  const out = [];
  for (const t of end < 0 ? args : args.slice(0, end)) {
    const flag = t.split('=')[0];
    if (/^--no-./.test(flag) && names.has(flag.slice(5))) out.push({ typed: flag, name: names.get(flag.slice(5)) });
    else if (flag.startsWith('--')) out.push({ typed: flag, name: names.get(flag.slice(2)) });
    else if (/^-[^-\d]/.test(flag)) for (const c of flag.slice(1)) out.push({ typed: `-${c}`, name: names.get(c) });
  }
  return out.filter((f) => f.name !== undefined);
}

/**
 * yargs middleware (before validation): a flag that takes one value, given twice, is refused —
 * yargs would make it an array and the run would go on with a value nobody meant. One line, exit 2,
 * as .fail() does (an error thrown from a middleware would not reach it).
 * @param {string|(() => string)} prog what the line starts with (a function: worked out when it prints)
 * @returns {(argv: Record<string, any>, y: any) => void}
 */
export function onceOnly(prog) {
  return (argv, y) => {
    const o = y.getOptions();
    const names = canonicalNames(o);
    const lists = new Set(o.array.map((k) => names.get(k)));
    for (const key of Object.keys(o.key ?? {})) {
      const v = argv[key];
      const name = names.get(key);
      if (!Array.isArray(v) || lists.has(name)) continue;
      const typed = typedFlags(names).find((f) => f.name === name)?.typed ?? `--${key}`;
      // the values quoted back, except a secret's (a line quoting them stands in no form the redaction knows)
      const values = v.map((x) => (isSecretName(name) ? '***' : printable(String(x))));
      writeErr(
        `${typeof prog === 'function' ? prog() : prog}: ${typed} was given ${v.length} times (${values.join(', ')}): it takes one value\n`,
      );
      exitNow(2);
    }
  };
}

/**
 * The first number flag among `words` whose value is not a number as typed (`-d ''`, `--confirm=`,
 * `-p ' '`, `--ttl abc`, `-d Infinity`), in words, or null. yargs reads a blank as 0 (and `-d 0`
 * runs until Ctrl-C) and a word as NaN (quoted back as "got NaN", not as what was typed).
 * @param {string[]} words argv, up to a `--`
 * @param {any} o yargs getOptions()
 * @returns {string|null} e.g. `--ttl needs a number (got "abc")`
 */
export function numberWordProblem(words, o) {
  const names = canonicalNames(o);
  const numbers = new Set((o.number ?? []).map((k) => names.get(k)));
  const end = words.indexOf('--');
  const typed = end < 0 ? words : words.slice(0, end);
  for (const [i, t] of typed.entries()) {
    if (!/^--?[^-\d]/.test(t)) continue;
    const eq = t.indexOf('=');
    const flag = eq < 0 ? t : t.slice(0, eq);
    // a short flag takes its value from the next word; a bundle (-vq) is not a number flag's
    const key = flag.startsWith('--') ? flag.slice(2) : flag.length === 2 ? flag.slice(1) : null;
    if (key === null || !numbers.has(names.get(key))) continue;
    const raw = eq < 0 ? typed[i + 1] : t.slice(eq + 1);
    // no value at all is yargs's to say (requiresArg); a word that is a flag of its own too
    if (raw === undefined || (eq < 0 && /^--?[^-\d.]/.test(raw))) continue;
    if (raw.trim() === '' || !Number.isFinite(Number(raw))) return `${flag} needs a number (got ${shown(raw)})`;
  }
  return null;
}

/**
 * yargs middleware (before validation): a number flag whose value is not a number as typed is
 * refused (numberWordProblem), one line, exit 2.
 * @param {string|(() => string)} prog what the line starts with
 * @returns {(argv: Record<string, any>, y: any) => void}
 */
export function numberWords(prog) {
  return (_argv, y) => {
    const problem = numberWordProblem(commandArgv(), y.getOptions());
    if (!problem) return;
    writeErr(`${typeof prog === 'function' ? prog() : prog}: ${problem}\n`);
    exitNow(2);
  };
}

/** The flags typed on the command line, by their camelCase names (a Set on the parsed flags, under this key). */
export const GIVEN = Symbol('given');

/**
 * The flags typed on the command line (markGiven's record), or null where no middleware ran (a
 * plan built in code, a test).
 * @param {Readonly<Record<string, any>>} a parsed flags
 * @returns {Set<string>|null}
 */
export function givenFlags(a) {
  return /** @type {any} */ (a)[GIVEN] ?? null;
}

/**
 * yargs middleware: records which flags were typed (any alias, `--x=v`, `--no-x`), so a check can
 * tell a flag given at its default value from one left out (yargs fills in both alike).
 * @param {Record<string, any>} argv
 * @param {any} y the yargs instance
 */
export function markGiven(argv, y) {
  const given = new Set(typedFlags(canonicalNames(y.getOptions())).map((f) => f.name));
  Object.defineProperty(argv, GIVEN, { value: given, enumerable: false });
}

/**
 * File-system codes in words, the ones that read the same whether a file was being read or a run
 * directory written (record/run-dir.js and plans/output.js say them too, with their own words
 * for ENOENT and EISDIR).
 */
export const FS_WHY = {
  ENOSPC: 'no space left on device',
  ENOTDIR: 'a part of the path is not a directory',
  EDQUOT: 'disk quota exceeded',
  EROFS: 'read-only file system',
  EIO: 'I/O error',
  EFBIG: 'file too large',
  EACCES: 'permission denied',
  EPERM: 'not permitted',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the name is too long',
};

/** A path given on the command line or in a spec, read. */
const FILE_WHY = { ...FS_WHY, ENOENT: 'no such file', EISDIR: 'it is a directory, and a file is expected' };

/**
 * Why a file named on the command line (or in a spec) could not be read, in words: "it is a
 * directory, and a file is expected", not a bare EISDIR; its code when there are no words for it.
 * @param {unknown} e what the read threw
 * @returns {string}
 */
export function fileReason(e) {
  const code = /** @type {NodeJS.ErrnoException} */ (e)?.code;
  return (code && FILE_WHY[code]) ?? code ?? String(/** @type {Error} */ (e)?.message ?? e);
}
