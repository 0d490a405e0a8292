/**
 * SQS and SNS operations for `rqbench ops` (seed 003 timed SNS GetTopicAttributes and Publish;
 * issue 7 adds SQS SendMessage and ReceiveMessage): a queue and a topic of the run's own are made
 * first and deleted last. An SDK client connects on its first call, so "connect" here is making
 * the client, and the first call carries the TCP (and TLS) handshake.
 */
import { SQSClient, CreateQueueCommand, DeleteQueueCommand, SendMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { SNSClient, CreateTopicCommand, DeleteTopicCommand, GetTopicAttributesCommand, PublishCommand } from '@aws-sdk/client-sns';
import { awsClientConfig } from './aws.js';
import { awsClients } from './aws-sessions.js';

const BODY = 'x'.repeat(128);

/** @typedef {import('./queue-driver.js').OpsService} OpsService */

/**
 * SQS: SendMessage and ReceiveMessage on a queue of the run's own.
 * @param {{ endpoint?: string, region?: string }} where
 * @param {string} name the queue's name
 * @returns {OpsService}
 */
export function sqsService(where, name) {
  const { session, admin } = awsClients(SQSClient, awsClientConfig(where), where.endpoint ?? 'SQS in AWS');
  let queueUrl;
  return {
    service: 'SQS',
    setup: () =>
      admin(async (c) => {
        queueUrl = (await c.send(new CreateQueueCommand({ QueueName: name }))).QueueUrl;
      }),
    teardown: () => (queueUrl ? admin((c) => c.send(new DeleteQueueCommand({ QueueUrl: queueUrl }))).then(() => {}) : Promise.resolve()),
    ops: [
      {
        name: 'ReceiveMessage',
        what: 'one message at most, no long polling (WaitTimeSeconds 0)',
        open: session(
          'ReceiveMessage',
          () => new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 0 }),
        ),
      },
      {
        name: 'SendMessage',
        what: '128 B body',
        open: session('SendMessage', () => new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: BODY })),
      },
    ],
  };
}

/**
 * SNS: GetTopicAttributes and Publish on a topic of the run's own (no subscriber).
 * @param {{ endpoint?: string, region?: string }} where
 * @param {string} name the topic's name
 * @returns {OpsService}
 */
export function snsService(where, name) {
  const { session, admin } = awsClients(SNSClient, awsClientConfig(where), where.endpoint ?? 'SNS in AWS');
  let topicArn;
  return {
    service: 'SNS',
    setup: () =>
      admin(async (c) => {
        topicArn = (await c.send(new CreateTopicCommand({ Name: name }))).TopicArn;
      }),
    teardown: () => (topicArn ? admin((c) => c.send(new DeleteTopicCommand({ TopicArn: topicArn }))).then(() => {}) : Promise.resolve()),
    ops: [
      {
        name: 'GetTopicAttributes',
        what: "the run's topic",
        open: session('GetTopicAttributes', () => new GetTopicAttributesCommand({ TopicArn: topicArn })),
      },
      {
        name: 'Publish',
        what: '128 B message, no subscriber',
        open: session('Publish', () => new PublishCommand({ TopicArn: topicArn, Message: BODY })),
      },
    ],
  };
}
