/**
 * AWS client configuration shared by the SQS and SNS targets: the standard credential and
 * region chains for real AWS; an `endpoint` for any compatible service, with dummy credentials
 * only when it is on loopback (an emulator), so a real endpoint never gets fake keys.
 */
import { CALL_TIMEOUT_MS } from './bounds.js';

// The pinned SDK supports Node 20 (DESIGN.md pins it); its notice about later releases would
// only clutter every run's stderr.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const LOOPBACK = /^(127\.\d+\.\d+\.\d+|localhost|\[::1\]|::1)$/i;
const EMULATOR_REGION = 'us-east-1';

/**
 * @param {string|undefined} endpoint
 * @returns {boolean} true when the endpoint's host is on this machine's loopback
 */
export function isLoopbackEndpoint(endpoint) {
  if (!endpoint) return false;
  try {
    return LOOPBACK.test(new URL(endpoint).hostname);
  } catch {
    return false;
  }
}

/**
 * Options for an AWS SDK v3 client.
 * @param {{ endpoint?: string, region?: string }} p
 * @returns {{ region?: string, endpoint?: string, credentials?: { accessKeyId: string, secretAccessKey: string } }}
 */
export function awsClientConfig({ endpoint, region }) {
  /** @type {ReturnType<typeof awsClientConfig>} */
  const cfg = {};
  if (region) cfg.region = region;
  if (endpoint) {
    cfg.endpoint = endpoint;
    if (isLoopbackEndpoint(endpoint)) {
      cfg.region ??= EMULATOR_REGION;
      // emulators accept anything; these are not secrets and never leave this machine
      cfg.credentials = { accessKeyId: 'rqbench', secretAccessKey: 'rqbench' };
    }
  }
  return cfg;
}

/**
 * SQS/SNS message attributes, all of type String.
 * @param {Record<string, string>} attrs
 */
export function stringAttributes(attrs) {
  /** @type {Record<string, { DataType: 'String', StringValue: string }>} */
  const out = {};
  for (const [k, v] of Object.entries(attrs)) out[k] = { DataType: 'String', StringValue: v };
  return out;
}

/**
 * One SDK call that gives up after `timeoutMs` (its retries included) or when `signal` aborts:
 * the SDKs' own HTTP handlers wait on a connection that never answers for minutes. A call that
 * timed out rejects with `timedOut` set, so a caller can tell "no answer" from "refused".
 * @template T
 * @param {{ send: (command: any, options?: { abortSignal?: AbortSignal }) => Promise<T> }} client
 * @param {any} command
 * @param {{ timeoutMs?: number, signal?: AbortSignal }} [opts]
 * @returns {Promise<T>}
 */
export async function sendWithin(client, command, { timeoutMs = CALL_TIMEOUT_MS, signal } = {}) {
  // one controller per call, both causes removed after it (a poller makes thousands of calls on one signal)
  const ac = new AbortController();
  let timedOut = false;
  // after the poll phase: an answer that arrived while the process was held off the CPU goes first
  const timer = setTimeout(
    () =>
      setImmediate(() => {
        timedOut = true;
        ac.abort();
      }),
    timeoutMs,
  );
  const onAbort = () => ac.abort();
  signal?.addEventListener('abort', onAbort, { once: true });
  if (signal?.aborted) ac.abort();
  try {
    return await client.send(command, { abortSignal: ac.signal });
  } catch (e) {
    if (!timedOut || signal?.aborted) throw e;
    throw Object.assign(new Error(`${command.constructor.name.replace(/Command$/, '')}: no answer within ${timeoutMs / 1000} s`), {
      timedOut: true,
    });
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}
