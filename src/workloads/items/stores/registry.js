/**
 * Every data model rqbench knows: the modules in `stores/models/`, found when this file loads,
 * so a new model is one new file there. Each default-exports a StoreModel (contract.js).
 */
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';

const dir = fileURLToPath(new URL('./models/', import.meta.url));

/** @type {import('./contract.js').StoreModel[]} */
export const MODELS = await loadModels();

async function loadModels() {
  const files = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith('.js'))
    .sort();
  const found = await Promise.all(files.map(async (f) => (await import(pathToFileURL(`${dir}${f}`).href)).default));
  for (const [i, m] of found.entries()) {
    if (!m?.name || typeof m.write !== 'function' || typeof m.read !== 'function')
      throw new TypeError(`stores/models/${files[i]} does not default-export a StoreModel`);
  }
  const defaults = found.filter((m) => !m.flag);
  if (defaults.length !== 1) throw new TypeError(`exactly one data model must have no flag (the default); found ${defaults.length}`);
  return found.sort((x, y) => x.order - y.order);
}

export const STORE_MODES = MODELS.map((m) => m.name);

/** The model used when no model flag is given. */
export const DEFAULT_MODEL = MODELS.find((m) => !m.flag);

/** The flags that pick a model, in --help order (camelCase as yargs gives them). */
export const MODEL_FLAGS = MODELS.filter((m) => m.flag).map((m) => m.flag.name);

/**
 * @param {string} name
 * @returns {import('./contract.js').StoreModel}
 */
export function modelNamed(name) {
  const m = MODELS.find((x) => x.name === name);
  if (!m) throw new RangeError(`unknown data model ${name} (known: ${STORE_MODES.join(', ')})`);
  return m;
}

/**
 * The model flags set in `flags`, without those another set flag implies (--slh brings --sl).
 * @param {Record<string, any>} flags
 * @returns {import('./contract.js').StoreModel[]}
 */
export function modelsFlagged(flags) {
  const set = MODELS.filter((m) => m.flag && flags[m.flag.name]);
  const implied = new Set(set.flatMap((m) => m.flag.implies ?? []));
  return set.filter((m) => !implied.has(m.flag.name));
}

/**
 * The model the flags pick (they have been checked: at most one).
 * @param {Record<string, any>} flags
 */
export function modelOf(flags) {
  return modelsFlagged(flags)[0] ?? DEFAULT_MODEL;
}

/**
 * `--a, --b` for the models lacking a capability: what an error tells the user to leave out.
 * @param {keyof import('./contract.js').StoreModel['can']} what
 */
export function flagsWithout(what) {
  return MODELS.filter((m) => m.flag && !m.can[what])
    .map((m) => `--${m.flag.name}`)
    .join('/');
}

/** The write side of model `name`. */
export function createStore(name, cfg) {
  return modelNamed(name).write(cfg);
}

/** The read side of model `name`. */
export function createReadModel(name, cfg) {
  return modelNamed(name).read(cfg);
}
