import { describe, it, expect } from 'vitest';
import { redact, redactString } from '../../src/record/redact.js';
import { connectionFrom, describeConnection, parseClusterNodes, parseReplicas } from '../../src/transports/redis.js';

describe('redaction', () => {
  it('masks passwords in URLs and drops secret-named fields', () => {
    expect(redactString('connect redis://bob:hunter2@h:6379/0 now')).toBe('connect redis://bob:***@h:6379/0 now');
    expect(redactString('rediss://:hunter2@h:6380')).toBe('rediss://:***@h:6380');
    const r = redact({ url: 'redis://u:pw1@h:1', password: 'pw2', nested: { awsSecretAccessKey: 'x', token: 't', ok: 1 } });
    expect(JSON.stringify(r)).not.toMatch(/pw1|pw2|"x"|"t"/);
    expect(r.nested.ok).toBe(1);
  });
  it('masks a password given as a flag or in REDIS_PASSWORD, in every form a line may quote it', () => {
    expect(redactString('must not hold "--password=s3cr3tPW": x')).toBe('must not hold "--password=***": x');
    expect(redactString('ran --password s3cr3tPW -q 5')).toBe('ran --password *** -q 5');
    expect(redactString("--password='a b' and REDIS_PASSWORD=s3cr3tPW")).toBe('--password=*** and REDIS_PASSWORD=***');
    // help text's columns, and a flag followed by another flag, are left alone
    expect(redactString('  --password       password (or set REDIS_PASSWORD)')).toBe('  --password       password (or set REDIS_PASSWORD)');
    expect(redactString('--password --tls')).toBe('--password --tls');
  });
  it('masks a URL password holding @ or : as typed, up to the last @ before the host', () => {
    expect(redactString('got "redis://:h3ad@m1d:t41l@127.0.0.1:1/x"')).toBe('got "redis://:***@127.0.0.1:1/x"');
    expect(redactString('ftp://bob:h3ad@m1d@h and redis://h:1 x@y')).toBe('ftp://bob:***@h and redis://h:1 x@y');
    // a user alone is no secret; an address with no user is left as it is
    expect(redactString('redis://bob@h:1 redis://h:1/0')).toBe('redis://bob@h:1 redis://h:1/0');
  });
  it('masks a --password= value that starts with a dash or holds quotes, and leaves its own lines readable', () => {
    expect(redactString('--password=-s3cr3t x')).toBe('--password=*** x');
    expect(redactString(String.raw`"--password=a\"b,c": x`)).toBe('"--password=***": x');
    expect(redactString('--password was given 2 times (***, ***)')).toBe('--password was given 2 times (***, ***)');
    expect(redactString('--password needs a value')).toBe('--password needs a value');
    expect(redactString("rqbench capacity --password 'a b' -t 1")).toBe('rqbench capacity --password *** -t 1');
  });
  it('builds connections from URLs and never shows the password', () => {
    const c = connectionFrom({ url: 'rediss://alice:s%40cret@cache.example:6380/2', tlsInsecure: true });
    expect(c).toMatchObject({ host: 'cache.example', port: 6380, username: 'alice', password: 's@cret', db: 2 });
    expect(c.tls).toEqual({ rejectUnauthorized: false });
    expect(describeConnection(c)).toBe('rediss://alice:***@cache.example:6380/2');
    expect(describeConnection(connectionFrom({ host: '::1', port: 7000 }))).toBe('redis://[::1]:7000');
  });
});

describe('topology parsing', () => {
  const text = [
    '07c3 127.0.0.1:30004@40004 slave e7d1 0 1 4 connected',
    'e7d1 127.0.0.1:30001@40001 myself,master - 0 0 1 connected 0-5460',
    '67ed 127.0.0.1:30002@40002 master - 0 1 2 connected 5461-10922 [10923->-292f]',
    '292f 127.0.0.1:30003@40003 master - 0 1 3 connected 10923-16383',
    '6ec2 127.0.0.1:30005@40005 slave 67ed 0 1 5 connected',
    '824f 127.0.0.1:30006@40006 slave 292f 0 1 6 connected',
  ].join('\n');
  it('gives roles, slots and shards numbered by the lowest slot', () => {
    const nodes = parseClusterNodes(text);
    expect(nodes).toHaveLength(6);
    const by = Object.fromEntries(nodes.map((n) => [n.port, n]));
    expect(by[30001]).toMatchObject({ role: 'master', shard: 1, slots: [[0, 5460]] });
    expect(by[30002]).toMatchObject({ role: 'master', shard: 2, slots: [[5461, 10922]] });
    expect(by[30004]).toMatchObject({ role: 'replica', shard: 1, masterId: 'e7d1' });
    expect(by[30006]).toMatchObject({ role: 'replica', shard: 3 });
  });
  it('reads replicas from INFO replication', () => {
    const info =
      'role:master\r\nconnected_slaves:2\r\nslave0:ip=127.0.0.1,port=6380,state=online,offset=1,lag=0\r\nslave1:ip=10.0.0.2,port=6379,state=online,offset=1,lag=1\r\n';
    const r = parseReplicas(info, { id: 'm' });
    expect(r.map((n) => [n.addr, n.role])).toEqual([
      ['127.0.0.1:6380', 'replica'],
      ['10.0.0.2:6379', 'replica'],
    ]);
  });
});
