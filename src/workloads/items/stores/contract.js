/**
 * What a data model is, written down. One module in `stores/models/` default-exports a
 * StoreModel; the registry (registry.js) finds it there, and from it come the producer's and
 * the consumer's flags, `--help`, the checks, the writer's commands, the consumer's read path,
 * `--verify`'s read-back and the experiment tables. Adding a model is adding one such file.
 */

/**
 * @typedef {import('./keys.js').StoreConfig} StoreConfig
 * @typedef {import('./common.js').Cmd} Cmd
 */

/**
 * The write side, one per writer: pre-encodable commands for a range of item ids.
 * @typedef {object} WriteModel
 * @property {string} mode                the name summaries show (e.g. 'zset-ids', 'hash')
 * @property {Array<{ name: string, lua: string, sha: string }>} scripts Lua loaded before the run
 * @property {(nowMs: number) => number} epoch plans are re-encoded when this changes (a minute for per-minute keys)
 * @property {(lo: number, hi: number, nowMs: number) => Cmd[]} plan the commands writing items lo..hi
 * @property {(nowMs: number) => Cmd[]} purge commands run every settings.purgePeriodMs (trimming to the TTL window)
 */

/**
 * How the reader reaches Redis: one command on the node that serves `key`, reply parsed.
 * @typedef {object} ReadIO
 * @property {(key: string, args: Array<string|number>) => Promise<any>} call
 */

/**
 * The read side, one per reader: what the seed's consumer does each cycle.
 * @typedef {object} ReadModel
 * @property {string} mode
 * @property {string[]} names             keys the index lives in (named when a consumer finds them empty)
 * @property {boolean} membersAreValues   the index holds the values: nothing more to fetch
 * @property {Array<{ name: string, lua: string, sha: string }>} scripts
 * @property {(io: ReadIO, nowMs: number) => Promise<{ count: number, newest: number|null, uniques?: number }>} cardinality
 * @property {(io: ReadIO, cutoff: number, limit: number, nowMs: number) => Promise<string[]>} range
 *   the live members (score or time >= cutoff), or the newest `limit` of them
 * @property {(cutoff: number, limit: number, nowMs: number) => Array<{ key: string, args: Array<string|number> }>|null} [rangeCommands]
 *   the range as commands whose flat replies concatenate to range()'s result (read on bytes), or null
 * @property {(io: ReadIO, cutoff: number, limit: number) => Promise<{ count: number, newest: number|null, members: string[] }>} [viaScript]
 *   `-s script`: cardinality and members in one Lua call
 * @property {(key: string) => Array<string|number>} [valueArgs] how one item's value is read when it is not a string (default: GET/MGET)
 */

/**
 * @typedef {object} StoreModel
 * @property {string} name                the model's name ('zset', 'hash', …)
 * @property {number} order               its place in --help and tables
 * @property {string} summary             one line: what it writes
 * @property {{ name: string, describe: string, implies?: string[] } | null} flag
 *   the boolean flag that picks it (null: the default model); `implies`: other model flags it may come with
 * @property {{ actualValue: boolean, extraSets: boolean, script: boolean, uniques: boolean }} can
 *   --actual-value, --extra-sets and `-s script` apply to it; its reads count unique items
 * @property {Record<string, string>} [why]  why a capability is missing, for the error (keyed like `can`)
 * @property {(cfg: StoreConfig) => WriteModel} write
 * @property {(cfg: StoreConfig) => ReadModel} read
 * @property {(cfg: StoreConfig) => ({ keyOf: (id: number) => string, valueArgs?: (key: string) => Array<string|number> } | null)} readBack
 *   what --verify reads for an id, or null when the model keeps no item keys
 */

export {};
