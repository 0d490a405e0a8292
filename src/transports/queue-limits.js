/**
 * Message size limits of the queue services and how each counts a message against its limit,
 * without loading any SDK: the publisher checks a batch fits before a target is opened. The
 * drivers declare these as their `limits`; the SDK adapters keep the number on what they open.
 */

/**
 * @param {string} body
 * @param {Record<string, string>} attrs
 * @param {number} typeBytes what each attribute's type name adds
 */
function counted(body, attrs, typeBytes) {
  let n = Buffer.byteLength(body);
  for (const [k, v] of Object.entries(attrs)) n += Buffer.byteLength(k) + typeBytes + Buffer.byteLength(v);
  return n;
}

/** SQS and SNS: body plus every attribute's name, type ("String": all of rqbench's are) and value, 256 KiB. */
export const AWS_LIMITS = Object.freeze({
  messageBytes: 256 * 1024,
  /** @param {string} body @param {Record<string, string>} attrs */
  countedBytes: (body, attrs) => counted(body, attrs, 'String'.length),
});

/** Pub/Sub: data plus attributes (names and values), 10 MB. */
export const PUBSUB_LIMITS = Object.freeze({
  messageBytes: 10_000_000,
  /** @param {string} body @param {Record<string, string>} attrs */
  countedBytes: (body, attrs) => counted(body, attrs, 0),
});

/**
 * Messages a Pub/Sub streaming pull may hold unacked: the client library's own default, as the
 * seed's client had (pubsub.js says why not threads x 10).
 */
export const PUBSUB_OUTSTANDING = 1000;
