import { createHmac } from 'node:crypto';
import { fireEvent } from '@testing-library/preact';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  $,
  byText,
  mountWidget,
  server,
  support,
  until,
  type Mounted,
  type TestServer,
} from './test-support/widget.js';

const SECRET = 'the-shop-identity-secret-0123456789';
const sign = (email: string) => createHmac('sha256', SECRET).update(email).digest('hex');

let s: TestServer;
let w: Mounted | undefined;
beforeAll(async () => {
  s = await server();
  await support(s, 'POST', '/admin?r=identity', { secret: SECRET });
});
afterAll(() => s.close());
beforeEach(() => localStorage.clear());
afterEach(() => {
  w?.handle.destroy();
  w = undefined;
});

/** A ticket filed with the public key (as from another browser), remembered here when `remember`. */
async function ticket(email: string, subject: string, remember = true) {
  const created = await support(s, 'POST', '/create', { name: 'Ada', email, subject, message: 'Hello' }, s.keys.pk);
  const id = created.body.id as string;
  if (remember) {
    const list = JSON.parse(localStorage.getItem(`ticketing:tickets:${s.keys.pk}`) ?? '[]');
    list.push({ id, email, subject, created_at: created.body.created_at, seen: 0 });
    localStorage.setItem(`ticketing:tickets:${s.keys.pk}`, JSON.stringify(list));
  }
  return id;
}
const launcher = () => $<HTMLButtonElement>(w!.root, 'button.launcher');

describe('unread replies on the launcher', () => {
  it('appear within 2 s of a support reply with the panel closed (never loaded), named, announced and told to the page', async () => {
    const id = await ticket('ada@example.com', 'Leaky teapot');
    w = mountWidget(s);
    const replies: unknown[] = [];
    w.handle.on('reply', (detail) => replies.push(detail));
    await until(() => expect(w!.watchLoads()).toBe(1));
    const badge = await until(() => $(w!.root, '.badge'));
    expect(badge.hidden).toBe(true);
    expect(launcher().getAttribute('aria-label')).toBe('Contact support');
    // Let the first count settle into a waiting poll, then support answers.
    await new Promise((r) => setTimeout(r, 300));
    const replied = Date.now();
    await support(s, 'POST', '/reply', { ticket_id: id, message: 'A new teapot is on its way.' });
    await until(() => expect(badge.hidden).toBe(false), 2000);
    expect(Date.now() - replied).toBeLessThan(2000);
    expect(badge.textContent).toBe('1');
    expect(badge.getAttribute('aria-hidden')).toBe('true');
    expect(launcher().getAttribute('aria-label')).toBe('Contact support, 1 unread reply');
    expect($(w.root, 'span.sr[aria-live="polite"]').textContent).toBe('1 unread reply');
    expect(replies).toEqual([{ unread: 1 }]);
    expect(w.loads()).toBe(0); // the panel was never fetched for this

    await support(s, 'POST', '/reply', { ticket_id: id, message: 'Tracking: TRACK-1' });
    await until(() => expect(launcher().getAttribute('aria-label')).toBe('Contact support, 2 unread replies'));
    expect(badge.textContent).toBe('2');

    // Seen: open the panel and the thread; the badge goes and the name is the label alone.
    fireEvent.click(launcher());
    fireEvent.click(await until(() => byText(w!.root, '.item', /Leaky teapot/)));
    await until(() => byText(w!.root, '.msg.theirs', /Tracking: TRACK-1/));
    await until(() => expect(badge.hidden).toBe(true));
    expect(launcher().getAttribute('aria-label')).toBe('Contact support');
    const saved = JSON.parse(localStorage.getItem(`ticketing:tickets:${s.keys.pk}`)!);
    expect(saved[0]).toMatchObject({ id, seen: 2 });
  });

  it('stay unread while the panel is closed on that very thread, and are seen when it shows again', async () => {
    const id = await ticket('ada@example.com', 'Cracked cup');
    w = mountWidget(s, { open: true });
    fireEvent.click(await until(() => byText(w!.root, '.item', /Cracked cup/)));
    await until(() => byText(w!.root, 'h3', 'Cracked cup'));
    w.handle.close();
    await until(() => expect(w!.root.querySelector('[role="dialog"]')).toBeNull());
    await support(s, 'POST', '/reply', { ticket_id: id, message: 'Sorry about the cup.' });
    await until(() => expect(launcher().getAttribute('aria-label')).toBe('Contact support, 1 unread reply'));
    // Nothing marks it seen behind the customer's back.
    await new Promise((r) => setTimeout(r, 500));
    expect($(w.root, '.badge').textContent).toBe('1');
    w.handle.open();
    await until(() => byText(w!.root, '.msg.theirs', /Sorry about the cup/));
    await until(() => expect(launcher().getAttribute('aria-label')).toBe('Contact support'));
  });

  it('counts in German', async () => {
    document.documentElement.lang = 'de';
    try {
      const id = await ticket('ada@example.com', 'Teekanne');
      await support(s, 'POST', '/reply', { ticket_id: id, message: 'Antwort' });
      await support(s, 'POST', '/reply', { ticket_id: id, message: 'Noch eine' });
      w = mountWidget(s);
      await until(() =>
        expect(launcher().getAttribute('aria-label')).toBe('Support kontaktieren, 2 ungelesene Antworten'),
      );
    } finally {
      document.documentElement.lang = '';
    }
  });

  it('costs a first-time visitor nothing: no watcher is loaded and no poll is sent', async () => {
    w = mountWidget(s);
    await until(() => launcher());
    // The check runs 2 s after the launcher, when the page is idle (within 1 s more): wait it out.
    await new Promise((r) => setTimeout(r, 3200));
    expect(w.watchLoads()).toBe(0);
    expect(w.root.querySelector('.badge')).toBeNull();
  });
});

describe('a verified customer', () => {
  it('sees the tickets of their email filed elsewhere, with status, in "Your tickets"; a forged signature sees none', async () => {
    const elsewhere = await ticket('grace@example.com', 'Filed on my phone', false);
    await ticket('bob@example.com', 'Bob’s own', false);
    await support(s, 'POST', '/reply', { ticket_id: elsewhere, message: 'Answered' });

    w = mountWidget(s, { open: true });
    w.handle.identify({ email: 'grace@example.com', name: 'Grace', signature: sign('grace@example.com') });
    const item = await until(() => byText(w!.root, '.item', /Filed on my phone/));
    // Support's reply left it waiting on the customer (the workflow's default reply status).
    expect(item.textContent).toContain('Pending');
    expect(w.root.textContent).not.toContain('Bob’s own');
    fireEvent.click(item);
    await until(() => byText(w!.root, '.msg.theirs', /Answered/));
    w.handle.destroy();

    localStorage.clear();
    w = mountWidget(s, { open: true });
    w.handle.identify({ email: 'grace@example.com', name: 'Grace', signature: sign('mallory@example.com') });
    await until(() => byText(w!.root, 'p', 'No tickets from this browser yet.'));
    await new Promise((r) => setTimeout(r, 300));
    expect(w.root.textContent).not.toContain('Filed on my phone');
  });
});
