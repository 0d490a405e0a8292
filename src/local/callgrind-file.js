/**
 * Reading a callgrind out file (Valgrind's callgrind format, version 1) into what the split of
 * instructions needs: each function's self cost and the inclusive cost of each of its calls, in
 * instructions (Ir). Pure text in, numbers out: no process, no file system.
 *
 * Functions are keyed by name alone: the names the split looks for (call, zaddCommand, …) are
 * Redis's exported symbols, unique across the objects; callgrind's recursion levels stay
 * apart (`call'2` is call() run from inside a call(): a command a script or EXEC ran).
 */

/**
 * @typedef {{ self: number, calls: Map<string, number>, counts: Map<string, number> }} FnCost
 * calls: callee name → inclusive Ir of every call to it from this function; counts: how many calls
 * @typedef {{ total: number, fns: Map<string, FnCost> }} Profile
 * total: the file's `totals:` Ir (else `summary:`), the instructions counted over the dump
 */

/**
 * @param {string} text a callgrind out file's content
 * @returns {Profile}
 */
export function parseCallgrind(text) {
  /** @type {Map<string, FnCost>} */
  const fns = new Map();
  /** @type {Map<string, string>} compressed function names: "(12)" → name (fn= and cfn= share them) */
  const names = new Map();
  let positions = 1;
  let irColumn = 0;
  let summary = NaN;
  let totals = NaN;
  /** @type {FnCost|null} */
  let current = null;
  /** @type {string|null} the callee of the last cfn= line */
  let callee = null;
  let callLine = false; // the next cost line is a call's inclusive cost
  const fnOf = (name) => {
    let f = fns.get(name);
    if (!f) fns.set(name, (f = { self: 0, calls: new Map(), counts: new Map() }));
    return f;
  };
  const nameOf = (spec) => {
    const m = /^(\(\d+\))\s*(.*)$/.exec(spec.trim());
    if (!m) return spec.trim();
    if (m[2]) names.set(m[1], m[2]);
    return names.get(m[1]) ?? m[1];
  };
  for (const line of text.split('\n')) {
    if (!line) continue;
    const c = line.charCodeAt(0);
    // a cost line: positions then costs; positions may be compressed (+n, -n, *)
    if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 42) {
      if (!current) continue;
      const cols = line.trim().split(/\s+/);
      const ir = Number(cols[positions + irColumn] ?? 0) || 0;
      if (callLine) {
        if (callee !== null) current.calls.set(callee, (current.calls.get(callee) ?? 0) + ir);
        callLine = false;
      } else current.self += ir;
      continue;
    }
    const eq = line.indexOf('=');
    const colon = line.indexOf(':');
    if (eq > 0 && (colon < 0 || eq < colon)) {
      const key = line.slice(0, eq);
      const value = line.slice(eq + 1);
      if (key === 'fn') {
        current = fnOf(nameOf(value));
        callee = null;
      } else if (key === 'cfn') callee = nameOf(value);
      else if (key === 'calls') {
        callLine = true;
        if (current && callee !== null)
          current.counts.set(callee, (current.counts.get(callee) ?? 0) + (Number(value.split(/\s+/)[0]) || 0));
      }
      continue;
    }
    if (colon > 0) {
      const key = line.slice(0, colon);
      const value = line.slice(colon + 1).trim();
      if (key === 'positions') positions = value.split(/\s+/).length;
      else if (key === 'events') irColumn = Math.max(0, value.split(/\s+/).indexOf('Ir'));
      else if (key === 'summary') summary = Number(value.split(/\s+/)[irColumn]);
      else if (key === 'totals') totals = Number(value.split(/\s+/)[irColumn]);
    }
  }
  let selfSum = 0;
  for (const f of fns.values()) selfSum += f.self;
  // totals: is what the file's cost lines add up to (summary: can differ by a few per mille, the calls
  // still on the stack at the dump); a file cut short has neither: the self costs are the total
  const total = Number.isFinite(totals) ? totals : Number.isFinite(summary) ? summary : selfSum;
  return { total, fns };
}

/**
 * A function's inclusive cost: its own instructions and those of every call it made.
 * @param {Profile} profile
 * @param {string} name
 */
export function inclusive(profile, name) {
  const f = profile.fns.get(name);
  if (!f) return 0;
  let sum = f.self;
  // a call to itself is already inside the outer call's cost
  for (const [callee, ir] of f.calls) if (callee !== name) sum += ir;
  return sum;
}

/**
 * The inclusive cost of the calls `caller` made to `callee`.
 * @param {Profile} profile
 * @param {string} caller
 * @param {string} callee
 */
export function callCost(profile, caller, callee) {
  return profile.fns.get(caller)?.calls.get(callee) ?? 0;
}

/**
 * How many times `callee` was called, from anywhere (serverCron: the cron's runs).
 * @param {Profile} profile
 * @param {string} callee
 */
export function callsTo(profile, callee) {
  let n = 0;
  for (const f of profile.fns.values()) n += f.counts.get(callee) ?? 0;
  return n;
}

/**
 * Who called `callee`, with the inclusive cost of those calls (for finding where a function's
 * instructions came from).
 * @param {Profile} profile
 * @param {string} callee
 * @returns {Map<string, number>}
 */
export function callersOf(profile, callee) {
  const out = new Map();
  for (const [name, f] of profile.fns) {
    const ir = f.calls.get(callee);
    if (ir) out.set(name, ir);
  }
  return out;
}
