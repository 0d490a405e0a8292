/**
 * The seeds' claims (experiments/claims.yaml): for each, whether a spec re-runs it (covered, and
 * which), or not yet (planned, and what it needs), or never (out of scope, and why). The index
 * lists them under the specs, so that a finding the specs leave out is said, not hidden.
 */
import fs from 'node:fs';
import path from 'node:path';
import { mdTable } from '../record/format.js';
import { readYamlText } from './yaml-text.js';

export const CLAIMS_FILE = 'claims.yaml';
const STATUSES = ['covered', 'planned', 'out of scope'];

/**
 * @typedef {{ seed: string, claim: string, status: 'covered'|'planned'|'out of scope', spec?: string, why?: string }} Claim
 */

/**
 * The claims beside the specs, checked: a known status, a spec that exists for a covered claim
 * (a planned one may name the spec that covers it in part), a reason for the others. Null when there is no claims file.
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
    if ((c.status === 'covered' || c.spec !== undefined) && !specs.has(c.spec))
      throw new Error(
        `${at}.spec must name a spec beside it${c.status === 'covered' ? ' for a covered claim' : ''} (got ${JSON.stringify(c.spec)})`,
      );
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
    `Every claim of the seeds and where rqbench stands on it (from ${CLAIMS_FILE}): ${claims.length} claims, ${count('covered')} covered by a spec, ${count('planned')} planned, ${count('out of scope')} out of scope.`,
    '',
    mdTable(
      ['Seed', 'Claim', 'Status', 'Spec, or why'],
      claims.map((c) => [
        c.seed,
        c.claim,
        c.status,
        [c.spec ? `[${c.spec}](${c.spec}/experiment.yaml)` : '', c.why ?? ''].filter(Boolean).join(': '),
      ]),
    ),
    '',
  ];
}
