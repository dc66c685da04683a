import { generateKeyPairSync } from 'node:crypto';
import { dkimVerify } from 'mailauth/lib/dkim/verify.js';
import { afterEach, describe, expect, it } from 'vitest';
import { startSmtp } from '../test-support/smtp.js';
import { createTicket, startServer } from '../test-support/server.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('DKIM', () => {
  it('signs outgoing mail with the configured key, verifiable against the public key in DNS, and never shows the key', async () => {
    const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const spki = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
    const smtp = await startSmtp();
    cleanup.push(() => smtp.close());
    const s = await startServer();
    cleanup.push(() => s.close());
    const res = await s.call('POST', '/admin?r=mail', {
      json: {
        from_address: 'help@shop.example',
        smtp: { host: '127.0.0.1', port: smtp.port },
        dkim: { domain_name: 'shop.example', key_selector: 'ticketing', private_key: pem },
      },
    });
    expect(res.body.mail.dkim).toEqual({
      domain_name: 'shop.example',
      key_selector: 'ticketing',
      private_key_set: true,
    });
    expect(JSON.stringify((await s.call('GET', '/admin?r=all')).body)).not.toContain('PRIVATE KEY');
    await createTicket(s, { subject: 'signed' });
    const [mail] = await smtp.waitFor(1, 20_000); // a 2048-bit signature on a busy machine
    // The receiver's check, with the selector's TXT record answered as DNS would.
    const resolver = async (name: string, rr: string) => {
      if (name === 'ticketing._domainkey.shop.example' && rr === 'TXT') return [[`v=DKIM1; k=rsa; p=${spki}`]];
      throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    };
    const verified = await dkimVerify(mail!.raw, { resolver });
    expect(verified.results.map((r) => r.status.result)).toEqual(['pass']);
    // A changed body no longer verifies: the signature covers it.
    const tampered = Buffer.from(mail!.raw.toString().replace('thank you for writing', 'send your password'));
    expect(tampered.equals(mail!.raw)).toBe(false);
    const bad = await dkimVerify(tampered, { resolver });
    expect(bad.results).toHaveLength(1);
    expect(bad.results[0]!.status.result).not.toBe('pass');
    expect(bad.results[0]!.status.comment).toMatch(/body hash/i);
  });
});
