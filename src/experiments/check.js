/**
 * A spec's `check:` — a small expression over the steps' metrics, parsed here (never eval'd):
 *   `list.master_cpu < zset.master_cpu`
 *   `same_slot.top_master_share > 0.8 and spread.top_master_share < 0.6`
 *   `last.master_cpu > first.master_cpu * 1.5`
 * A reference is `<step>.<metric>` (or `first.` / `last.`); numbers, + - * /, parentheses,
 * < <= > >= == !=, `and`, `or`, `not`.
 */

const TOKEN = /\s*(?:(\d+(?:\.\d+)?(?:e[+-]?\d+)?)|([A-Za-z_][\w]*(?:\.[A-Za-z_]\w*)?)|(<=|>=|==|!=|[<>+\-*/()]))/y;

/**
 * @typedef {{ kind: 'num', value: number } | { kind: 'ref', step: string, metric: string, text: string }
 *   | { kind: 'op', op: string, args: Node[] }} Node
 */

/**
 * @param {string} text
 * @returns {Node}
 * @throws {Error} one line saying where the expression stops making sense
 */
export function parseCheck(text) {
  const tokens = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.length) {
    const at = TOKEN.lastIndex;
    const m = TOKEN.exec(text);
    if (!m) {
      if (!text.slice(at).trim()) break;
      throw new Error(`cannot read "${text.slice(at).trim().slice(0, 20)}"`);
    }
    tokens.push(m[1] ? { t: 'num', v: Number(m[1]) } : m[2] ? { t: 'word', v: m[2] } : { t: 'sym', v: m[3] });
  }
  let i = 0;
  const peek = () => tokens[i];
  const isSym = (v) => peek()?.t === 'sym' && peek().v === v;
  const isWord = (v) => peek()?.t === 'word' && peek().v === v;
  const expect = (v) => {
    if (!isSym(v)) throw new Error(`expected "${v}"${peek() ? ` before "${peek().v}"` : ' at the end'}`);
    i++;
  };
  const binary = (next, ops, isOp) => () => {
    let left = next();
    while (ops.some(isOp)) {
      const op = tokens[i++].v;
      left = { kind: 'op', op, args: [left, next()] };
    }
    return left;
  };
  const atom = () => {
    const tok = tokens[i++];
    if (!tok) throw new Error('the expression ends too early');
    if (tok.t === 'num') return { kind: 'num', value: tok.v };
    if (tok.t === 'sym' && tok.v === '(') {
      const e = or();
      expect(')');
      return e;
    }
    if (tok.t === 'sym' && tok.v === '-') return { kind: 'op', op: 'neg', args: [atom()] };
    if (tok.t === 'word' && tok.v === 'not') return { kind: 'op', op: 'not', args: [cmp()] };
    if (tok.t === 'word' && tok.v.includes('.')) {
      const [step, metric] = tok.v.split('.');
      return { kind: 'ref', step, metric, text: tok.v };
    }
    throw new Error(`"${tok.v}" is not a number or a <step>.<metric> reference`);
  };
  const prod = binary(atom, ['*', '/'], isSym);
  const sum = binary(prod, ['+', '-'], isSym);
  const cmp = binary(sum, ['<', '<=', '>', '>=', '==', '!='], isSym);
  const and = binary(cmp, ['and'], isWord);
  const or = binary(and, ['or'], isWord);
  const tree = or();
  if (i < tokens.length) throw new Error(`unexpected "${tokens[i].v}"`);
  return tree;
}

/**
 * Every `<step>.<metric>` reference of a parsed check.
 * @param {Node} node
 * @returns {Array<{ step: string, metric: string, text: string }>}
 */
export function refsOf(node) {
  if (node.kind === 'ref') return [node];
  if (node.kind === 'op') return node.args.flatMap(refsOf);
  return [];
}

/**
 * Evaluates a check; a reference with no measured value makes the result null (not known).
 * @param {Node} node
 * @param {(ref: { step: string, metric: string }) => number|undefined} valueOf
 * @returns {boolean|number|null}
 */
export function evalCheck(node, valueOf) {
  if (node.kind === 'num') return node.value;
  if (node.kind === 'ref') {
    const v = valueOf(node);
    return Number.isFinite(v) ? v : null;
  }
  const vals = node.args.map((n) => evalCheck(n, valueOf));
  if (vals.some((v) => v === null)) return null;
  const [a, b] = /** @type {any[]} */ (vals);
  switch (node.op) {
    case 'neg':
      return -a;
    case 'not':
      return !a;
    case '+':
      return a + b;
    case '-':
      return a - b;
    case '*':
      return a * b;
    case '/':
      return b === 0 ? null : a / b;
    case '<':
      return a < b;
    case '<=':
      return a <= b;
    case '>':
      return a > b;
    case '>=':
      return a >= b;
    case '==':
      return a === b;
    case '!=':
      return a !== b;
    case 'and':
      return Boolean(a) && Boolean(b);
    case 'or':
      return Boolean(a) || Boolean(b);
    default:
      throw new Error(`unknown operator ${node.op}`);
  }
}
