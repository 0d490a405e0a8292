/**
 * Which code made a RESULTS.md: the commit each session of the run ran (the experiment's
 * manifest.json records it, `code:`), and whether rqbench's tree held changes no commit has. A
 * commit alone does not name the code when the tree was dirty, so those tables are marked; runs
 * made before the tree's state was recorded say that instead of implying a clean commit.
 */

/**
 * @typedef {object} Provenance
 * @property {string} words  for the setup line: "rqbench 1a2b3c4d", "… with uncommitted changes", …
 * @property {string|null} mark  a line for the top of RESULTS.md and its tables, when the code cannot be named by a commit
 */

/** @param {string|null|undefined} sha */
const short = (sha) => (sha ? sha.slice(0, 8) : '?');

/**
 * @param {import('./trials.js').TrialManifest|null} run the experiment run's manifest
 * @param {any} step a step's run manifest (git, gits, gitDirty, versions), or null
 * @returns {Provenance}
 */
export function provenanceOf(run, step) {
  const sessions = run?.code ?? [];
  if (sessions.length) {
    const shas = [...new Set(sessions.map((c) => c.git).filter(Boolean))];
    const named = shas.length ? shas.map(short).join(' and ') : step?.versions?.rqbench;
    const dirty = sessions.some((c) => c.dirty === true);
    const unknown = sessions.some((c) => c.dirty === null) || !shas.length;
    const several = shas.length > 1 ? ' (the sessions of this run ran these commits)' : '';
    if (dirty)
      return {
        words: `rqbench ${named} with uncommitted changes${several}`,
        mark: `**From uncommitted code:** the trials ran on rqbench ${named} with changes to tracked files that no commit holds (\`experiment run --allow-dirty\`); no commit reproduces these tables.`,
      };
    if (unknown)
      return {
        words: `rqbench ${named ?? '?'} (not from a git checkout)${several}`,
        mark: `**Code not named by a commit:** the trials ran outside a git checkout of rqbench; its version alone (${step?.versions?.rqbench ?? '?'}) does not name the code.`,
      };
    return { words: `rqbench ${named}, a clean tree${several}`, mark: null };
  }
  // a run made before the tree's state was recorded: its step manifests name a commit at best
  const shas = step?.gits ?? (step?.git ? [step.git] : []);
  const named = shas.length ? shas.map(short).join(' and ') : (step?.versions?.rqbench ?? '?');
  if (step?.gitDirty === false) return { words: `rqbench ${named}, a clean tree`, mark: null };
  if (step?.gitDirty === true)
    return {
      words: `rqbench ${named} with uncommitted changes`,
      mark: `**From uncommitted code:** the trials ran on rqbench ${named} with changes to tracked files that no commit holds; no commit reproduces these tables.`,
    };
  return {
    words: `rqbench ${named} (whether its tree held uncommitted changes was not recorded)`,
    mark: `**Code not proven by a commit:** these trials ran before rqbench recorded whether its tree was clean; ${shas.length > 1 ? `commits ${named}` : shas.length ? `commit ${named}` : `version ${named}`} may not be all of the code that ran. A run of a committed tree replaces this line.`,
  };
}
