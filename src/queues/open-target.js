/**
 * The queue target the flags name, opened: a publisher gets something with publish() and
 * limit; a consumer something with consume(); both probe(). One place knows which flags each
 * target takes, and how a target is named in an error line.
 */
import { redactString } from '../results/redact.js';

const SERVICE = { sns: 'SNS', sqs: 'SQS', pubsub: 'Pub/Sub' };

/**
 * @param {Record<string, any>} a checked flags
 * @param {'publish'|'consume'} side
 * @returns {Promise<any>} the target; a failure is one line naming the service and endpoint (exit 1)
 */
export async function openQueueTarget(a, side) {
  try {
    return await open(a, side);
  } catch (e) {
    const msg = String(/** @type {any} */ (e)?.message ?? e).replace(/\s+/g, ' ').trim();
    throw Object.assign(new Error(`cannot open ${whereOf(a)}: ${msg}`), { exitCode: 1 });
  }
}

/** @param {Record<string, any>} a @param {'publish'|'consume'} side */
async function open(a, side) {
  const aws = { endpoint: a.endpoint, region: a.region, create: a.create, visibilityTimeout: a.visibilityTimeout };
  // each SDK is loaded only by the run that uses it (the Pub/Sub client alone takes a second)
  if (a.target === 'sns') return (await import('../targets/sns.js')).openSns({ ...aws, topic: a.topic, queue: a.queue, raw: a.raw });
  if (a.target === 'sqs') return (await import('../targets/sqs.js')).openSqs({ ...aws, queue: a.queue });
  return (await import('../targets/pubsub.js')).openPubsub({
    endpoint: a.endpoint, project: a.project, create: a.create, ackDeadline: a.ackDeadline, topic: a.topic,
    // a publisher with --create makes the subscription too, so nothing published before the consumer starts is lost
    subscription: side === 'consume' || a.create ? a.subscription : undefined,
  });
}

/**
 * The service and where it is, as error lines name it: `Pub/Sub at 127.0.0.1:8085`,
 * `SQS at http://127.0.0.1:4566`, `SNS in the AWS cloud (region eu-west-1)`.
 * @param {Record<string, any>} a
 */
export function whereOf(a) {
  const service = SERVICE[a.target] ?? a.target;
  if (a.endpoint) return `${service} at ${redactString(a.endpoint)}`;
  if (a.target === 'pubsub') return `${service} in the GCP cloud${a.project ? ` (project ${a.project})` : ''}`;
  return `${service} in the AWS cloud${a.region ? ` (region ${a.region})` : ''}`;
}

/**
 * Where the run went, for the manifest and summary (no secrets: names and endpoints only).
 * @param {Record<string, any>} a
 */
export function targetFacts(a) {
  const where = a.endpoint ? { endpoint: a.endpoint } : { cloud: a.target === 'pubsub' ? 'gcp' : 'aws' };
  if (a.target === 'pubsub') return { kind: 'pubsub', ...where, project: a.project ?? null, topic: a.topic, subscription: a.subscription };
  if (a.target === 'sns') return { kind: 'sns', ...where, region: a.region ?? null, topic: a.topic, queue: a.create ? a.queue : null, rawDelivery: !!a.raw };
  return { kind: 'sqs', ...where, region: a.region ?? null, queue: a.queue };
}
