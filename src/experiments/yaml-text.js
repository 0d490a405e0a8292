/**
 * YAML text read into plain values, or the one reason it is refused. The parser's own messages
 * are not for a user: an alias bomb (a few lines whose aliases expand to gigabytes) comes back as
 * "Excessive alias count indicates a resource exhaustion attack", with no word of which file or
 * what to change; the caller puts the file in front of what this returns.
 */
import YAML from 'yaml';

/** Copies of anchored values one document may make through its aliases (the parser's own guard, said in the refusal). */
const MAX_ALIAS_COUNT = 100;

/**
 * @param {string} text
 * @returns {{ value: any, problem: null } | { value: undefined, problem: string }} problem: what follows "<file>: "
 */
export function readYamlText(text) {
  const doc = YAML.parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (doc.errors.length) return { value: undefined, problem: `not valid YAML: ${doc.errors[0].message.split('\n')[0]}` };
  try {
    return { value: doc.toJS({ maxAliasCount: MAX_ALIAS_COUNT }), problem: null };
  } catch (e) {
    const message = String(/** @type {Error} */ (e)?.message ?? e).split('\n')[0];
    if (/^Excessive alias count/.test(message))
      return {
        value: undefined,
        problem: `refused: its aliases (*name) expand to more than ${MAX_ALIAS_COUNT} copies of anchored values (a YAML alias bomb); write the values out, or use fewer aliases`,
      };
    return { value: undefined, problem: `not valid YAML: ${message}` };
  }
}
