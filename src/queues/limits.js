/**
 * Message size limits of the queue services and how each counts a message against its limit
 * (without loading any SDK: checks run before a target is opened).
 */

/** SQS and SNS: body plus every attribute's name, type and value, 256 KiB. */
export const AWS_MESSAGE_LIMIT = 256 * 1024;
/** Pub/Sub: data plus attributes, 10 MB. */
export const PUBSUB_LIMIT = 10_000_000;

/**
 * @param {string} target sns, sqs or pubsub
 * @returns {number} bytes
 */
export function limitOf(target) {
  return target === 'pubsub' ? PUBSUB_LIMIT : AWS_MESSAGE_LIMIT;
}

/**
 * Bytes a message counts against its service's limit (AWS attributes are all of type String).
 * @param {string} target
 * @param {string} body
 * @param {Record<string, string>} attrs
 */
export function countedBytes(target, body, attrs) {
  const typeBytes = target === 'pubsub' ? 0 : 'String'.length;
  let n = Buffer.byteLength(body);
  for (const [k, v] of Object.entries(attrs)) n += Buffer.byteLength(k) + typeBytes + Buffer.byteLength(v);
  return n;
}
