/**
 * SQS and SNS operations for `rqbench ops` (seed 003 timed SNS GetTopicAttributes and Publish;
 * issue 7 adds SQS SendMessage and ReceiveMessage): a queue and a topic of the run's own are made
 * first and deleted last. An SDK client connects on its first call, so "connect" here is making
 * the client, and the first call carries the TCP (and TLS) handshake.
 */
import {
  SQSClient, CreateQueueCommand, DeleteQueueCommand, SendMessageCommand, ReceiveMessageCommand,
} from '@aws-sdk/client-sqs';
import { SNSClient, CreateTopicCommand, DeleteTopicCommand, GetTopicAttributesCommand, PublishCommand } from '@aws-sdk/client-sns';
import { awsClientConfig } from '../targets/aws.js';

const BODY = 'x'.repeat(128);

/**
 * @param {{ endpoint?: string, region?: string }} where
 * @param {string} name resource name (queue and topic)
 * @returns {Array<{ service: string, setup: () => Promise<void>, teardown: () => Promise<void>,
 *   ops: Array<{ name: string, what: string, open: () => Promise<import('./time-op.js').OpSession> }> }>}
 */
export function awsServices(where, name) {
  const cfg = awsClientConfig(where);
  let queueUrl;
  let topicArn;
  const sqsSession = (send) => async () => {
    const client = new SQSClient(cfg);
    return { call: () => client.send(send()), close: () => client.destroy() };
  };
  const snsSession = (send) => async () => {
    const client = new SNSClient(cfg);
    return { call: () => client.send(send()), close: () => client.destroy() };
  };
  const admin = (Client) => async (fn) => {
    const client = new Client(cfg);
    try {
      return await fn(client);
    } finally {
      client.destroy();
    }
  };
  return [
    {
      service: 'SQS',
      setup: () => admin(SQSClient)(async (c) => { queueUrl = (await c.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl; }),
      teardown: () => (queueUrl ? admin(SQSClient)((c) => c.send(new DeleteQueueCommand({ QueueUrl: queueUrl }))) : Promise.resolve()),
      ops: [
        { name: 'ReceiveMessage', what: 'one message at most, no long polling (WaitTimeSeconds 0)', open: sqsSession(() => new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 })) },
        { name: 'SendMessage', what: '128 B body', open: sqsSession(() => new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: BODY })) },
      ],
    },
    {
      service: 'SNS',
      setup: () => admin(SNSClient)(async (c) => { topicArn = (await c.send(new CreateTopicCommand({ Name: name }))).TopicArn; }),
      teardown: () => (topicArn ? admin(SNSClient)((c) => c.send(new DeleteTopicCommand({ TopicArn: topicArn }))) : Promise.resolve()),
      ops: [
        { name: 'GetTopicAttributes', what: 'the run\'s topic', open: snsSession(() => new GetTopicAttributesCommand({ TopicArn: topicArn })) },
        { name: 'Publish', what: '128 B message, no subscriber', open: snsSession(() => new PublishCommand({ TopicArn: topicArn, Message: BODY })) },
      ],
    },
  ];
}
