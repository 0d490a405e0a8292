// Set up before every file of the unit tier (vitest.config.js): the tier runs with no server, no
// child process and nothing that needs root, so `npm run test:unit` runs anywhere, redis-server
// or not, in seconds. A test here that starts a server, spawns a process or writes a cgroup fails
// on the spot, naming what it did; it belongs in test/integration/ or test/e2e/. And the tier runs
// as on a machine without redis-server (it is not found), so a test that only passes where it is
// installed fails here too.
import childProcess from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { syncBuiltinESMExports } from 'node:module';

/** @param {string} what */
const refused = (what) => new Error(`the unit tier starts no ${what}: move this test to test/integration/ or test/e2e/ (vitest.config.js)`);

for (const name of /** @type {const} */ (['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork'])) {
  childProcess[name] = /** @type {any} */ (
    () => {
      throw refused(`child process (child_process.${name})`);
    }
  );
}
net.Server.prototype.listen = function listen() {
  throw refused('server (a listening socket)');
};
// root's ways to change the machine: a cgroup, a sysctl
const ROOT_ONLY = /^\/(sys|proc\/sys)\//;
const { accessSync, mkdirSync, writeFileSync } = fs;
const REDIS_BINARIES = /(^|\/)redis-(server|cli)$/;
fs.accessSync = /** @type {any} */ (
  (p, ...rest) => {
    if (REDIS_BINARIES.test(String(p)))
      throw Object.assign(new Error(`ENOENT: no such file or directory, access '${p}'`), {
        code: 'ENOENT',
        syscall: 'access',
        path: String(p),
      });
    return accessSync(p, ...rest);
  }
);
fs.mkdirSync = /** @type {any} */ (
  (p, ...rest) => {
    if (ROOT_ONLY.test(String(p))) throw refused(`change to the machine (mkdir ${p})`);
    return mkdirSync(p, ...rest);
  }
);
fs.writeFileSync = /** @type {any} */ (
  (p, ...rest) => {
    if (ROOT_ONLY.test(String(p))) throw refused(`change to the machine (write ${p})`);
    return writeFileSync(p, ...rest);
  }
);
// `import { spawn } from 'node:child_process'` binds to the module's exports: bring them in line
syncBuiltinESMExports();
