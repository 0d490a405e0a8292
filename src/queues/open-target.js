/**
 * The queue target the flags name, opened: a publisher gets something with publish() and
 * limit; a consumer something with consume(). One place knows which flags each target takes.
 */

/**
 * @param {Record<string, any>} a checked flags
 * @param {'publish'|'consume'} side
 */
export async function openQueueTarget(a, side) {
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
 * Where the run went, for the manifest and summary (no secrets: names and endpoints only).
 * @param {Record<string, any>} a
 */
export function targetFacts(a) {
  const where = a.endpoint ? { endpoint: a.endpoint } : { cloud: a.target === 'pubsub' ? 'gcp' : 'aws' };
  if (a.target === 'pubsub') return { kind: 'pubsub', ...where, project: a.project ?? null, topic: a.topic, subscription: a.subscription };
  if (a.target === 'sns') return { kind: 'sns', ...where, region: a.region ?? null, topic: a.topic, queue: a.create ? a.queue : null, rawDelivery: !!a.raw };
  return { kind: 'sqs', ...where, region: a.region ?? null, queue: a.queue };
}
