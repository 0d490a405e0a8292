/** Changes to a Redis Cluster under load (`--at <seconds>:<action>[:<arg>]`): parse them, run them. */
export { parseAt, parseAtList } from './parse.js';
export { runAction } from './run-action.js';
