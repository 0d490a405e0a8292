/** The **Dropped connections:** line of a producer's or a consumer's summary.md. */
import { fixed, grouped } from '../../record/format.js';

/**
 * Connections the writers or readers lost: when, to which node, who, how long until open again.
 * @param {Array<{ node: string, reader?: string, writer?: string, atS: number, reconnectMs: number|null }>|undefined} drops
 * @returns {string[]} the line and a blank one, or nothing when none dropped
 */
export function dropsMd(drops) {
  if (!drops?.length) return [];
  const each = drops.map(
    (d) =>
      `${d.node} at +${fixed(d.atS, 1)} s (${d.reader ?? d.writer}), ${d.reconnectMs === null ? 'not reconnected before the end' : `reconnected after ${grouped(d.reconnectMs)} ms`}`,
  );
  return [`**Dropped connections:** ${drops.length} — ${each.join('; ')}.`, ''];
}
