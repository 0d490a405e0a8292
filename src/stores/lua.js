/** Lua scripts of scripts/lua/, read once, addressed by SHA1 (EVALSHA). */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const dir = fileURLToPath(new URL('../../scripts/lua/', import.meta.url));

/**
 * @param {string} name file name without .lua
 * @returns {{ name: string, lua: string, sha: string }}
 */
export function loadScript(name) {
  const lua = readFileSync(`${dir}${name}.lua`, 'utf8');
  return { name, lua, sha: createHash('sha1').update(lua).digest('hex') };
}
