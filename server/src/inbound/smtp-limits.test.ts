import { readdir } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import nodemailer, { type SendMailOptions } from 'nodemailer';
import { afterEach, describe, expect, it } from 'vitest';
import { startMailServer, SUPPORT } from '../test-support/mail-in.js';
import { SPOOL_DIRS } from './spool.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

// Two clients on loopback: Linux answers every 127.0.0.0/8 address, so a second client is a second
// source address on the same machine.
const FIRST = '127.0.0.1';
const SECOND = '127.0.0.2';

/** One mail from `localAddress`, over SMTP as any client sends it. */
async function sendFrom(localAddress: string, port: number, mail: SendMailOptions) {
  const transport = nodemailer.createTransport({
    host: '127.0.0.1',
    port,
    secure: false,
    ignoreTLS: true,
    localAddress,
  });
  try {
    return await transport.sendMail(mail);
  } finally {
    transport.close();
  }
}

/** A connection from `localAddress` that reads the greeting and then says nothing; resolves with the greeting. */
function idleConnection(localAddress: string, port: number): Promise<{ socket: Socket; greeting: string }> {
  return new Promise((ok, fail) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.once('error', fail);
    socket.once('data', (d) => ok({ socket, greeting: d.toString() }));
  });
}

describe('the SMTP receiver’s limits per client (issue 28)', () => {
  it('lets one client address hold only a few connections, so its idle connections lock out no other sender', async () => {
    const { s, port, close } = await startMailServer();
    cleanup.push(close);
    const sockets: Socket[] = [];
    cleanup.push(async () => sockets.forEach((x) => x.destroy()));
    const greetings: string[] = [];
    // As many idle connections as the old receiver took in all.
    for (let i = 0; i < 20; i++) {
      const c = await idleConnection(FIRST, port);
      sockets.push(c.socket);
      greetings.push(c.greeting.slice(0, 3));
    }
    expect(greetings.filter((g) => g === '220')).toHaveLength(5);
    expect(greetings.filter((g) => g === '421')).toHaveLength(15);

    const out = await sendFrom(SECOND, port, { from: 'ada@example.com', to: SUPPORT, subject: 'hello', text: 'hi' });
    expect(out.accepted).toEqual([SUPPORT]);
    await s.running.inbound.spool.idle();
    expect(s.running.inbound.spool.outcomes.at(-1)!.outcome.kind).toBe('created');
    // The first client's idle connections count until they close: then it may connect again.
    sockets.splice(0).forEach((x) => x.destroy());
    let again = '';
    for (let i = 0; i < 50 && again !== '220'; i++) {
      const c = await idleConnection(FIRST, port);
      again = c.greeting.slice(0, 3);
      c.socket.destroy();
      if (again !== '220') await new Promise((r) => setTimeout(r, 50));
    }
    expect(again).toBe('220');
  }, 60_000);

  it('opens at most the set number of tickets per client address in 10 minutes, however often From changes, and keeps the rest for review', async () => {
    const { s, port, close } = await startMailServer({
      env: { TICKETING_RATE_LIMIT: 'on', TICKETING_INBOUND_TICKETS_PER_CLIENT: '3' },
    });
    cleanup.push(close);
    const spool = s.running.inbound.spool;
    const before = spool.outcomes.length;
    for (let i = 0; i < 5; i++) {
      const out = await sendFrom(FIRST, port, {
        from: `sender${i}@example.com`,
        to: SUPPORT,
        subject: `flood ${i}`,
        text: 'flood',
      });
      expect(out.accepted).toEqual([SUPPORT]);
      await spool.idle();
    }
    const kinds = spool.outcomes.slice(before).map((o) => o.outcome.kind);
    expect(kinds).toEqual(['created', 'created', 'created', 'refused', 'refused']);
    expect(spool.outcomes.at(-1)!.outcome).toEqual({
      kind: 'refused',
      reason: 'this client address opened too many tickets by mail in 10 minutes',
    });
    expect((await readdir(join(s.dataDir, SPOOL_DIRS.refused))).filter((f) => f.endsWith('.eml'))).toHaveLength(2);

    // Another client still gets through.
    await sendFrom(SECOND, port, { from: 'ada@example.com', to: SUPPORT, subject: 'real', text: 'a real question' });
    await spool.idle();
    expect(spool.outcomes.at(-1)!.outcome.kind).toBe('created');
  }, 60_000);
});
