/**
 * Where a Redis node's instructions went, from one callgrind profile: reading and parsing, each
 * command's execution, feeding the replicas, expiry, cron, writing to clients, the rest.
 *
 * The rule (docs/local-servers.md says it for readers): every instruction a function executes
 * itself (its self cost) belongs to the innermost *marked* function on its call path; marked
 * functions name a category (MARKERS), and a command is the function call() dispatched (a
 * `…Command` function called from call() itself, not from call'2, callgrind's name for call() run
 * from inside another command: what a script or EXEC runs stays in EVALSHA or EXEC). Self costs
 * add up to the profile's total, so the categories do too, and nothing is counted twice.
 * Callgrind keeps one level of callers, not whole stacks: a function reached from two
 * categories (dictFind, zmalloc …) splits its self cost between them in proportion to the
 * inclusive cost of the calls from each, as gprof does. Redis's own structure keeps that rare
 * for the marked paths: call() is reached from processCommand, the cron from the event loop.
 */

/** Category → the functions that mark it. call() itself is the rest: its bookkeeping, not a command's work. */
export const MARKERS = {
  read: ['readQueryFromClient', 'processInputBuffer'],
  replicas: [
    'propagatePendingCommands',
    'alsoPropagate',
    'replicationFeedSlaves',
    'replicationFeedMonitors',
    'feedReplicationBuffer',
    'feedReplicationBufferWithObject',
  ],
  expiry: ['activeExpireCycle', 'expireIfNeeded'],
  cron: ['serverCron'],
  write: ['handleClientsWithPendingWritesUsingThreads', 'handleClientsWithPendingWrites', 'sendReplyToClient', 'writeToClient'],
  other: ['call'],
};

/** The categories in the order tables show them; commands (upper case, by name) come after read. */
export const CATEGORIES = ['read', 'replicas', 'expiry', 'cron', 'write', 'other'];

const markerOf = new Map(Object.entries(MARKERS).flatMap(([cat, fns]) => fns.map((f) => [f, cat])));

/**
 * The command a function call() dispatched runs: zaddCommand → ZADD, evalShaCommand → EVALSHA.
 * @param {string} fn
 * @returns {string|null}
 */
export function commandName(fn) {
  const m = /^([a-zA-Z]+)Command$/.exec(fn);
  return m ? m[1].toUpperCase() : null;
}

/**
 * @param {import('./callgrind-file.js').Profile} profile
 * @returns {Record<string, number>} category (or command name) → instructions; adds up to profile.total
 */
export function splitProfile(profile) {
  /** @type {Map<string, Map<string, number>>} callee → caller → inclusive cost of the calls */
  const callers = new Map();
  for (const [caller, f] of profile.fns)
    for (const [callee, ir] of f.calls) {
      if (callee === caller) continue;
      let m = callers.get(callee);
      if (!m) callers.set(callee, (m = new Map()));
      m.set(caller, (m.get(caller) ?? 0) + ir);
    }
  /** @type {Map<string, Map<string, number>>} function → category → share of its self cost */
  const owners = new Map();
  const visiting = new Set();
  /** @param {string} fn */
  const ownerOf = (fn) => {
    const known = owners.get(fn);
    if (known) return known;
    const cat = markerOf.get(fn);
    if (cat) return remember(fn, new Map([[cat, 1]]));
    /** @type {Map<string, number>} */
    const mix = new Map();
    let weight = 0;
    visiting.add(fn);
    for (const [caller, ir] of callers.get(fn) ?? []) {
      if (visiting.has(caller) || ir <= 0) continue; // a cycle's back edge: its cost is the outer call's
      const command = caller === 'call' ? commandName(fn) : null;
      const via = command ? new Map([[command, 1]]) : ownerOf(caller);
      for (const [c, share] of via) mix.set(c, (mix.get(c) ?? 0) + share * ir);
      weight += ir;
    }
    visiting.delete(fn);
    if (!weight) return remember(fn, new Map([['other', 1]]));
    for (const [c, v] of mix) mix.set(c, v / weight);
    return remember(fn, mix);
  };
  const remember = (fn, m) => (owners.set(fn, m), m);

  /** @type {Record<string, number>} */
  const split = Object.fromEntries(CATEGORIES.map((c) => [c, 0]));
  let selfSum = 0;
  for (const [fn, f] of profile.fns) {
    if (!f.self) continue;
    selfSum += f.self;
    for (const [c, share] of ownerOf(fn)) split[c] = (split[c] ?? 0) + share * f.self;
  }
  // a profile whose total is not its self costs' sum (a summary: line only): the difference is the rest
  split.other += profile.total - selfSum;
  return split;
}
