import { afterEach, describe, expect, it } from 'vitest';
import { ConfigDataSchema } from '../model/index.js';
import { startSilentServer, startSmtp } from '../test-support/smtp.js';
import { Mailer } from './mailer.js';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const mailThrough = (port: number) => ({
  ...ConfigDataSchema.parse({}).mail,
  from_address: 'help@shop.example',
  smtp: { ...ConfigDataSchema.parse({}).mail.smtp, host: '127.0.0.1', port, secure: false },
});
const message = { to: ['ada@example.com'], subject: 'Your teapot', text: 'On its way.', html: '<p>On its way.</p>' };

describe('Mailer', () => {
  it('gives up a delivery to a server that trickles its answers at the time limit, and sends the next one', async () => {
    const slow = await startSilentServer({ trickle: true });
    cleanup.push(() => slow.close());
    const mailer = new Mailer(1500);
    cleanup.push(() => mailer.close());
    // Never idle (a line every 200 ms), never done: only the delivery's own limit ends it.
    await expect(mailer.send(mailThrough(slow.port), message)).rejects.toThrow(
      'the SMTP server did not finish within 1.5 s',
    );

    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    await mailer.send(mailThrough(smtp.port), message);
    const [received] = await smtp.waitFor(1);
    expect(received!.subject).toBe('Your teapot');
  });
});
