/**
 * The seeds' claims (experiments/claims.yaml): for each, whether a spec's check tests it (covered:
 * which spec, and which of its check's figures), or a spec sets this run's figure beside the
 * seed's without a check deciding it (shown: which spec, and which of its seed columns), or not yet
 * (planned, and what it needs), or never (out of scope, and why). The index lists them under the
 * specs, so that a finding the specs leave out is said, not hidden; test/unit/claims.test.js holds
 * the named checks and columns to the specs themselves.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mdTable } from '../record/format.js';
import { readYamlText } from './yaml-text.js';

export const CLAIMS_FILE = 'claims.yaml';
const STATUSES = ['covered', 'shown', 'planned', 'out of scope'];

/**
 * @typedef {{ seed: string, claim: string, status: 'covered'|'shown'|'planned'|'out of scope', spec?: string,
 *   checks?: string[], figure?: string, why?: string }} Claim  checks: the figures of the spec's check
 *   that test it (covered); figure: the spec's seed column that sets this run's figure beside the seed's (shown)
 */

/**
 * The claims beside the specs, checked: a known status; a spec that exists and the figures of its
 * check that test the claim, for a covered one; a spec and its seed column, for a shown one; no
 * spec for a planned or out-of-scope one (a spec that measures it in part makes it shown); a
 * reason for all but the covered. Null when there is no claims file.
 * @param {string} parent the folder of the specs
 * @param {Set<string>} specs the spec folders' names
 * @returns {Claim[]|null}
 */
export function readClaims(parent, specs) {
  const file = path.join(parent, CLAIMS_FILE);
  if (!fs.existsSync(file)) return null;
  const { value: list, problem } = readYamlText(fs.readFileSync(file, 'utf8'));
  if (problem) throw new Error(`${file}: ${problem}`);
  if (!Array.isArray(list)) throw new Error(`${file}: a list of { seed, claim, status, spec, why }`);
  return list.map((c, i) => {
    const at = `${file}: [${i}]`;
    if (!c || typeof c.seed !== 'string' || typeof c.claim !== 'string' || !c.claim.trim()) throw new Error(`${at} needs seed and claim`);
    if (!STATUSES.includes(c.status))
      throw new Error(`${at}.status must be one of ${STATUSES.join(', ')} (got ${JSON.stringify(c.status)})`);
    const named = c.status === 'covered' || c.status === 'shown';
    if (named && !specs.has(c.spec))
      throw new Error(`${at}.spec must name a spec beside it for a ${c.status} claim (got ${JSON.stringify(c.spec)})`);
    if (!named && c.spec !== undefined)
      throw new Error(
        `${at}.spec is for a covered or shown claim: a ${c.status} one names none (a spec that measures it in part makes it shown)`,
      );
    const strings = (v) => Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === 'string' && x.trim());
    if (c.status === 'covered' && !strings(c.checks))
      throw new Error(`${at}.checks must list the figures of ${c.spec}'s check that test it (e.g. [w4.master_cpu])`);
    if (c.status !== 'covered' && c.checks !== undefined) throw new Error(`${at}.checks is for a covered claim only`);
    if (c.status === 'shown' && !(typeof c.figure === 'string' && c.figure.trim()))
      throw new Error(`${at}.figure must name the seed column of ${c.spec} that sets this run's figure beside the seed's`);
    if (c.status !== 'shown' && c.figure !== undefined) throw new Error(`${at}.figure is for a shown claim only`);
    if (c.status !== 'covered' && !(typeof c.why === 'string' && c.why.trim()))
      throw new Error(`${at}.why is needed: what a ${c.status} claim lacks, or why`);
    return /** @type {Claim} */ (c);
  });
}

/**
 * @param {Claim[]|null} claims
 * @returns {string[]} the index's lines
 */
export function claimsSection(claims) {
  if (!claims) return [];
  const count = (s) => claims.filter((c) => c.status === s).length;
  return [
    "## The seeds' claims",
    '',
    `Every claim of the seeds and where rqbench stands on it (from ${CLAIMS_FILE}): ${claims.length} claims, ${count('covered')} covered by a spec's check, ${count('shown')} shown beside the seed's figures (no check decides them), ${count('planned')} planned, ${count('out of scope')} out of scope.`,
    '',
    mdTable(
      ['Seed', 'Claim', 'Status', 'Spec, or why'],
      claims.map((c) => [c.seed, c.claim, c.status, [where(c), c.why ?? ''].filter(Boolean).join(': ')]),
    ),
    '',
  ];
}

/**
 * A claim's spec, with the figures of its check that test it or the column that shows it.
 * @param {Claim} c
 */
function where(c) {
  if (!c.spec) return '';
  const link = `[${c.spec}](${c.spec}/experiment.yaml)`;
  if (c.checks) return `${link} (check: ${c.checks.map((x) => `\`${x}\``).join(', ')})`;
  return c.figure ? `${link} ("${c.figure}")` : link;
}
