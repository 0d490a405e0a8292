// A process held off the CPU on a busy host runs its due timers before the I/O that arrived
// meanwhile: a connect or an answer that came in time must not be called "no answer" (a CI run's
// consumer said "cannot connect to 127.0.0.1:…: no answer within 3000 ms" to a Redis that was up).
// The event loop is blocked here for longer than the bound, right after the connect or the call.
// A real TCP server on 127.0.0.1.
import net from 'node:net';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openSocket } from '../../src/transports/socket.js';
import { within } from '../../src/transports/bounds.js';

/** @type {net.Server} */ let server;
/** @type {net.Server} */ let silent;
/** Each server's side of the connections made to it. @type {net.Socket[]} */
const accepted = [];

beforeAll(async () => {
  server = net.createServer((c) => accepted.push(c));
  // accepts and never says a word (a TLS client waits on its handshake for ever)
  silent = net.createServer((c) => accepted.push(c));
  await Promise.all([server, silent].map((s) => new Promise((r) => s.listen(0, '127.0.0.1', () => r(undefined)))));
});

afterAll(async () => {
  for (const c of accepted) c.destroy();
  await Promise.all([server, silent].map((s) => new Promise((r) => s.close(() => r(undefined)))));
});

const port = (s) => /** @type {net.AddressInfo} */ (s.address()).port;
/** Holds the event loop, as a process descheduled on a busy host is held. */
const block = (ms) => {
  const until = Date.now() + ms;
  while (Date.now() < until);
};

it('a connection made while the process was held is made, not timed out', async () => {
  const opening = openSocket({ host: '127.0.0.1', port: port(server), connectTimeoutMs: 50 });
  block(300);
  const s = await opening;
  expect(s.remotePort).toBe(port(server));
  s.destroy();
});

it('an answer that arrived while the process was held settles the call before its bound', async () => {
  const before = accepted.length;
  const s = await openSocket({ host: '127.0.0.1', port: port(server) });
  while (accepted.length === before) await new Promise((r) => setImmediate(r));
  const answer = new Promise((resolve) => s.once('data', (d) => resolve(String(d))));
  const bounded = within(answer, 50, 'PING');
  // the server (in this process) answers at once; the client's process is held past the bound
  accepted[before].write('ok\n');
  block(300);
  await expect(bounded).resolves.toBe('ok\n');
  s.destroy();
});

it('no answer is still no answer: a TLS handshake nobody answers, a call nobody answers', async () => {
  const started = Date.now();
  await expect(openSocket({ host: '127.0.0.1', port: port(silent), tls: true, connectTimeoutMs: 200 })).rejects.toThrow(
    `cannot connect to 127.0.0.1:${port(silent)}: no answer within 200 ms`,
  );
  expect(Date.now() - started).toBeLessThan(2000);
  await expect(within(new Promise(() => {}), 100, 'PING')).rejects.toThrow('PING: no answer within 0.1 s');
});
