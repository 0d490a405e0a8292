/**
 * One directory per run, never overwritten: `<out>/<yyyymmdd-hhmmss>-<name>[-n]/`.
 */
import { mkdirSync, writeFileSync, renameSync } from 'node:fs';
import path from 'node:path';
import { redact } from './redact.js';

/**
 * Creates a fresh run directory.
 * @param {string} outDir
 * @param {string} name
 * @param {Date} [when]
 * @returns {string} its path
 */
export function createRunDir(outDir, name, when = new Date()) {
  const stamp = when.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const safe = String(name).replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'run';
  mkdirSync(outDir, { recursive: true });
  for (let n = 0; ; n++) {
    const dir = path.join(outDir, `${stamp}-${safe}${n ? `-${n}` : ''}`);
    try {
      mkdirSync(dir);
      return dir;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
  }
}

/**
 * Writes JSON atomically (temp file + rename), secrets removed.
 * @param {string} file
 * @param {unknown} data
 */
export function writeJson(file, data) {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(redact(data), null, 2)}\n`);
  renameSync(tmp, file);
}

/**
 * Writes text atomically.
 * @param {string} file
 * @param {string} text
 */
export function writeText(file, text) {
  const tmp = `${file}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}
