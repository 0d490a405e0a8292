/**
 * A throwaway Google Cloud Pub/Sub emulator on 127.0.0.1. The emulator script (installed by the
 * Debian package google-cloud-cli-pubsub-emulator) is run directly, not through gcloud: it execs
 * java, so the PID we hold is the JVM's and killing it stops the emulator (killing a gcloud
 * wrapper would leave java running). The heap is capped; "ready" is `GET /` answering `Ok`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findExecutable } from './local-redis.js';
import { HOST, startChildServer } from './child-server.js';

const SCRIPT = 'cloud-pubsub-emulator';
const SDK_ROOTS = ['/usr/lib/google-cloud-sdk', '/usr/share/google-cloud-sdk', '/opt/google-cloud-sdk', '/google-cloud-sdk'];

export const PUBSUB_INSTALL_HINT =
  'Pub/Sub emulator not found: install it with "apt-get install -y google-cloud-cli-pubsub-emulator" (Google Cloud SDK apt repository), or set PUBSUB_EMULATOR_BIN to its cloud-pubsub-emulator script';

/**
 * @typedef {{ host: string, port: number, endpoint: string, pid: number, dir: string, stop: () => Promise<void> }} LocalPubsub
 * endpoint is host:port, what PUBSUB_EMULATOR_HOST and the client's apiEndpoint take.
 */

/**
 * Path of the emulator's cloud-pubsub-emulator script, or null when it is not installed.
 * PUBSUB_EMULATOR_BIN wins; then the SDK under CLOUDSDK_ROOT_DIR, the usual SDK roots, and the
 * SDK of a gcloud found on PATH.
 * @returns {string|null}
 */
export function findPubsubEmulator() {
  const candidates = [];
  if (process.env.PUBSUB_EMULATOR_BIN) candidates.push(process.env.PUBSUB_EMULATOR_BIN);
  const roots = [process.env.CLOUDSDK_ROOT_DIR, ...SDK_ROOTS].filter(Boolean);
  const gcloud = findExecutable('gcloud');
  if (gcloud) roots.push(path.dirname(path.dirname(fs.realpathSync(gcloud))));
  for (const root of roots) candidates.push(path.join(root, 'platform', 'pubsub-emulator', 'bin', SCRIPT));
  for (const file of candidates) {
    try {
      fs.accessSync(file, fs.constants.X_OK);
      return file;
    } catch {
      // not here
    }
  }
  return null;
}

/**
 * Starts the emulator on a free loopback port and waits until it answers.
 * @param {{ heap?: string, readyTimeoutMs?: number, dir?: string }} [opts] heap: -Xmx value (256m)
 * @returns {Promise<LocalPubsub>}
 */
export async function startPubsub({ heap = '256m', readyTimeoutMs = 60_000, dir = os.tmpdir() } = {}) {
  const script = findPubsubEmulator();
  if (!script) throw Object.assign(new Error(PUBSUB_INSTALL_HINT), { code: 'ENOPUBSUB' });
  const s = await startChildServer({
    label: 'Pub/Sub emulator',
    command: script,
    args: (port) => [`--host=${HOST}`, `--port=${port}`],
    env: { JAVA_OPTS: `-Xmx${heap}` },
    answers: async (port) => {
      const res = await fetch(`http://${HOST}:${port}/`, { signal: AbortSignal.timeout(1000) });
      return (await res.text()).trim() === 'Ok';
    },
    taken: /address already in use|BindException/i,
    readyTimeoutMs,
    dir,
  });
  return { ...s, endpoint: `${HOST}:${s.port}` };
}
