import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startChild, type ChildServer } from '../test-support/child-server.js';
import { sendTo, SUPPORT } from '../test-support/mail-in.js';
import { eventually } from '../test-support/receiver.js';
import { makeKeys, storeEnv } from '../test-support/server.js';
import { freePort } from '../test-support/smtp.js';
import { SPOOL_DIRS } from './spool.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const MAILS = 40;
const SENDERS = 4;

describe('the receiver under a crash', () => {
  it('turns every mail it said 250 to into exactly one ticket after a kill and a restart, and the senders’ retries into none more', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'ticketing-mail-crash-'));
    cleanup.push(() => rm(dataDir, { recursive: true, force: true }));
    const keys = makeKeys();
    const port = await freePort();
    const env = {
      ...(await storeEnv(dataDir)),
      TICKETING_KEYS: Object.values(keys).join(','),
      TICKETING_INBOUND_SMTP_PORT: String(port),
      TICKETING_RATE_LIMIT: 'off',
    };
    const api = (child: ChildServer, path: string, init: RequestInit = {}) =>
      fetch(`${child.url}/v1${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${keys.sk}`, 'Content-Type': 'application/json' },
      });
    const first = await startChild(env);
    cleanup.push(async () => void first.proc.kill('SIGKILL'));
    expect(
      (await api(first, '/admin?r=mail', { method: 'POST', body: JSON.stringify({ from_address: SUPPORT }) })).status,
    ).toBe(200);

    const mail = (i: number) => ({
      from: `customer${i}@example.com`,
      to: SUPPORT,
      subject: `crash ${i}`,
      text: `mail number ${i}`,
      messageId: `<crash-${i}@example.com>`,
    });
    const accepted = new Set<number>();
    const refusedOrCut = new Set<number>();
    let killed = false;
    // Several senders at once; the server is killed (SIGKILL: no shutdown of any kind) once a
    // quarter of the mails got their 250, with the others in flight.
    const sender = async (k: number) => {
      for (let i = k; i < MAILS; i += SENDERS) {
        try {
          await sendTo(port, mail(i));
          accepted.add(i);
          if (accepted.size === MAILS / 4 && !killed) {
            killed = true;
            first.proc.kill('SIGKILL');
          }
        } catch {
          refusedOrCut.add(i);
        }
      }
    };
    await Promise.all(Array.from({ length: SENDERS }, (_, k) => sender(k)));
    await first.exited;
    expect(killed).toBe(true);
    expect(accepted.size).toBeGreaterThanOrEqual(MAILS / 4);
    expect(refusedOrCut.size).toBeGreaterThan(0); // the kill did cut deliveries in flight

    const second = await startChild(env);
    cleanup.push(async () => {
      second.proc.kill('SIGTERM');
      await second.exited;
    });
    // The sending servers retry what got no 250, as MTAs do; some of it may have been spooled already.
    for (const i of refusedOrCut) await sendTo(port, mail(i));
    let left: string[] = [];
    await eventually(
      async () => (left = await readdir(join(dataDir, SPOOL_DIRS.spool))).length === 0,
      20_000,
      'the spool to empty',
    ).catch((err: Error) => {
      throw new Error(`${err.message}: ${left.join(', ')}\n${second.output()}`);
    });
    const list = (await (await api(second, '/list?limit=200')).json()) as { data: { subject: string }[] };
    const subjects = list.data.map((t) => t.subject).sort();
    // Every mail exactly once: those that got 250 before the kill, and the retried ones.
    expect(subjects).toEqual(Array.from({ length: MAILS }, (_, i) => `crash ${i}`).sort());
    expect(await readdir(join(dataDir, SPOOL_DIRS.failed))).toEqual([]);
  }, 90_000); // two starts of the real entry point through tsx, on a shared machine
});
