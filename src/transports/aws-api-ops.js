/**
 * The rest of seed 003's services for `rqbench ops`, two operations each (a read and a write, as
 * the seed chose them): S3 HeadObject / PutObject and, for the seed's separate S3 Express table,
 * PutObject / GetObject (on the SQS/SNS/S3 emulator); STS AssumeRole / GetCallerIdentity,
 * CloudWatch GetMetricData / PutMetricData, CloudWatch Events DescribeEventBus / PutEvents,
 * DynamoDB GetItem / PutItem and Pinpoint GetEndpoint / PutEvents (on moto's server, or AWS).
 * Each makes the resources its operations need first (a bucket, a metric, a table, an app) and
 * deletes them last. Clients and the not-emulated rows: aws-sessions.js.
 */
import { awsClientConfig } from './aws.js';
import { awsClients } from './aws-sessions.js';

const BODY = 'x'.repeat(128);

/** @typedef {import('./queue-driver.js').OpsService} OpsService */

/**
 * The service's clients; its SDK is loaded when the service is opened (each is a few MB).
 * @param {string} service
 * @param {{ endpoint?: string, region?: string }} where
 * @param {new (cfg: object) => any} Client
 * @param {object} [extra] client config beside the endpoint's
 */
function base(service, where, Client, extra = {}) {
  return awsClients(Client, { ...awsClientConfig(where), ...extra }, where.endpoint ?? `${service} in AWS`);
}

/** S3 object names: one bucket per service, named after the run (lower case, as S3 wants). */
const bucketOf = (name, suffix) =>
  `${name
    .toLowerCase()
    .replace(/[^a-z0-9-]/g, '-')
    .slice(0, 50)}-${suffix}`;

/**
 * S3: HeadObject on an object put in setup, PutObject of 128 B. Path-style addressing on an
 * emulator (its buckets are not DNS names).
 * @param {{ endpoint?: string, region?: string }} where @param {string} name @returns {Promise<OpsService>}
 */
export async function s3Service(where, name) {
  const s3 = await import('@aws-sdk/client-s3');
  return bucketService('S3', where, name, s3, [
    ['HeadObject', 'an object of 128 B', (b) => new s3.HeadObjectCommand({ Bucket: b, Key: 'head' })],
    ['PutObject', '128 B body', (b) => new s3.PutObjectCommand({ Bucket: b, Key: 'put', Body: BODY })],
  ]);
}

/**
 * The seed's S3 Express table (E2E duration of PutObject and GetObject). S3 Express One Zone
 * needs a directory bucket in one Availability Zone; here a bucket of the run's own stands in.
 * @param {{ endpoint?: string, region?: string }} where @param {string} name @returns {Promise<OpsService>}
 */
export async function s3ExpressService(where, name) {
  const s3 = await import('@aws-sdk/client-s3');
  return bucketService('S3Express', where, name, s3, [
    ['PutObject', '128 B body', (b) => new s3.PutObjectCommand({ Bucket: b, Key: 'put', Body: BODY })],
    [
      'GetObject',
      'an object of 128 B, body read',
      (b) => new s3.GetObjectCommand({ Bucket: b, Key: 'head' }),
      async (out) => {
        await out.Body?.transformToByteArray();
      },
    ],
  ]);
}

/**
 * @param {string} service
 * @param {{ endpoint?: string, region?: string }} where
 * @param {string} name
 * @param {any} s3 the SDK module
 * @param {Array<[string, string, (bucket: string) => any, ((out: any) => Promise<void>)?]>} ops
 * @returns {OpsService}
 */
function bucketService(service, where, name, s3, ops) {
  const { session, admin } = base(service, where, s3.S3Client, where.endpoint ? { forcePathStyle: true } : {});
  const bucket = bucketOf(name, service.toLowerCase());
  let made = false;
  return {
    service,
    setup: () =>
      admin(async (c) => {
        await c.send(new s3.CreateBucketCommand({ Bucket: bucket }));
        made = true;
        await c.send(new s3.PutObjectCommand({ Bucket: bucket, Key: 'head', Body: BODY }));
      }),
    teardown: () =>
      made
        ? admin(async (c) => {
            for (const Key of ['head', 'put']) await c.send(new s3.DeleteObjectCommand({ Bucket: bucket, Key }));
            await c.send(new s3.DeleteBucketCommand({ Bucket: bucket }));
          })
        : Promise.resolve(),
    ops: ops.map(([op, what, command, read]) => {
      const open = session(op, () => command(bucket));
      return {
        name: op,
        what,
        // GetObject's time includes reading the body, as a caller's would
        open: read
          ? async () => {
              const s = await open();
              return { ...s, call: async () => read(await s.call()) };
            }
          : open,
      };
    }),
  };
}

/**
 * STS: AssumeRole of a role ARN (moto accepts any; in AWS, `--assume-role-arn`) and GetCallerIdentity.
 * @param {{ endpoint?: string, region?: string, roleArn?: string }} where @param {string} name @returns {Promise<OpsService>}
 */
export async function stsService(where, name) {
  const sts = await import('@aws-sdk/client-sts');
  const { session } = base('STS', where, sts.STSClient);
  const roleArn = where.roleArn ?? 'arn:aws:iam::123456789012:role/rqbench-ops';
  return {
    service: 'STS',
    setup: async () => {},
    teardown: async () => {},
    ops: [
      {
        name: 'AssumeRole',
        what: `role ${roleArn}, 15 min session`,
        open: session(
          'AssumeRole',
          () => new sts.AssumeRoleCommand({ RoleArn: roleArn, RoleSessionName: name.slice(0, 64), DurationSeconds: 900 }),
        ),
      },
      {
        name: 'GetCallerIdentity',
        what: "the caller's own identity",
        open: session('GetCallerIdentity', () => new sts.GetCallerIdentityCommand({})),
      },
    ],
  };
}

/**
 * CloudWatch: GetMetricData over the last 5 minutes of a metric of the run's own, PutMetricData of one datum.
 * @param {{ endpoint?: string, region?: string }} where @param {string} name @returns {Promise<OpsService>}
 */
export async function cloudWatchService(where, name) {
  const cw = await import('@aws-sdk/client-cloudwatch');
  const { session, admin } = base('CloudWatch', where, cw.CloudWatchClient);
  const Namespace = `rqbench/${name}`;
  const put = () => new cw.PutMetricDataCommand({ Namespace, MetricData: [{ MetricName: 'ops', Value: 1, Unit: 'Count' }] });
  const get = () =>
    new cw.GetMetricDataCommand({
      StartTime: new Date(Date.now() - 300_000),
      EndTime: new Date(),
      MetricDataQueries: [{ Id: 'q', MetricStat: { Metric: { Namespace, MetricName: 'ops' }, Period: 60, Stat: 'Sum' } }],
    });
  return {
    service: 'CloudWatch',
    setup: () => admin((c) => c.send(put())).then(() => {}),
    // metrics cannot be deleted; they age out
    teardown: async () => {},
    ops: [
      { name: 'GetMetricData', what: 'one metric, 5 min at 60 s periods', open: session('GetMetricData', get) },
      { name: 'PutMetricData', what: 'one datum', open: session('PutMetricData', put) },
    ],
  };
}

/**
 * CloudWatch Events (the EventBridge API): DescribeEventBus of the default bus, PutEvents of one entry.
 * @param {{ endpoint?: string, region?: string }} where @param {string} name @returns {Promise<OpsService>}
 */
export async function eventsService(where, name) {
  const eb = await import('@aws-sdk/client-eventbridge');
  const { session } = base('CloudWatch Events', where, eb.EventBridgeClient);
  return {
    service: 'CloudWatch Events',
    setup: async () => {},
    teardown: async () => {},
    ops: [
      { name: 'DescribeEventBus', what: 'the default bus', open: session('DescribeEventBus', () => new eb.DescribeEventBusCommand({})) },
      {
        name: 'PutEvents',
        what: 'one entry of 128 B, default bus',
        open: session(
          'PutEvents',
          () =>
            new eb.PutEventsCommand({ Entries: [{ Source: `rqbench.${name}`, DetailType: 'ops', Detail: JSON.stringify({ x: BODY }) }] }),
        ),
      },
    ],
  };
}

/**
 * DynamoDB: GetItem and PutItem of a 128 B item in an on-demand table of the run's own.
 * @param {{ endpoint?: string, region?: string }} where @param {string} name @returns {Promise<OpsService>}
 */
export async function dynamoDbService(where, name) {
  const db = await import('@aws-sdk/client-dynamodb');
  const { session, admin } = base('DynamoDB', where, db.DynamoDBClient);
  const TableName = name;
  let made = false;
  const item = (id) => ({ id: { S: id }, v: { S: BODY } });
  return {
    service: 'DynamoDB',
    setup: () =>
      admin(async (c) => {
        await c.send(
          new db.CreateTableCommand({
            TableName,
            BillingMode: 'PAY_PER_REQUEST',
            AttributeDefinitions: [{ AttributeName: 'id', AttributeType: 'S' }],
            KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
          }),
        );
        made = true;
        await db.waitUntilTableExists({ client: c, maxWaitTime: 120 }, { TableName });
        await c.send(new db.PutItemCommand({ TableName, Item: item('get') }));
      }),
    teardown: () => (made ? admin((c) => c.send(new db.DeleteTableCommand({ TableName }))).then(() => {}) : Promise.resolve()),
    ops: [
      {
        name: 'GetItem',
        what: 'one item of 128 B by key, eventually consistent',
        open: session('GetItem', () => new db.GetItemCommand({ TableName, Key: { id: { S: 'get' } } })),
      },
      {
        name: 'PutItem',
        what: 'one item of 128 B',
        open: session('PutItem', () => new db.PutItemCommand({ TableName, Item: item('put') })),
      },
    ],
  };
}

/**
 * Pinpoint: GetEndpoint and PutEvents (one event for one endpoint) in an app of the run's own.
 * @param {{ endpoint?: string, region?: string }} where @param {string} name @returns {Promise<OpsService>}
 */
export async function pinpointService(where, name) {
  const pp = await import('@aws-sdk/client-pinpoint');
  const { session, admin, notImplemented } = base('Pinpoint', where, pp.PinpointClient);
  let appId;
  const EndpointId = 'rqbench';
  return {
    service: 'Pinpoint',
    setup: () =>
      admin(async (c) => {
        appId = (await c.send(new pp.CreateAppCommand({ CreateApplicationRequest: { Name: name } }))).ApplicationResponse?.Id;
        // the endpoint GetEndpoint reads; an emulator without UpdateEndpoint leaves GetEndpoint to say so
        await c
          .send(
            new pp.UpdateEndpointCommand({
              ApplicationId: appId,
              EndpointId,
              EndpointRequest: { ChannelType: 'CUSTOM', Address: 'rqbench' },
            }),
          )
          .catch((e) => {
            if (!notImplemented(e)) throw e;
          });
      }),
    teardown: () => (appId ? admin((c) => c.send(new pp.DeleteAppCommand({ ApplicationId: appId }))).then(() => {}) : Promise.resolve()),
    ops: [
      {
        name: 'GetEndpoint',
        what: 'one endpoint of the app',
        open: session('GetEndpoint', () => new pp.GetEndpointCommand({ ApplicationId: appId, EndpointId })),
      },
      {
        name: 'PutEvents',
        what: 'one event for one endpoint',
        open: session(
          'PutEvents',
          () =>
            new pp.PutEventsCommand({
              ApplicationId: appId,
              EventsRequest: {
                BatchItem: {
                  [EndpointId]: { Endpoint: {}, Events: { e: { EventType: 'rqbench.ops', Timestamp: new Date().toISOString() } } },
                },
              },
            }),
        ),
      },
    ],
  };
}
