/**
 * The contract a queue system (a `--target` other than redis) fulfils: one module per system
 * declares everything the rest of rqbench needs to know of it, and queue-drivers.js lists the
 * modules. Modelled on the OpenMessaging Benchmark's driver API: a few small interfaces (the
 * driver, what it opens for each side, its ops, its emulator), nothing else shared.
 *
 * A driver module must load fast and load no SDK: every `rqbench … --help` reads all of them.
 * Its `open`, `ops.open` and `emulator.start` import the heavy parts when called.
 *
 * Types only: nothing here runs.
 */

/** @typedef {'publish'|'consume'} QueueSide */

/**
 * One command-line flag, declared by every driver that reads it. A flag several drivers read
 * is one object (queue-flags.js), so --help describes it once, the same way for all.
 * @typedef {object} QueueFlag
 * @property {import('yargs').Options} spec how yargs parses it and --help shows it (the
 *   group is set by the command); no `default`: a Redis run must tell a given queue flag
 * @property {QueueSide} [side] only this side reads it (absent: both)
 * @property {unknown} [fill] the value a driver's check fills in when the flag is not given
 * @property {[number, number]} [int] when given, an integer in this range (whatever the target:
 *   a bad value is bad input even where it is not read)
 * @property {{ re: RegExp, expected: string }} [form] when given, a string matching `re`
 * @property {string} [onlyHere] refused with every target that does not declare it; the text
 *   says why (e.g. 'it is an SNS→SQS subscription setting')
 */

/**
 * How a system counts a message against its size limit (checked before anything is sent).
 * @typedef {object} QueueLimits
 * @property {number} messageBytes the most one message may count
 * @property {(body: string, attrs: Record<string, string>) => number} countedBytes
 */

/**
 * A message as a consumer sees it, whatever the system.
 * @typedef {import('./sqs.js').QueueMessage} QueueMessage
 */

/**
 * @typedef {object} ConsumeParams
 * @property {number} threads readers (pollers, streams)
 * @property {number} [waitSeconds] a long poll, where the system has one
 * @property {'after-apply'|'before-apply'} [deleteWhen] SQS: delete what was received before applying it, or after
 * @property {AbortSignal} signal stop reading when it aborts
 * @property {(msgs: QueueMessage[], info: { receiveMs: number|null, receivedAt: number }) => Promise<void>} onMessages
 *   resolves once the messages are applied: only then are they deleted or acked
 * @property {(err: Error) => void} [onError]
 * @property {() => void} [onAnswer] the service answered (a receive, a delivery)
 */

/**
 * What `open` gives: the publishing side has publish(), the consuming side consume(); both can
 * be probed (one cheap call only the service answers) and closed.
 * @typedef {object} OpenedQueue
 * @property {() => Promise<void>} probe
 * @property {() => unknown} close
 */
/** @typedef {OpenedQueue & { publish: (body: string, attrs: Record<string, string>) => Promise<void> }} OpenedPublisher */
/** @typedef {OpenedQueue & { consume: (p: ConsumeParams) => Promise<void> }} OpenedConsumer */

/**
 * What a consumer's metrics and summary say of the system.
 * @typedef {object} QueueConsumerTraits
 * @property {string} cloud the cloud in the seed's metric names (ReceivedLowLatencyNotificationsE2E<cloud>Provided)
 * @property {string} timestamp the service's own publish time, as summary.md names it
 * @property {string} timestampHelp the same, as the Prometheus help text names it
 * @property {{ column: string, row: string, metric: string, help: string }|null} receive a
 *   receive call that can be timed ("Reading off SQS"), or null (streaming pull has none)
 */

/**
 * One client (or connection) and the operation it repeats; `detail` says what the calls got
 * back when that varies (how many pulls found a message); `overhead` gives the client's own time
 * in the call just made (the call less its time on the wire, ms), where it can be measured.
 * @typedef {{ call: () => Promise<unknown>, close: () => unknown, detail?: () => string, overhead?: () => number|null }} OpSession
 */

/**
 * One service of `rqbench ops`: set up, each operation timed on a fresh client, torn down.
 * @typedef {object} OpsService
 * @property {string} service as the table names it
 * @property {() => Promise<void>} setup
 * @property {() => Promise<void>} teardown
 * @property {Array<{ name: string, what: string, open: () => Promise<OpSession> }>} ops
 */

/**
 * A driver's part in `rqbench ops --only <name>`.
 * @typedef {object} QueueOps
 * @property {string} service as the table and summary name it ('SQS')
 * @property {Record<string, QueueFlag>} options the ops command's flags it reads, by camelCase key
 * @property {string} endpointKey the flag that points it at a server: none given, --local starts the emulator
 * @property {(flags: Record<string, any>, emulator: { endpoint: string, region?: string }|null) => Record<string, any>} where
 *   where to send the calls, from the flags or the emulator started for the run
 * @property {(where: Record<string, any>) => string} shown the manifest's and summary's "at …"
 * @property {(where: Record<string, any>, name: string) => Promise<OpsService>} open
 *   `name`: the run's own resources (queue, topic) are made under it, and deleted after
 */

/**
 * The local stand-in for the service: `rqbench local <name>`, and `ops --local`.
 * @typedef {object} QueueEmulator
 * @property {string} name the word after `rqbench local`
 * @property {string} label 'SQS/SNS' in "the SQS/SNS emulator"
 * @property {string|null} tool what it is, shown in brackets ('fauxqs')
 * @property {boolean} inProcess runs inside this process (not a child)
 * @property {string} example the `rqbench local --help` line
 * @property {() => Promise<string|null>} missing why it cannot start here (an install hint), or null
 * @property {() => Promise<{ endpoint: string, region?: string, pid?: number, stop: () => Promise<void> }>} start
 * @property {(emu: { endpoint: string, pid?: number }, secs: string) => string} ready what
 *   `rqbench local` prints once it answers: the endpoint and how to point rqbench at it
 */

/**
 * @typedef {object} QueueDriver
 * @property {string} name the --target value (and the ops --only word)
 * @property {string} service as error lines name it ('SNS', 'Pub/Sub')
 * @property {QueueSide[]} sides what it can be used for (SNS only publishes: consumers read its SQS queue)
 * @property {Record<string, QueueFlag>} options the produce/consume flags it reads, by camelCase
 *   key, in the order --help shows them
 * @property {(flags: Readonly<Record<string, any>>, bad: (flag: string, accepted: string, got?: unknown) => Error) => Readonly<Record<string, any>>}
 *   check its flags checked, defaults filled, as a new object of its options only (the input
 *   is left as it is); `bad` makes the one-line error to throw for bad input (exit 2)
 * @property {QueueLimits} limits
 * @property {(side: QueueSide, opts: Readonly<Record<string, any>>, loaded?: () => void) => Promise<OpenedPublisher|OpenedConsumer>} open
 *   `opts` is what check returned; a failure is thrown as it is (the caller names the service);
 *   `loaded` is called once the SDK is imported, right before the first call to the service
 * @property {(side: QueueSide, opts: Readonly<Record<string, any>>, work: { threads?: number }) => string} describe
 *   the run description's words for it ('SNS→SQS (raw delivery off)', '4 SQS poller(s) … on queue q')
 * @property {(opts: Readonly<Record<string, any>>) => string} where the service and where it
 *   is, for error lines ('Pub/Sub at 127.0.0.1:8085', 'SNS in the AWS cloud (region eu-west-1)')
 * @property {(opts: Readonly<Record<string, any>>) => Record<string, unknown>} facts where the
 *   run went, for the manifest and summary (names and endpoints only, no secrets)
 * @property {QueueConsumerTraits} [consumer] with a consume side
 * @property {QueueOps} [ops]
 * @property {QueueEmulator} [emulator]
 */

/**
 * A driver's module, imported, with `loaded` told once it is (what comes after is the service's time).
 * @template T
 * @param {Promise<T>} importing
 * @param {(() => void)|undefined} loaded
 * @returns {Promise<T>}
 */
export async function importThen(importing, loaded) {
  const mod = await importing;
  loaded?.();
  return mod;
}
